"""A regrade's fast path on every core (app.regrade.forks): its batches in forked workers.

Past start-up (imports, the rubric, the fast path built) a regrade of two fast batches or more
forks its workers; each runs whole batches as the CLI's process would (app.regrade.batches:
stored runs, re-scoring, settling, storing: a transaction each, on connections of its own) and
answers with what the report needs. This process adds the answers up, sends what the workers
could not re-score to the grading processes and shows the progress. A batch a worker failed
or died with is done here, but for what the worker stored of it.

On SQLite the workers read in transactions that take no lock (one worker's reads never wait for
the other's write) and write one after the other (busy timeout); on PostgreSQL the job's
counts are added in SQL (app.regrade.repository.count_done), so no count is lost.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import gc
import os
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from app.db.session import make_sessionmaker, unit_of_work
from app.regrade import repository
from app.regrade.batches import Rescoring, Target, rescore, triage
from app.regrade.fast import FastPath, FastStats
from app.regrade.forks import Forked, run_forked


@dataclass(frozen=True)
class Here:
    """What the regrade does in its own process."""

    batch: Callable[[list[int]], None]  # a fast batch, whole
    send: Callable[[list[int]], None]  # submissions for the grading processes
    rescored: Callable[[Rescoring], None]  # a batch re-scored: its changes and progress
    progress: Callable[[int], None]  # submissions regraded otherwise


@dataclass
class _Answer:
    """A fast batch as a worker did it."""

    untried: list[int]
    rescoring: Rescoring
    stats: FastStats


class _Turns:
    """SQLite writes one transaction at a time: the workers take turns through a lock file.
    A worker waiting for its turn wakes as soon as the other's is over, where SQLite's busy
    handler sleeps in steps of up to 100 ms; a worker that dies gives its turn up with its
    open file. The file is unlinked at once (nothing is left behind, even by a killed
    command); each worker opens it anew through /proc (a lock is its open file's). Without
    /proc the workers rely on the busy handler alone."""

    def __init__(self, shared: int) -> None:
        self.shared = shared
        self.fd: int | None = None

    def open(self) -> None:
        with contextlib.suppress(OSError):
            self.fd = os.open(f"/proc/self/fd/{self.shared}", os.O_RDWR)

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        if self.fd is None:
            yield
            return
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)


def forked(factory: sessionmaker[Session], fast: FastPath, chunks: list[list[int]],
           here: Here, target: Target, stopping: threading.Event | None, workers: int) -> bool:
    """The fast batches in forked workers, when there are two or more and most of the first
    batch is re-scored outside the grading processes (a battery change sends nearly all of
    it there: no worker is worth its fork). False when nothing was done."""
    engine = factory.kw.get("bind")
    if workers < 2 or len(chunks) < 2 or not isinstance(engine, Engine) or _private(engine):
        return False
    if stopping is not None and stopping.is_set():
        return False
    first = chunks[0]
    stored, untried = triage(factory, fast, first)
    here.send([sid for sid in first if sid in untried])
    first = [sid for sid in first if sid not in untried]
    if 2 * len(untried) > len(chunks[0]):
        here.rescored(rescore(factory, factory, fast, first, stored, target))
        for chunk in chunks[1:]:
            if stopping is not None and stopping.is_set():
                break
            here.batch(chunk)
        return True
    reads = make_sessionmaker(engine, read_only=True)  # on SQLite: blocks no worker's write

    def done(_: list[int], answer: _Answer) -> None:
        _add(fast.stats, answer.stats)
        here.send(answer.untried)
        here.rescored(answer.rescoring)

    def lost(chunk: list[int]) -> None:
        """A batch no worker finished, done here; but for what the worker stored of it."""
        if target.job_id is not None and not target.dry_run:
            with unit_of_work(factory) as session:
                stored = repository.regraded_by(session, target.job_id, chunk)
            if stored:
                here.progress(len(stored))
            chunk = [sid for sid in chunk if sid not in stored]
        if chunk:
            here.batch(chunk)

    def before_fork() -> None:
        fast.close()  # the cache's buffered writes, once: not once per worker
        engine.dispose()  # no connection of this process's is copied into the workers

    shared, path = tempfile.mkstemp(prefix="gradeformer-regrade-")
    os.unlink(path)
    try:
        turns = _Turns(shared)

        def work(chunk: list[int]) -> _Answer:
            fast.stats = FastStats()
            untried: set[int] = set()
            if chunk == first:  # triaged here before the fork: the worker has its runs
                runs = stored
            else:
                runs, untried = triage(reads, fast, chunk)
            found = rescore(reads, factory, fast, [sid for sid in chunk if sid not in untried],
                            runs, target, turns)
            return _Answer(sorted(untried), found, fast.stats)

        def in_worker() -> None:
            worker_collector()
            engine.dispose(close=False)
            if engine.dialect.name == "sqlite":
                turns.open()

        run_forked([first, *tapered(chunks[1:], workers)] if first
                   else tapered(chunks[1:], workers), workers, work,
                   Forked(done, lost), stopping=stopping, before_fork=before_fork,
                   in_worker=in_worker)
    finally:
        os.close(shared)
    return True


# The last batches are smaller, down to this share of a full one: the workers end within a
# small batch's time of each other, where one may otherwise idle for most of a full one's.
TAPER = 4


def tapered(chunks: list[list[int]], workers: int) -> list[list[int]]:
    """The same submissions in the same order, in batches of the largest chunk's size until
    the rest would give each worker fewer than two such, then smaller (at least 1/TAPER of
    it): what is left is shared out more evenly at the end."""
    ids = [sid for chunk in chunks for sid in chunk]
    full = max((len(chunk) for chunk in chunks), default=0)
    least = max(1, full // TAPER)
    batches: list[list[int]] = []
    at = 0
    while at < len(ids):
        size = min(full, max(least, -(-(len(ids) - at) // (2 * workers))))
        batches.append(ids[at : at + size])
        at += size
    return batches


# A worker's young generation is collected after this many new container objects (the
# interpreter's default: 700). Re-scoring a batch allocates millions of short-lived, acyclic
# objects (results, rows, keys) beside long-lived memos: at the default, ~390 passes a worker
# at 10,000 submissions, ~0.3 s of its ~3.4 s CPU; at this threshold 3 passes, ~0.09 s.
# What start-up built is frozen already (app.cli.context.startup_frozen).
WORKER_YOUNG_THRESHOLD = 50_000


def worker_collector() -> None:
    """The collector of a forked worker, a short-lived process that only re-scores and stores:
    its young generation collected far less often; the older ones as before, relative to it."""
    _, middle, old = gc.get_threshold()
    gc.set_threshold(WORKER_YOUNG_THRESHOLD, middle, old)


def _private(engine: Engine) -> bool:
    """An in-memory SQLite database: a fork would write to its own copy."""
    url = engine.url
    database = url.database or ""
    return url.get_backend_name() == "sqlite" and (
        database in ("", ":memory:") or "memory" in str(url.query.get("mode", "")))


def _add(into: FastStats, more: FastStats) -> None:
    for counter in dataclasses.fields(FastStats):
        setattr(into, counter.name, getattr(into, counter.name) + getattr(more, counter.name))

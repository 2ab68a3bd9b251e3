"""A regrade's fast path a batch at a time: read the batch's stored runs, re-score what can be
re-scored here (graders.cache.rescore), settle (graders.cache.settle) and store it in one
transaction; in this process, or, for two batches or more, in forked workers on every core.

A fork inherits what this process built (imports, the rubric, the re-scorer): no start-up is
paid again. Workers read in transactions that take no lock on SQLite and write one at a time;
on PostgreSQL the job's counts are added in SQL (app.regrade.jobs.count_done). A batch a worker
failed or died with is done here, but for what the worker stored of it.
"""

from __future__ import annotations

import contextlib
import gc
import io
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, Text, cast, select
from sqlalchemy.orm import Session, sessionmaker

from app.db.models import GradingRun, RubricVersion, Submission
from app.db.session import make_sessionmaker, unit_of_work
from app.grading.processes import kill_processes, processes_of
from app.grading.repository import AdvancedRun, advance_runs, run_scores
from app.regrade import jobs
from app.regrade.changes import ScoreChange, change_of, stored_by_job
from app.submissions.repository import overrides_for
from graders.cache.plan import tapered
from graders.cache.rescore import Rescored, Rescorer, RescoreStats, StoredRun
from graders.cache.settle import Settled, settle
from graders.options import GradingOptions
from graders.rubric import LoadedRubric, stored_rubric

log = logging.getLogger(__name__)

Batch = list[int]
Send = Callable[[Batch], None]  # submissions for the grading processes


@dataclass(frozen=True, slots=True)
class Target:
    """Where a regrade stores what it re-scores."""

    version_id: int
    job_id: int | None
    dry_run: bool


@dataclass(slots=True)
class Rescoring:
    """A batch re-scored: what it could not do (for the grading processes), the score changes
    of what it did, and how many it did (stored, unless a dry run)."""

    rest: list[int] = field(default_factory=list)
    changes: list[ScoreChange] = field(default_factory=list)
    done: int = 0


def fast_path(loaded: LoadedRubric, context: str | None,
              options: Mapping[str, Any] | None) -> Rescorer | None:
    """The fast path, when it decides exactly as the grading processes would: a result cache
    to read, and no calibration context (its annotations are not what the keys name)."""
    if context is not None or not options:
        return None
    if GradingOptions.from_mapping(options).result_cache_path is None:
        return None
    from app.cache.store import open_cache

    cache = open_cache(options)
    return Rescorer(loaded, options, cache) if cache.enabled else None


def stored_runs(session: Session, ids: Sequence[int]) -> dict[int, StoredRun]:
    # The keys are read as their JSON text: a re-scored run's new keys are that text with the
    # changed keys replaced (graders.cache.plan.keys_text), never encoded again whole.
    rows = session.connection().execute(
        select(Submission.id, GradingRun.id, Submission.student, Submission.sha256,
               Submission.filename, Submission.content_type, Submission.handout,
               GradingRun.rubric_version_id, GradingRun.total, GradingRun.max_points,
               cast(GradingRun.result_keys, Text))
        .join(GradingRun, GradingRun.submission_id == Submission.id)
        .where(Submission.id.in_(list(ids)), GradingRun.is_current.is_(True))
    ).tuples().all()
    return {row[0]: StoredRun(*row) for row in rows}


def triage(reads: sessionmaker[Session], fast: Rescorer, chunk: Batch, send: Send
           ) -> tuple[dict[int, StoredRun], Batch]:
    """The chunk's stored runs, and the rest of it: what the plan sends to the grading
    processes untried goes to `send` first (they grade it while this process re-scores)."""
    with unit_of_work(reads) as session:
        stored = stored_runs(session, chunk)

        def old_rubric(version_id: int) -> LoadedRubric | None:
            # With its battery files as stored (without: beside its file, as stored).
            row = session.get(RubricVersion, version_id)
            return None if row is None else stored_rubric(row.source_text, row.source_name,
                                                          row.battery_files)

        untried = fast.untried(chunk, stored, old_rubric)
    send([sid for sid in chunk if sid in untried])
    return stored, [sid for sid in chunk if sid not in untried]


def rescore(reads: sessionmaker[Session], writes: sessionmaker[Session], fast: Rescorer,
            chunk: Sequence[int], stored: Mapping[int, StoredRun], target: Target,
            turn: Callable[[], AbstractContextManager[Any]] = nullcontext) -> Rescoring:
    """Re-score here what the fast path can of `chunk` and store it in one transaction (once
    `turn` lets it write)."""
    found = Rescoring()
    started = time.perf_counter()
    rescored: list[Rescored] = []
    for sid in chunk:
        done = fast.rescore(stored.get(sid))
        if done is None:
            found.rest.append(sid)
        else:
            rescored.append(done)
    if chunk:
        fast.close()
    if not rescored:
        return found
    # Of each stored run only its item count and the rows that can change its status or
    # total are read: those of the recomputed and the overridden items, and the deciding ones.
    with unit_of_work(reads) as session:
        overrides = overrides_for(session, [r.stored.submission_id for r in rescored])
        wanted = {item for r in rescored for item in r.recomputed}
        wanted.update(item for own in overrides.values() for item in own)
        scores = run_scores(session, [r.stored.run_id for r in rescored], wanted)
    settled: list[tuple[Rescored, Settled]] = []
    for r in rescored:
        run = r.stored
        read = scores.get(run.run_id)
        own = {item: o.points for item, o in overrides.get(run.submission_id, {}).items()}
        now = None if read is None or read.count != len(fast.order) else settle(
            run.total, run.max_points, read.rows, r.recomputed, own, fast.positions)
        if now is None:
            fast.stats.unsettled(r)
            found.rest.append(run.submission_id)
        else:
            settled.append((r, now))
    found.rest.sort()
    changes = [change_of(r.stored.submission_id, r.stored.student, s)
               for r, s in settled if s.changed]
    if settled and not target.dry_run:
        seconds = (time.perf_counter() - started) / len(chunk)
        try:
            with turn(), unit_of_work(writes) as session:
                stored_now = advance_runs(session, [
                    AdvancedRun(r.stored.submission_id, r.stored.run_id, s.status, s.total,
                                s.max_points, r.keys, r.recomputed) for r, s in settled],
                    target.version_id, fast.loaded.content_hash, target.job_id, fast.positions,
                    seconds)
                if target.job_id is not None:
                    jobs.count_done(session, target.job_id, stored_now, len(changes))
        except Exception:  # the grading processes store them, a row at a time if need be
            log.exception("storing %d re-scored submissions failed", len(settled))
            fast.stats.sent += len(settled)
            found.rest = sorted(found.rest + [r.stored.submission_id for r, _ in settled])
            return found
    found.changes, found.done = changes, len(settled)
    return found


def here(factory: sessionmaker[Session], fast: Rescorer, chunk: Batch, target: Target,
         send: Send) -> Rescoring:
    """A fast batch, triaged and re-scored."""
    stored, rest = triage(factory, fast, chunk, send)
    return rescore(factory, factory, fast, rest, stored, target)


def run_batches(factory: sessionmaker[Session], fast: Rescorer, chunks: list[Batch],
                target: Target, workers: int, stopped: Callable[[], bool], send: Send,
                done: Callable[[Rescoring], None]) -> None:
    """Every fast batch, here or in forked workers; each one's answer to `done` here, in the
    order they come. Forked when there are two batches or more and most of the first is
    re-scored outside the grading processes (a battery change sends nearly all of it there:
    no worker is worth its fork). Once `stopped()` no batch is started."""
    engine = factory.kw.get("bind")
    if (workers >= 2 and len(chunks) >= 2 and isinstance(engine, Engine)
            and not _private(engine) and not stopped()):
        stored, first = triage(factory, fast, chunks[0], send)
        if 2 * len(first) < len(chunks[0]):
            done(rescore(factory, factory, fast, first, stored, target))
        else:
            _forked(_Shared(factory, make_sessionmaker(engine, read_only=True), fast, target,
                            first, stored), [first] * bool(first) + tapered(chunks[1:], workers),
                    workers, stopped, send, done)
            return
        chunks = chunks[1:]
    for chunk in chunks:
        if stopped():
            return
        done(here(factory, fast, chunk, target, send))


@dataclass
class _Shared:
    """What the forked workers inherit."""

    factory: sessionmaker[Session]
    reads: sessionmaker[Session]  # on SQLite: blocks no worker's write
    fast: Rescorer
    target: Target
    first: Batch  # triaged here before the fork: the workers have its runs
    stored: dict[int, StoredRun]
    turn: Callable[[], AbstractContextManager[Any]] = nullcontext
    parent: int = 0  # the command's process, in a worker


@dataclass
class _Answer:
    untried: list[int]
    rescoring: Rescoring
    stats: RescoreStats


_shared: _Shared | None = None


def _forked(shared: _Shared, batches: list[Batch], workers: int, stopped: Callable[[], bool],
            send: Send, done: Callable[[Rescoring], None]) -> None:
    global _shared
    engine = shared.factory.kw["bind"]
    context = multiprocessing.get_context("fork")
    if engine.dialect.name == "sqlite":  # one writer at a time: each waits for the lock
        lock = context.Lock()
        shared.turn = lambda: lock
    shared.fast.close()  # the cache's buffered writes, once: not once per worker
    engine.dispose()  # no connection of this process's is copied into the workers
    _shared, pending = shared, deque(batches)
    running: dict[Future[_Answer], Batch] = {}
    broken = False
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_in_worker,
                               initargs=(os.getpid(),))
    try:
        while pending or running:
            while pending and not broken and not stopped() and len(running) < 2 * workers:
                chunk = pending.popleft()
                running[pool.submit(_work, chunk)] = chunk
            if not running:
                break
            for future in wait(running, return_when=FIRST_COMPLETED).done:
                chunk = running.pop(future)
                try:
                    answer = future.result()
                except BrokenProcessPool:
                    if not broken:
                        log.error("a regrade worker died; its batches are run here")
                        # The pool fails every running call before it stops the other
                        # workers: one slow to stop could still store its batch after `lost`
                        # read back what it stored. Each is killed and waited for first.
                        workers_of = processes_of(pool)
                        kill_processes(pool)
                        for process in workers_of:
                            process.join(30)
                    broken = True
                    _lost(shared, chunk, send, done)
                except Exception:
                    log.exception("a regrade worker failed a batch; it is run here")
                    _lost(shared, chunk, send, done)
                else:
                    shared.fast.stats.add(answer.stats)
                    send(answer.untried)
                    done(answer.rescoring)
        # The workers died: the batches not handed out yet are run here too.
        while pending and not stopped():
            _lost(shared, pending.popleft(), send, done)
    except BaseException:
        kill_processes(pool)
        raise
    finally:
        _shared = None
        pool.shutdown(cancel_futures=True)


def _lost(shared: _Shared, chunk: Batch, send: Send, done: Callable[[Rescoring], None]) -> None:
    """A batch no worker finished, done here; but for what the worker stored of it (its
    changes read back from the stored runs)."""
    target = shared.target
    if target.job_id is not None and not target.dry_run:
        with unit_of_work(shared.factory) as session:
            stored = stored_by_job(session, target.job_id, chunk)
        if stored:
            changes = [change for change in stored.values() if change is not None]
            done(Rescoring(changes=changes, done=len(stored)))
        chunk = [sid for sid in chunk if sid not in stored]
    if chunk:
        done(here(shared.factory, shared.fast, chunk, target, send))


_busy = threading.Lock()  # held by a worker while it does a batch


def _in_worker(parent: int) -> None:
    """A forked worker: standard streams of its own (another thread of the parent may have
    been writing at the fork, leaving the copied ones' locks held), connections of its own,
    its collector tuned (`worker_collector`), and it leaves once orphaned, after its batch."""
    for name, fd in (("stdout", 1), ("stderr", 2)):
        with contextlib.suppress(OSError):
            setattr(sys, name, io.TextIOWrapper(io.FileIO(os.dup(fd), "w"), line_buffering=True))
    assert _shared is not None
    _shared.factory.kw["bind"].dispose(close=False)
    worker_collector()

    def orphaned() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        with _busy:
            os._exit(1)

    _shared.parent = parent
    threading.Thread(target=orphaned, daemon=True).start()


def _work(chunk: Batch) -> _Answer:
    shared, untried = _shared, list[int]()
    assert shared is not None
    shared.fast.stats = RescoreStats()
    with _busy:
        if os.getppid() != shared.parent:  # orphaned: no batch more
            os._exit(1)
        stored, rest = (shared.stored, chunk) if chunk == shared.first else triage(
            shared.reads, shared.fast, chunk, untried.extend)
        found = rescore(shared.reads, shared.factory, shared.fast, rest, stored, shared.target,
                        shared.turn)
    return _Answer(untried, found, shared.fast.stats)


# A worker's young generation is collected after this many new container objects (the
# interpreter's default: 700). Re-scoring a batch allocates millions of short-lived, acyclic
# objects beside long-lived memos: at the default, ~390 passes a worker at 10,000 submissions,
# ~0.3 s of its ~3.4 s CPU; at this threshold 3 passes, ~0.09 s.
WORKER_YOUNG_THRESHOLD = 50_000


def worker_collector() -> None:
    _, middle, old = gc.get_threshold()
    gc.set_threshold(WORKER_YOUNG_THRESHOLD, middle, old)


def worker_count(requested: int | None, configured: int | None) -> int:
    """`requested`, else one per core this process may use (at most `configured`, the grading
    processes' count); none but this process off the main thread (the server's threads: a
    fork would copy their locks)."""
    if requested is not None:
        return max(1, requested)
    if threading.current_thread() is not threading.main_thread():
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, configured or cores or 1))


def _private(engine: Engine) -> bool:
    """An in-memory SQLite database: a fork would write to its own copy."""
    url = engine.url
    database = url.database or ""
    return url.get_backend_name() == "sqlite" and (
        database in ("", ":memory:") or "memory" in str(url.query.get("mode", "")))

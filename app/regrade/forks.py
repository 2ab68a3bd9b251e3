"""Batches of work in forked copies of this process (a regrade's fast path: app.regrade.parallel).

A fork starts at once and inherits what this process built (imports, the rubric, its caches):
no start-up is paid again. Each worker takes batches over a pipe, at most `DEPTH` held at a
time, and answers each; the answers are handled here in the order they come.

A worker that fails a batch (an exception) or dies (killed) loses no batch: those it held are
handed back (`Forked.lost`) for the caller to run itself. Forks copy only the forking thread,
so the caller must fork only where no other thread holds what the workers use (the CLI's main
thread: the only other one draws the progress bar); the workers write nothing to the terminal
and leave with `os._exit`, running none of the parent's exit handlers.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pipe
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
Batch = list[int]
DEPTH = 2  # batches a worker holds: the next one is there when it finishes one


@dataclass
class _Worker:
    pid: int
    conn: Connection
    held: deque[Batch] = field(default_factory=deque)


@dataclass
class Forked(Generic[T]):
    """What to do with the workers' answers, in this process."""

    done: Callable[[Batch, T], None]  # a batch a worker finished
    lost: Callable[[Batch], None]  # a batch no worker finished: the caller runs it


def run_forked(batches: Sequence[Batch], count: int, work: Callable[[Batch], T],
               forked: Forked[T], *, stopping: threading.Event | None = None,
               before_fork: Callable[[], None] | None = None,
               in_worker: Callable[[], None] | None = None) -> None:
    """Every batch through `work` in `count` forked workers, each answer to `forked.done` here,
    in the order they come. Once `stopping` is set no batch is handed out (those held finish);
    the rest are left undone. `before_fork` runs here, `in_worker` in each worker first."""
    pending: deque[Batch] = deque(batches)
    if before_fork is not None:
        before_fork()
    workers = _start(count, work, in_worker)
    retired: list[int] = []
    finished = False
    try:
        while workers:
            for worker in list(workers):
                _hand_out(worker, pending, stopping, workers, forked)
            if not pending:
                # Nothing left to hand out: an idle worker leaves now, while the others
                # finish their last batches (not after them).
                for worker in [w for w in workers if not w.held]:
                    workers.remove(worker)
                    worker.conn.close()
                    retired.append(worker.pid)
            busy = {w.conn: w for w in workers if w.held}
            if not busy:
                break
            ready = set(wait(list(busy)))
            for conn, worker in busy.items():
                if conn not in ready:
                    continue
                try:
                    kind, value = conn.recv()
                except Exception:  # it died (or its answer is unreadable)
                    log.error("regrade worker %d died; its %d batches are run here",
                              worker.pid, len(worker.held))
                    _drop(worker, workers, forked)
                    continue
                batch = worker.held.popleft()
                if kind == "done":
                    forked.done(batch, value)
                else:
                    log.error("a regrade worker failed a batch; it is run here:\n%s", value)
                    forked.lost(batch)
        # Every worker died: the batches not handed out yet are run here too.
        while pending and not (stopping is not None and stopping.is_set()):
            forked.lost(pending.popleft())
        finished = True
    finally:
        for worker in workers:
            worker.conn.close()  # its next read ends: it leaves
            if not finished:
                _kill(worker.pid)
        for pid in [*retired, *(worker.pid for worker in workers)]:
            _reap(pid)


def _hand_out(worker: _Worker, pending: deque[Batch], stopping: threading.Event | None,
              workers: list[_Worker], forked: Forked[Any]) -> None:
    while len(worker.held) < DEPTH and pending:
        if stopping is not None and stopping.is_set():
            return
        if worker.held and len(pending) < len(workers):
            # Near the end a batch waits for the first worker free, not behind another one.
            return
        batch = pending.popleft()
        worker.held.append(batch)
        try:
            worker.conn.send(batch)
        except OSError:  # it died before taking it
            _drop(worker, workers, forked)
            return


def _drop(worker: _Worker, workers: list[_Worker], forked: Forked[Any]) -> None:
    workers.remove(worker)
    worker.conn.close()
    _kill(worker.pid)  # if it is still there: what it held is run here
    _reap(worker.pid)
    while worker.held:
        forked.lost(worker.held.popleft())


def _start(count: int, work: Callable[[Batch], Any],
           in_worker: Callable[[], None] | None) -> list[_Worker]:
    pipes = [Pipe() for _ in range(count)]
    workers: list[_Worker] = []
    for number, (ours, theirs) in enumerate(pipes):
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:  # no more processes: the ones started do the work
            log.exception("could not start regrade worker %d of %d", number + 1, count)
            ours.close()
            theirs.close()
            continue
        if pid == 0:  # the worker
            code = 1
            try:
                for other, (a, b) in enumerate(pipes):
                    a.close()
                    if other != number:
                        b.close()
                _own_streams()
                if in_worker is not None:
                    in_worker()
                _serve(theirs, work)
                code = 0
            finally:
                os._exit(code)
        theirs.close()
        workers.append(_Worker(pid, ours))
    return workers


def _serve(conn: Connection, work: Callable[[Batch], Any]) -> None:
    while True:
        try:
            batch = conn.recv()
        except EOFError:  # the parent is done (or gone)
            return
        try:
            answer: tuple[str, Any] = ("done", work(batch))
        except Exception:
            answer = ("failed", traceback.format_exc())
        conn.send(answer)


def _own_streams() -> None:
    """Standard streams of the worker's own: another thread of the parent may have been
    writing at the fork, leaving the copied ones' locks held for good."""
    for name, fd in (("stdout", 1), ("stderr", 2)):
        with contextlib.suppress(OSError):
            setattr(sys, name, io.TextIOWrapper(io.FileIO(os.dup(fd), "w"), line_buffering=True))


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def worker_count(requested: int | None, configured: int | None) -> int:
    """Workers for a regrade's fast path: `requested`, else one per core this process may
    use (at most `configured`, the grading processes' count), and none but this process when
    the caller is not the main thread (the server's threads: a fork would copy their locks)."""
    if requested is not None:
        return max(1, requested)
    if threading.current_thread() is not threading.main_thread():
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    return max(1, min(cores, configured or cores))

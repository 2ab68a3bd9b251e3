"""Batches of work in forked copies of this process (a regrade's fast path: app.regrade.parallel).

A fork starts at once and inherits what this process built (imports, the rubric, its caches):
no start-up is paid again. The workers are a process pool of the `fork` start method, at most
`DEPTH` batches a worker in flight; the answers are handled here in the order they come.

A worker that fails a batch (an exception) or dies (killed) loses no batch: a failed batch is
handed back (`Forked.lost`) for the caller to run itself, and a death breaks the pool, so every
batch not done is handed back. Forks copy only the forking thread, so the caller must fork only
where no other thread holds what the workers use (the CLI's main thread: the only other one
draws the progress bar); the workers write nothing to the terminal, run none of the parent's
exit handlers, and leave once this process is gone (after the batch they are in).
"""

from __future__ import annotations

import contextlib
import io
import logging
import multiprocessing
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_for
from typing import Any, Generic, TypeVar

from app.grading.retry import kill_processes

log = logging.getLogger(__name__)

T = TypeVar("T")
Batch = list[int]
DEPTH = 2  # batches a worker holds: the next one is there when it finishes one

# In a worker: what it runs each batch through (set by its initializer, inherited with the
# fork, never pickled), its parent's pid, and a lock held while it runs a batch.
_work: Callable[[Batch], Any] | None = None
_parent = 0
_busy = threading.Lock()


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
    sys.stdout.flush()
    sys.stderr.flush()
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"),
                               initializer=_start, initargs=(work, in_worker))
    running: dict[Future[Any], Batch] = {}
    orphaned: list[Batch] = []  # held when a worker died
    finished = False
    try:
        while (pending or running) and not orphaned:
            while pending and len(running) < count * DEPTH and not _stopped(stopping):
                batch = pending.popleft()
                running[pool.submit(_run, batch)] = batch
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                _answer(future, running.pop(future), forked, orphaned)
        if orphaned:
            for future in wait(running).done:
                _answer(future, running.pop(future), forked, orphaned)
            log.error("a regrade worker died; %d batches are run here", len(orphaned))
            for batch in orphaned:
                forked.lost(batch)
            while pending and not _stopped(stopping):  # not handed out yet: run here too
                forked.lost(pending.popleft())
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            kill_processes(pool)


def _answer(future: Future[Any], batch: Batch, forked: Forked[Any],
            orphaned: list[Batch]) -> None:
    error = future.exception()
    if error is None:
        forked.done(batch, future.result())
    elif isinstance(error, BrokenProcessPool):
        orphaned.append(batch)
    else:
        log.error("a regrade worker failed a batch; it is run here", exc_info=error)
        forked.lost(batch)


def _stopped(stopping: threading.Event | None) -> bool:
    return stopping is not None and stopping.is_set()


def _start(work: Callable[[Batch], Any], in_worker: Callable[[], None] | None) -> None:
    """A worker's start: its batches' work, standard streams of its own (another thread of
    the parent may have been writing at the fork, leaving the copied ones' locks held for
    good), and a watch on the parent."""
    global _work, _parent
    _work, _parent = work, os.getppid()
    for name, fd in (("stdout", 1), ("stderr", 2)):
        with contextlib.suppress(OSError):
            setattr(sys, name, io.TextIOWrapper(io.FileIO(os.dup(fd), "w"), line_buffering=True))
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_leave_with, args=(parent.sentinel,), daemon=True).start()
    if in_worker is not None:
        in_worker()


def _run(batch: Batch) -> Any:
    assert _work is not None
    with _busy:
        if os.getppid() != _parent:  # the parent is gone: no batch is started
            os._exit(0)
        return _work(batch)


def _leave_with(sentinel: int) -> None:
    """The parent is gone (killed): leave once the batch at hand is done and stored."""
    wait_for([sentinel])
    with _busy:
        os._exit(0)


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

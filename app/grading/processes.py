"""Grading process pools: started from the fork server, replaced when broken (`ProcessPools`),
shut down once their work is done (waiting for their processes, or not: `release`, then
`await_exit`), killed when they must stop now. What survives a process's death is
app/grading/retry.py's."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import threading
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

log = logging.getLogger(__name__)


def process_pool(workers: int, options: Mapping[str, Any],
                 kinds: Iterable[str] | None = None) -> ProcessPoolExecutor:
    """`kinds`: what its processes grade (`preload_modules`; None: every kind)."""
    # Imported when a pool starts, not by every importer of this module (issue #16).
    from app.grading.preload import fork_server
    from app.grading.worker import init_pool_worker

    # forkserver: workers fork from a clean server that has the graders imported already, not
    # from a parent that runs threads (uvicorn, the writer) whose locks a fork would copy.
    return ProcessPoolExecutor(max_workers=workers, mp_context=fork_server(kinds),
                               initializer=init_pool_worker, initargs=(options,))


def processes_of(pool: Executor) -> list[multiprocessing.process.BaseProcess]:
    # ProcessPoolExecutor has no public way to stop a running call; its process table is the
    # only handle on the processes.
    return list((getattr(pool, "_processes", None) or {}).values())


def kill_processes(pool: Executor) -> None:
    """End a pool's processes now: shutdown() alone waits for the jobs they are running."""
    for process in processes_of(pool):
        if process.is_alive():
            process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


# (process, sentinel) of a released pool: what `await_exit` waits for (shutdown() forgets them)
Released = list[tuple[multiprocessing.process.BaseProcess, Any]]


def release(pool: Executor) -> Released:
    """Shut a pool down once its work is done without waiting for its processes to exit: a
    command that holds every result stores and prints them meanwhile (`await_exit` waits)."""
    processes = [(p, p.sentinel) for p in processes_of(pool)]
    pool.shutdown(wait=False)
    return processes


def await_exit(processes: Released, grace: float = 30.0, *, kill: bool = False) -> None:
    """Wait up to `grace` seconds for released processes to exit, then kill those still there
    (`kill`: now). A process waiting on a queue lock that a killed sibling held never exits,
    and joining it would hang this process's exit."""
    sentinels = [sentinel for _, sentinel in processes]
    deadline = time.monotonic() + grace
    while sentinels and not kill and (left := deadline - time.monotonic()) > 0:
        for ended in multiprocessing.connection.wait(sentinels, left):
            sentinels.remove(ended)
    if sentinels and not kill:
        log.error("grading processes did not exit within %.0f s; killing them", grace)
    for process, sentinel in processes:
        if sentinel in sentinels and process.is_alive():
            process.kill()


def let_go(pool: Executor | None, *, kill: bool = False, grace: float = 30.0) -> None:
    """Shut a pool down once its work is done, waiting up to `grace` seconds for its processes
    to exit, then killing those still there (`kill`: now)."""
    if pool is not None and kill:
        kill_processes(pool)
    elif pool is not None:
        await_exit(release(pool), grace)


class ProcessPools:
    """Process pools of `workers` grading processes, started on first use, replaced when broken."""

    def __init__(self, workers: int, options: Mapping[str, Any], max_attempts: int = 3,
                 kinds: Iterable[str] | None = None) -> None:
        self.workers = workers
        self.options = dict(options)  # what its processes run with (a regrade's fast path too)
        self.max_attempts = max_attempts
        # What its processes grade (None: any kind): what their fork server imports first.
        self.kinds = None if kinds is None else frozenset(kinds)
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._released: Released = []

    def get(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = process_pool(self.workers, self.options, self.kinds)
            return self._pool

    def replace(self, broken: Executor) -> None:
        with self._lock:
            if self._pool is not broken:
                return  # replaced already (its processes killed then), or closed: let go there
            log.error("a grading process died; starting a new pool")
            self._pool = None  # the next get() starts one
        # Its processes ignore SIGTERM (init_pool_worker): those still alive would survive the
        # pool's terminate(), and its management thread, joining them, would hang this
        # process's exit. They are killed (whatever they held has failed already).
        kill_processes(broken)

    def solo(self) -> Executor:
        return process_pool(1, self.options, self.kinds)

    def release(self) -> None:
        """Let the processes exit once their calls are done, without waiting (`close` waits):
        the caller, holding every result, stores and prints them meanwhile."""
        with self._lock:
            pool, self._pool = self._pool, None
            self._released += release(pool) if pool is not None else []

    def close(self, *, kill: bool = False) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            released, self._released = self._released, []
        await_exit(released, kill=kill)
        let_go(pool, kill=kill)

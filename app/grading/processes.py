"""Grading process pools: started from the fork server, shut down once their work is done
(waiting for their processes, or not: `release`, then `await_exit`), killed when they must
stop now. What survives a process's death is app/grading/retry.py's."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
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
    context = fork_server(kinds)
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=init_pool_worker, initargs=(options,)
    )


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


def stop_pool(pool: Executor, grace: float = 30.0) -> None:
    """Shut a pool down once its work is done, waiting up to `grace` seconds for its processes
    to exit; those still there are killed."""
    await_exit(release(pool), grace)


def release(pool: Executor) -> Released:
    """Shut a pool down once its work is done without waiting for its processes to exit: a
    command that holds every result stores and prints them meanwhile (`await_exit` waits)."""
    if not isinstance(pool, ProcessPoolExecutor):
        pool.shutdown(wait=True)
        return []
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


def let_go(pool: Executor | None, *, kill: bool = False) -> None:
    """Stop a pool once its work is done (`kill`: now)."""
    if pool is not None:
        (kill_processes if kill else stop_pool)(pool)

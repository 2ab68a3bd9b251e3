"""Grading pools let go without waiting (`release`), then waited for (`await_exit`): their
processes exit once their calls are done, and one still busy after the grace is killed
(shutdown() forgets a pool's processes: they are taken before it)."""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from app.grading.processes import await_exit, let_go, processes_of, release


def _pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"))


def _exited(sentinels: list[int], within: float) -> bool:
    """Every process gone within `within` seconds. Read from the sentinels: the pool's own
    thread reaps its processes too, and a `join` racing it can find no exit status."""
    deadline = time.monotonic() + within
    left = list(sentinels)
    while left:
        for ready in multiprocessing.connection.wait(left, max(0.0, deadline - time.monotonic())):
            left.remove(ready)  # type: ignore[arg-type]
        if time.monotonic() >= deadline:
            break
    return not left


def test_released_processes_exit_once_their_calls_are_done() -> None:
    pool = _pool()
    calls = [pool.submit(time.sleep, 0.3) for _ in range(2)]
    processes = release(pool)  # returns at once: the calls are still running
    assert len(processes) == 2 and not any(c.done() for c in calls)
    await_exit(processes, grace=30)
    assert all(c.result() is None for c in calls)
    assert _exited([sentinel for _, sentinel in processes], 0.5)  # gone already


def test_a_process_still_busy_after_the_grace_is_killed(caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    pool = _pool()
    busy = pool.submit(time.sleep, 60)
    while not busy.running():
        time.sleep(0.01)
    sentinels = [process.sentinel for process in processes_of(pool)]
    with caplog.at_level(logging.ERROR):
        let_go(pool, grace=0.3)
    assert "did not exit" in caplog.text
    assert _exited(sentinels, 10)  # killed: its call would have slept for a minute


def test_kill_ends_released_processes_now() -> None:
    pool = _pool()
    busy = pool.submit(time.sleep, 60)
    while not busy.running():
        time.sleep(0.01)
    processes = release(pool)
    await_exit(processes, kill=True)
    assert _exited([sentinel for _, sentinel in processes], 10)

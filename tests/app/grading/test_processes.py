"""Grading pools let go without waiting (`release`), then waited for (`await_exit`): their
processes exit once their calls are done, and one still busy after the grace is killed
(shutdown() forgets a pool's processes: they are taken before it)."""

from __future__ import annotations

import logging
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from app.grading.processes import await_exit, processes_of, release, stop_pool


def _pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"))


def test_released_processes_exit_once_their_calls_are_done() -> None:
    pool = _pool()
    calls = [pool.submit(time.sleep, 0.3) for _ in range(2)]
    processes = release(pool)  # returns at once: the calls are still running
    assert len(processes) == 2 and not any(c.done() for c in calls)
    await_exit(processes, grace=30)
    assert all(c.result() is None for c in calls)
    for process, _ in processes:  # exited (its sentinel closes just before it can be reaped)
        process.join(5)
        assert process.exitcode == 0


def test_a_process_still_busy_after_the_grace_is_killed(caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    pool = _pool()
    busy = pool.submit(time.sleep, 60)
    while not busy.running():
        time.sleep(0.01)
    processes = processes_of(pool)
    started = time.monotonic()
    with caplog.at_level(logging.ERROR):
        stop_pool(pool, grace=0.3)
    assert "did not exit" in caplog.text
    for process in processes:
        process.join(10)
        assert not process.is_alive()
    assert time.monotonic() - started < 10


def test_kill_ends_released_processes_now() -> None:
    pool = _pool()
    busy = pool.submit(time.sleep, 60)
    while not busy.running():
        time.sleep(0.01)
    processes = release(pool)
    started = time.monotonic()
    await_exit(processes, kill=True)
    for process, _ in processes:
        process.join(10)
        assert not process.is_alive()
    assert time.monotonic() - started < 10

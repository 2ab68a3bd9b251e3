"""A job's time limit is its own time: on a machine too busy to give a job a processor, the wait
is not the student's timeout (a grader bug or a machine fault is never a student's zero)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from graders.sandbox import Sandbox, waiting
from graders.sandbox.waiting import WaitMeter, run_delay_s
from tests.graders.sandbox.conftest import run

# About 0.3 s of one processor, then the inputs back: far inside a 1 s limit when it runs.
SHORT_WORK = """
import time
def attention(Q, K, V):
    started = time.process_time()
    while time.process_time() - started < 0.3:
        pass
    return Q, K
"""
FOREVER = """
def attention(Q, K, V):
    while True:
        pass
"""
ASLEEP = """
import time
def attention(Q, K, V):
    time.sleep(30)
"""
HOGS = 3  # busy processes on the zygote's processor: the job gets about a quarter of it


@pytest.fixture
def crowded(sandbox: Sandbox) -> Iterator[list[int]]:
    """The sandbox's zygotes and HOGS busy loops all on processor 0; the dispatches counted."""
    zygotes = sandbox.zygote_pids()
    before = {pid: os.sched_getaffinity(pid) for pid in zygotes}
    # each in a session of its own, like the zygote: with autogroup scheduling the processor
    # is shared between sessions, so six hogs of one session would take only half of it
    hogs = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(HOGS)
    ]
    runs: list[int] = []
    dispatch = sandbox._dispatch

    def counted(*args: Any) -> Any:
        runs.append(1)
        return dispatch(*args)

    try:
        for pid in [*zygotes, *(h.pid for h in hogs)]:
            os.sched_setaffinity(pid, {0})
        sandbox._dispatch = counted  # type: ignore[method-assign]
        yield runs
    finally:
        del sandbox._dispatch
        for hog in hogs:
            hog.kill()
            hog.wait()
        for pid, cpus in before.items():
            os.sched_setaffinity(pid, cpus)


def test_the_wait_for_a_processor_is_measured() -> None:
    assert run_delay_s(os.getpid()) is not None, "no /proc/<pid>/schedstat on this kernel"
    meter = WaitMeter(os.getpid())
    assert meter.sample() >= 0.0


def test_a_short_job_on_a_crowded_processor_is_not_a_timeout(
    sandbox: Sandbox, crowded: list[int]
) -> None:
    outcome = run(sandbox, SHORT_WORK, timeout_s=1.0)
    assert outcome.status == "completed", outcome
    assert outcome.calls[0] is not None and outcome.calls[0].ok
    # it did not fit its limit beside the hogs the first time: it ran again, stretched
    assert len(crowded) >= 2, (crowded, outcome)


def test_a_loop_on_a_crowded_processor_is_still_the_students_timeout(
    sandbox: Sandbox, crowded: list[int]
) -> None:
    outcome = run(sandbox, FOREVER, timeout_s=0.5)
    assert outcome.status == "timeout", outcome
    assert max(outcome.wall_ms - outcome.waited_ms, outcome.cpu_ms) >= 0.9 * 500, outcome


def test_a_job_that_sleeps_is_the_students_timeout(sandbox: Sandbox, crowded: list[int]) -> None:
    outcome = run(sandbox, ASLEEP, timeout_s=0.5)
    assert outcome.status == "timeout", outcome
    # asleep it waits for no processor: its time is its own (only its start-up, starved
    # beside the hogs, may have cost it a run)
    assert outcome.wall_ms - outcome.waited_ms >= 0.9 * 500, outcome


def test_a_loop_is_the_students_timeout_when_the_wait_swallows_its_time(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wait is sampled from outside and counts the zygote's too: on a busy machine the
    zygote waits for a processor beside its running child (which costs the child nothing), and
    the wait came to all of the wall time of a loop that had run its limit. Three runs later
    the hostile document's endless loop was a grader_error, not its timeout (the regrade tests
    under load). Here the zygote is made to look as if it had waited all the time, every run;
    the loop's processor time says it ran."""
    zygotes = set(sandbox.zygote_pids())
    real = waiting.run_delay_s

    def starved(pid: int) -> float | None:
        delay = real(pid)
        return None if delay is None or pid not in zygotes else delay + time.monotonic()

    monkeypatch.setattr(waiting, "run_delay_s", starved)
    outcome = run(sandbox, FOREVER, timeout_s=0.1)
    assert outcome.status == "timeout", outcome
    assert outcome.waited_ms >= outcome.wall_ms, outcome  # the wait swallowed the wall time
    assert outcome.cpu_ms >= 0.9 * 100, outcome

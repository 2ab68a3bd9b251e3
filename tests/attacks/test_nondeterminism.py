"""Class: nondeterminism and the result cache. A sandbox outcome is cached by the job's content
and the inputs are drawn from the source, so identical bytes from two students share one run.
A program whose results depend on anything besides its inputs (the clock, entropy, unseeded
global random states, object addresses, how often or in what order it was called) must be
caught by its two runs disagreeing and go to review, and must never be served from the cache
to another student: their identical bytes are graded on their own runs, and the same file
with a newline appended gets the same kind of grade."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graders.results import Status
from tests.attacks.code_grading import Grading, grading

ATTENTION = """
import numpy as np
{setup}

def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    {factor}
    return weights @ V * factor, weights
"""
# Each `factor` is 1 (right) or 2 (wrong), decided by something outside the inputs.
VARYING = {
    "time.time": ("import time", "factor = 1 + time.time_ns() // 1000 % 2"),
    "perf_counter imported under another name": (
        "from time import perf_counter as tick",
        "factor = 1 + int(tick() * 1e6) % 2",
    ),
    "datetime.now": ("import datetime", "factor = 1 + datetime.datetime.now().microsecond % 2"),
    "os.urandom": ("import os", "factor = 1 + os.urandom(1)[0] % 2"),
    "random without a seed": ("import random", "factor = 1 + random.random()"),
    "numpy's global random state": ("", "factor = 1 + np.random.rand()"),
    "a generator seeded from entropy": ("", "factor = 1 + np.random.default_rng().random()"),
    "an object's address in its repr": (
        "",
        "factor = 1 + int(repr(object())[-13:-1], 16) % 9973 * 1e-3",
    ),
    "an object's hash": ("", "factor = 1 + object().__hash__() % 9973 * 1e-3"),
    "id() of a fresh object": ("", "factor = 1 + id(object()) % 9973 * 1e-3"),
    "the first call differs from later ones": (
        "_calls = [0]",
        "_calls[0] += 1\n    factor = 2 if _calls[0] == 1 else 1",
    ),
    "the answer depends on how many calls came before": (
        "_calls = [0]",
        "_calls[0] += 1\n    factor = 1 + _calls[0] % 2",
    ),
}
# Read the world, but may give the same answer twice in a row: never cached, graded on their
# own runs.
MAYBE = {
    "uninitialised memory": ("", "factor = 1 + (np.empty(64).view(np.uint8).sum() % 2)"),
    "the clock to the second": ("", "factor = 1 + int(np.datetime64('now', 's').astype(int)) % 2"),
    "an ndarray built over no data": ("", "factor = 1 + np.ndarray((8,)).view(np.uint8).sum() % 2"),
}


@pytest.fixture(scope="module")
def cached() -> Iterator[Grading]:
    with grading("cache-secret", cached=True) as found:
        yield found


@pytest.mark.parametrize("name", [*VARYING, *MAYBE])
def test_a_varying_program_is_caught_and_never_shared(cached: Grading, name: str) -> None:
    setup, factor = {**VARYING, **MAYBE}[name]
    program = ATTENTION.format(setup=setup, factor=factor)
    first = cached.grade("B3", program)  # one student
    cached.cache.reset_stats()
    second = cached.grade("B3", program)  # another student, the same bytes
    stats = cached.cache.reset_stats()
    assert stats.code_cached == 0 and stats.groups_cached == 0, f"{name}: served from the cache"
    newline = cached.grade("B3", program + "\n")  # the same file and a newline
    for results in (first, second, newline):
        statuses = {r.status for r in results.values()}
        # Caught (review), or every run happened to agree and it stands on its own run.
        assert statuses <= {Status.NEEDS_REVIEW, Status.GRADED, Status.SUBMISSION_ERROR}
    caught = [
        any(r.status is Status.NEEDS_REVIEW for r in results.values())
        for results in (first, second, newline)
    ]
    assert name in MAYBE or any(caught), f"{name}: three gradings and no two runs disagreed"


def test_a_program_of_its_inputs_alone_is_cached_and_graded_the_same_with_a_newline(
    cached: Grading,
) -> None:
    program = ATTENTION.format(setup="_table = {}", factor="factor = 1")
    first = cached.grade("B3", program)
    cached.cache.reset_stats()
    again = cached.grade("B3", program)
    assert cached.cache.reset_stats().groups_cached >= 1
    newline = cached.grade("B3", program + "\n")
    for results in (first, again, newline):
        assert all(r.status is Status.GRADED and r.points == r.max_points for r in results.values())


def test_a_program_deterministic_in_one_process_but_not_across_is_not_cached(
    cached: Grading,
) -> None:
    # Every child of one zygote starts from the same heap: without the harness moving it per
    # run, `repr(object())` gives the same address twice in a row and the cache would keep it.
    program = ATTENTION.format(
        setup="_first = repr(object())",
        factor="factor = 1 + int(_first[-13:-1], 16) % 9973 * 1e-3",
    )
    outcomes = [cached.grade("B3", program + "\n" * n) for n in range(3)]
    assert any(r.status is Status.NEEDS_REVIEW for o in outcomes for r in o.values())

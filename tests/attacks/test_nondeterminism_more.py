"""Nondeterminism and the result cache, sources the first round did not try: the address of the
input arrays' data, the monotonic and process clocks, resource usage, UUIDs and the system's
random source, the allocator's and collector's counters, a generator reseeded from entropy
in place, the generator of temporary file names. As in test_nondeterminism.py: never served from the
cache to another student, and caught by two runs disagreeing unless they may agree twice."""

from __future__ import annotations

import pytest

from graders.results import Status
from tests.attacks.code_grading import Grading
from tests.attacks.test_nondeterminism import ATTENTION
from tests.attacks.test_nondeterminism import cached as cached  # the fixture, re-exported

VARYING = {
    "time.monotonic_ns": ("import time", "factor = 1 + time.monotonic_ns() // 1000 % 2"),
    "uuid4": ("import uuid", "factor = 1 + uuid.uuid4().int % 2"),
    "the system's random source": ("import random",
                                   "factor = 1 + random.SystemRandom().random()"),
    "numpy's global state reseeded from entropy in place": (
        "", "np.random.seed()\n    factor = 1 + np.random.rand()"),
    "a temporary file name's generator": (
        "import tempfile",
        "factor = 1 + sum(map(ord, next(tempfile._RandomNameSequence()))) % 2"),
}
# Read the world, but may give the same answer twice in a row.
MAYBE = {
    "the input array's address": ("", "factor = 1 + (Q.ctypes.data // 4096) % 2"),
    # a child forked from the same zygote doing the same work can read the same microseconds
    # in both runs (one CI run in many: three gradings, no two runs apart)
    "the process's CPU time": ("import time", "factor = 1 + time.process_time_ns() // 1000 % 2"),
    "the allocator's block count": ("import sys", "factor = 1 + sys.getallocatedblocks() % 2"),
    "the collector's counters": ("import gc", "factor = 1 + sum(gc.get_count()) % 2"),
    "resource usage": ("import resource",
                       "factor = 1 + resource.getrusage(resource.RUSAGE_SELF).ru_minflt % 2"),
}


@pytest.mark.parametrize("name", [*VARYING, *MAYBE])
def test_another_varying_program_is_caught_and_never_shared(cached: Grading, name: str) -> None:
    setup, factor = {**VARYING, **MAYBE}[name]
    program = ATTENTION.format(setup=setup, factor=factor)
    first = cached.grade("B3", program)
    cached.cache.reset_stats()
    second = cached.grade("B3", program)
    stats = cached.cache.reset_stats()
    assert stats.code_cached == 0 and stats.groups_cached == 0, f"{name}: served from the cache"
    newline = cached.grade("B3", program + "\n")
    for results in (first, second, newline):
        statuses = {r.status for r in results.values()}
        assert statuses <= {Status.NEEDS_REVIEW, Status.GRADED, Status.SUBMISSION_ERROR}
    caught = [any(r.status is Status.NEEDS_REVIEW for r in results.values())
              for results in (first, second, newline)]
    assert name in MAYBE or any(caught), f"{name}: three gradings and no two runs disagreed"

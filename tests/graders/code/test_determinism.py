"""A program whose results depend on more than its inputs: caught by running it twice, never
shared through the cache with another student who hands in the same bytes."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache import CACHE_KEY, MemoryStore, ResultCache
from graders.code.determinism import varying_reason
from graders.context import GradingResources
from graders.results import Status
from tests.graders.code.conftest import grade_with

ATTENTION = """
import numpy as np
def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V{noise}, weights
"""
# Different on every run: noise from an unseeded generator.
NOISY = ATTENTION.format(noise=" + np.random.default_rng().normal(size=V.shape[-1]) * 0.5")
# Right on some runs, wrong on others: the clock decides (the attack on the shared cache).
CLOCKED = ATTENTION.format(noise=" * (1 + (__import__('time').time_ns() // 1000) % 2)")


@pytest.fixture
def cached(resources: GradingResources) -> Iterator[tuple[GradingResources, ResultCache]]:
    own = GradingResources(options=dict(resources.options))
    cache: ResultCache = own.shared(CACHE_KEY, lambda: ResultCache(MemoryStore()))
    try:
        yield own, cache
    finally:
        own.close()


def test_two_runs_that_disagree_send_every_graded_item_to_review(cached) -> None:
    own, _ = cached
    results = grade_with(own, "B3", NOISY)
    reviewed = [r for r in results.values() if r.status is Status.NEEDS_REVIEW]
    assert reviewed, {k: (r.status, r.feedback[:80]) for k, r in results.items()}
    assert all(r.status is not Status.GRADED for r in results.values())
    for r in reviewed:
        assert "two runs on the same inputs disagreed" in r.feedback
        assert "different results when run twice" in (r.student_feedback or "")
        assert r.confidence <= 0.3


def test_a_program_that_may_vary_is_never_served_from_the_cache(cached) -> None:
    own, cache = cached
    grade_with(own, "B3", CLOCKED)
    cache.reset_stats()
    grade_with(own, "B3", CLOCKED)  # the same bytes, another student
    stats = cache.reset_stats()
    assert stats.code_cached == 0 and stats.code_runs == 0  # run afresh, outside the cache
    plain = ATTENTION.format(noise="")
    grade_with(own, "B3", plain)
    grade_with(own, "B3", plain)
    assert cache.reset_stats().code_cached >= 1  # a program of its inputs alone is shared


@pytest.mark.parametrize("source", [
    "import time\n", "from datetime import datetime\n",
    "import numpy as np\nx = np.random.rand(3)\n",
    "import numpy as np\nx = np.empty((3, 3))\n", "f = open('/proc/uptime')\n",
    "m = __import__('ti' + 'me')\n", "g = getattr(object, 'x')\n", "import os\n",
    "from numpy.random import default_rng\n",
    "import _datetime\n", "from _ctypes import dlopen\n", "import posix\n",
])
def test_what_may_vary_is_named(source: str) -> None:
    assert varying_reason(source) is not None


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["Q @ K.T", "np.sqrt(d)", "np.exp(s - s.max(-1, keepdims=True))",
                        "np.einsum('ij,kj->ik', Q, K)", "w / w.sum(axis=-1, keepdims=True)",
                        "np.triu(np.ones((n, n)), k=1)", "np.where(m, -np.inf, s)"]),
       st.integers(1, 6))
def test_a_program_of_its_inputs_alone_is_not_flagged(expression: str, lines: int) -> None:
    body = "".join(f"    x{i} = {expression}\n" for i in range(lines))
    source = f"import numpy as np\n\ndef attention(Q, K, V):\n{body}    return x0\n"
    assert varying_reason(source) is None

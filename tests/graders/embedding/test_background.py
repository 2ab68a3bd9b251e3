"""Background encoding (`SentenceEmbedder.submit`, graders/embedding/background.py): passes run
most urgent first, and whatever order they run in, every text gets the vectors the same calls
to `embed` would give it, bit for bit."""

from __future__ import annotations

import threading
from functools import partial

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.embedding import SentenceEmbedder, model_directory
from graders.embedding.background import PriorityWorkers

_WORDS = st.sampled_from(["attention", "the", "key", "query", "softmax", "is", "not",
                          "linearly", "separable", "stack", "LIFO", "O(n)", "über", "heads",
                          "in", "parallel", "🙂", "a"])
_TEXTS = st.lists(st.lists(_WORDS, min_size=1, max_size=30).map(" ".join), min_size=1,
                  max_size=12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=12),
       st.lists(st.tuples(st.integers(0, 11), st.integers(-1, 5)), max_size=6))
def test_tasks_run_lowest_priority_first_and_hurried_ones_move_up(
        priorities: list[int], hurries: list[tuple[int, int]]) -> None:
    ran: list[int] = []
    spells: list[str] = []
    gate = threading.Event()
    workers = PriorityWorkers(1, lambda: spells.append("enter"), lambda: spells.append("leave"))

    def hold() -> None:  # holds the one thread while the others are queued
        gate.wait()

    workers.put(-10, hold)
    handles = [workers.put(p, partial(ran.append, i)) for i, p in enumerate(priorities)]
    effective = list(priorities)
    for index, priority in hurries:
        if index < len(handles):
            workers.hurry(handles[index], priority)
            effective[index] = min(effective[index], priority)
    gate.set()
    while workers.busy:
        threading.Event().wait(0.001)
    assert ran == sorted(range(len(priorities)), key=lambda i: (effective[i], i))
    assert spells == ["enter", "leave"]  # one busy spell, the BLAS limit held throughout


def _fresh(workers: int = 2) -> SentenceEmbedder:
    embedder = SentenceEmbedder(model_directory(), workers=workers)
    embedder.min_part_tokens = 16  # a few sentences are split over both threads
    return embedder


def _same(a: SentenceEmbedder, b: SentenceEmbedder, texts: list[str]) -> None:
    assert np.array_equal(a.embed(texts), b.embed(texts))  # bit for bit
    for x, y in zip(a.token_vectors(texts), b.token_vectors(texts), strict=True):
        assert x.words == y.words and np.array_equal(x.vectors, y.vectors)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(_TEXTS, _TEXTS, st.integers(-3, 3))
def test_queued_texts_get_the_vectors_of_embed_whatever_runs_first(
        embedder: SentenceEmbedder, first: list[str], second: list[str], later: int) -> None:
    """`embed(first); embed(second)` against `submit(first); submit(second)` where the second
    call's passes may run before the first's: every vector is the same, bit for bit."""
    plain, queued = _fresh(), _fresh()
    plain.embed(first)
    plain.embed(second)
    assert queued.submit(first, priority=later) == len(set(first))
    assert queued.uncached(first) == []  # queued texts are not encoded again
    queued.submit(second, priority=0)
    _same(plain, queued, first + second)
    assert queued.texts_encoded == plain.texts_encoded == len(set(first + second))


def test_a_failed_pass_is_raised_to_whoever_waits_for_it(
        embedder: SentenceEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = _fresh()

    def fail(*args: object) -> None:
        raise MemoryError("no room for the activations")

    monkeypatch.setattr(broken, "_encode_part", fail)
    broken.submit(["a sentence that cannot be encoded"])
    with pytest.raises(MemoryError):
        broken.embed(["a sentence that cannot be encoded"])
    monkeypatch.undo()
    # Not queued any more: the next call encodes it.
    assert broken.embed(["a sentence that cannot be encoded"]).shape == (1, broken.dimension)

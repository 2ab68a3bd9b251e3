"""The rubric's texts are encoded once per process, and grades do not depend on where their
vectors come from (graders/written/rubric_vectors.py)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import ParsedSubmission
from graders.rubric import LoadedRubric
from graders.written.grader import _config, shared_embedder
from graders.written.rubric_vectors import (
    RubricVectors,
    forget_rubric_vectors,
    rubric_texts,
    rubric_vectors,
)
from tests.graders.written.conftest import grade_text

_TEXTS = st.text(min_size=1, max_size=6)
_ADDS = st.lists(st.lists(_TEXTS, min_size=1, max_size=8), min_size=1, max_size=12)


def _vector(text: str, generation: int) -> np.ndarray:
    """A vector that says which text and which `add` it came from."""
    return np.array([float(hash(text) % 1000), float(generation)], dtype=np.float32)


@settings(max_examples=60, deadline=None)
@given(adds=_ADDS, max_rows=st.integers(1, 20), asked=st.lists(_TEXTS, max_size=6))
def test_a_kept_text_reads_back_its_first_vector(adds: list[list[str]], max_rows: int,
                                                 asked: list[str]) -> None:
    store = RubricVectors(2, max_rows=max_rows)
    first: dict[str, np.ndarray] = {}
    for generation, texts in enumerate(adds):
        if len(store) + len(set(texts) - set(first)) > max_rows:
            first.clear()  # the store starts again when it would overflow
        store.add(texts, np.stack([_vector(t, generation) for t in texts]))
        for text in texts:
            first.setdefault(text, _vector(text, generation))
        first = {t: v for t, v in first.items() if t in store}
        assert len(store) <= max_rows
    for query in (asked, list(first)[:5]):
        rows = store.rows_of(query)
        if all(t in store for t in query):
            assert rows is not None
            assert rows.shape == (len(query), 2)
            for text, row in zip(query, rows, strict=True):
                assert (row == first[text]).all()
        else:
            assert rows is None


@pytest.fixture
def fresh_store() -> Iterator[None]:
    forget_rubric_vectors()
    yield
    forget_rubric_vectors()


_PARTIAL = ("Self-attention on its own does not see the order of the words. Sinusoidal "
            "encodings are a fixed formula, while learned ones train one vector per position.")
_OTHER = ("Attention treats the tokens as a set. The sines and cosines are computed, not "
          "learned; RoPE rotates the query and the key.")


@pytest.mark.usefixtures("fresh_store")
def test_a_second_answer_encodes_only_its_own_texts(
        resources: GradingResources, transformer_basics: LoadedRubric) -> None:
    rubric = transformer_basics.rubric
    question = next(q for q in rubric.questions if q.id == "A4")
    embedder = shared_embedder(GradingContext(
        rubric=rubric, question=question,
        submission=ParsedSubmission(text="", format="text", answers={}), resources=resources))
    if embedder is None:
        pytest.skip("sentence-embedding model not installed")
    given_texts = rubric_texts(_config(i) for i in question.items if i.grader == "written")
    grade_text(rubric, "A4", _PARTIAL, resources)
    kept = rubric_vectors(embedder.model_id, embedder.dimension)
    assert len(kept) > 0
    encoded: list[str] = []
    original = embedder._encode

    def recorded(texts: list[str]) -> np.ndarray:
        encoded.extend(texts)
        return original(texts)

    embedder._encode = recorded  # type: ignore[method-assign]
    try:
        embedder.cache.clear_memory()  # as in a new process reading no disk cache
        grade_text(rubric, "A4", _OTHER, resources)
    finally:
        del embedder._encode
    assert encoded  # the new answer's sentences
    assert not [t for t in encoded if t in given_texts and t in kept]


@pytest.mark.usefixtures("fresh_store")
def test_grades_are_the_same_with_the_rubric_vectors_kept_or_not(
        resources: GradingResources, transformer_basics: LoadedRubric) -> None:
    rubric = transformer_basics.rubric
    grade_text(rubric, "A4", _PARTIAL, resources)  # encodes the rubric's texts once
    kept = grade_text(rubric, "A4", _OTHER, resources)
    forget_rubric_vectors()  # now read from the embedding cache, as before the store
    again = grade_text(rubric, "A4", _OTHER, resources)
    assert kept == again
    assert any(r.feedback for r in kept)

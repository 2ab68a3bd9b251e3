"""Cache values: a bounded store, and reads that turn anything unexpected into a miss."""

from __future__ import annotations

import pickle
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache import MemoryStore, ResultCache
from graders.cache.codecs import (
    Rejected,
    decode_parsed,
    decode_results,
    encode_parsed,
    encode_results,
)
from graders.cache.core import frame, unframe
from graders.cache.sandbox import decode_outcome, encode_outcome
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import Evidence, ItemResult, Status
from graders.rubric import RubricItem
from graders.sandbox import JobOutcome
from graders.sandbox.protocol import CallResult, ModuleResult, StudentError, Value


def _outcome(status: str = "completed") -> JobOutcome:
    value = Value(kind="array", array=np.arange(6.0).reshape(2, 3), shape=(2, 3),
                  dtype="float64")
    return JobOutcome(
        status, ModuleResult(None, ((3, StudentError("ValueError", "bad", (3,), ("f",))),)),
        (CallResult(0, True, value, salvage={"w": np.ones(2, dtype=np.float32)}), None),
        "printed", 7, 1.5, 0, None, (), ())


def _items() -> list[RubricItem]:
    return [RubricItem(id="q.a", points=Decimal(2), grader="numeric"),
            RubricItem(id="q.b", points=Decimal("1.5"), grader="numeric")]


def _results() -> list[ItemResult]:
    return [
        ItemResult(item_id="q.a", question="Q", points=Decimal("1.25"), max_points=2,
                   status=Status.NEEDS_REVIEW, feedback="staff", student_feedback=None,
                   evidence=(Evidence(kind="value", text="64", start=1, end=3, note="n"),),
                   confidence=0.4, grader="numeric", grader_version="1.1"),
        ItemResult(item_id="q.b", question="Q", points=0, max_points=Decimal("1.5"),
                   status=Status.MISSING, feedback="", student_feedback="none found",
                   grader="numeric", grader_version="1.1"),
    ]


def test_memory_store_is_bounded_and_evicts_the_least_recently_used() -> None:
    store = MemoryStore(max_bytes=30)
    store.put("a", b"x" * 10)
    store.put("b", b"y" * 10)
    store.put("c", b"z" * 10)
    assert store.get("a") is not None  # a is now the most recently used
    store.put("d", b"w" * 10)
    assert store.get("b") is None and store.get("a") is not None
    assert store.size <= 30
    store.put("huge", b"h" * 31)
    assert store.get("huge") is None


def test_results_round_trip_exactly() -> None:
    results = _results()
    back = decode_results(encode_results(results), _items(), "Q")
    assert back == results
    assert [r.points.as_tuple() for r in back] == [r.points.as_tuple() for r in results]


@pytest.mark.parametrize("change", [
    lambda p: p.replace(b'"q.b"', b'"q.c"'),  # results of another item
    lambda p: p.replace(b'"1.25"', b'"3.00"'),  # more points than the item has
    lambda p: p.replace(b'"1.25"', b'"1.255"'),  # not hundredths
    lambda p: p.replace(b'"1.25"', b'"-1.00"'),
    lambda p: p.replace(b'"needs_review"', b'"excellent"'),
    lambda p: p.replace(b"0.4", b"7.0"),  # confidence beyond 1
    lambda p: p[:-3],  # torn
])
def test_results_that_do_not_fit_are_rejected(change: object) -> None:
    payload = encode_results(_results())
    altered = change(payload)  # type: ignore[operator]
    assert altered != payload
    with pytest.raises(ValueError):
        decode_results(altered, _items(), "Q")
    with pytest.raises(Rejected):
        decode_results(payload, _items(), "another question")


def test_parsed_submissions_round_trip() -> None:
    parsed = ParsedSubmission(
        text="Q1: 64", format="text",
        answers={"Q1": LocatedAnswer("Q1", "64", 4, 6, 0.9, "label", "Q1", "n", {"q.a": "64"})},
        student_id="s1", missing={"Q2": "no label"}, notes=("a note",))
    assert decode_parsed(encode_parsed(parsed)) == parsed
    misfiled = encode_parsed(parsed).replace(b'"question_id":"Q1"', b'"question_id":"Q2"')
    with pytest.raises(Rejected):
        decode_parsed(misfiled)


def test_sandbox_outcomes_round_trip_with_their_arrays() -> None:
    outcome = _outcome()
    back = decode_outcome(encode_outcome(outcome))
    call = back.calls[0]
    assert call is not None and call.value is not None and call.value.array is not None
    assert np.array_equal(call.value.array, np.arange(6.0).reshape(2, 3))
    assert call.salvage["w"].dtype == np.float32
    assert back.module == outcome.module and back.calls[1] is None


class _Evil:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return (os.getcwd, ())


def test_a_stored_outcome_cannot_name_another_callable() -> None:
    with pytest.raises(Rejected):
        decode_outcome(pickle.dumps(_Evil()))
    with pytest.raises(Rejected):  # object arrays would unpickle arbitrary objects
        decode_outcome(pickle.dumps(np.array([1, "a"], dtype=object)))
    with pytest.raises(Rejected):  # only completed runs are kept
        decode_outcome(encode_outcome(_outcome("timeout")))


class _Broken:
    def get(self, key: str) -> bytes | None:
        raise OSError("disk gone")

    def put(self, key: str, value: bytes) -> None:
        raise OSError("disk gone")

    def flush(self) -> None:
        raise OSError("disk gone")

    def close(self) -> None:
        pass


def test_unreadable_entries_and_failing_stores_are_misses() -> None:
    store = MemoryStore()
    cache = ResultCache(store)
    cache.save("k", encode_results(_results()))
    assert cache.load("k", lambda p: decode_results(p, _items(), "Q")) == _results()
    framed = store.get("k")
    assert framed is not None and unframe(framed) is not None
    store.put("k", framed[:-1] + bytes([framed[-1] ^ 1]))  # one bit flipped
    assert cache.load("k", lambda p: decode_results(p, _items(), "Q")) is None
    store.put("k", frame(b"not json"))  # intact frame, value rejected
    assert cache.load("k", lambda p: decode_results(p, _items(), "Q")) is None
    assert cache.stats.corrupt == 2
    broken = ResultCache(_Broken())
    broken.save("k", b"v")
    broken.flush()
    assert broken.load("k", decode_parsed) is None


points = st.integers(0, 1000).map(lambda n: Decimal(n).scaleb(-2))


@settings(max_examples=100, deadline=None)
@given(st.lists(points, min_size=1, max_size=4), st.integers(0, 3), points,
       st.sampled_from(["Q", "R"]))
def test_a_decoded_entry_read_again_is_checked_against_the_items_it_is_read_for(
        given_points: list[Decimal], which: int, other: Decimal, question: str) -> None:
    """Decoded results are kept for the next read of the same payload (as one object each),
    but only for the same items and question: a read for others is validated afresh."""
    items = [RubricItem(id=f"q.{n}", points=p + 1, grader="numeric")
             for n, p in enumerate(given_points)]
    results = [ItemResult(item_id=i.id, question="Q", points=p, max_points=i.points,
                          status=Status.GRADED, grader="numeric", grader_version="1",
                          evidence=(Evidence(kind="value", text="64"),))
               for i, p in zip(items, given_points, strict=True)]
    payload = encode_results(results)
    first = decode_results(payload, items, "Q")
    again = decode_results(payload, items, "Q")
    assert first == again == results
    assert all(a is b for a, b in zip(first, again, strict=True))
    # One group's equal evidence is one object.
    assert len({id(r.evidence[0]) for r in first}) == 1
    changed = list(items)
    at = which % len(items)
    changed[at] = RubricItem(id=items[at].id, points=other, grader="numeric")
    fits = other == items[at].points and question == "Q"
    if fits:
        assert decode_results(payload, changed, question) == results
    else:
        with pytest.raises(Rejected):
            decode_results(payload, changed, question)

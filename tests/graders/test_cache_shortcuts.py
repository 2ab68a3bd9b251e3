"""The cache's shortcuts give exactly what the general code gives: a group's key and a location
key from their parts made once, stored results built without `model_construct`'s generic
handling, and results moved without `model_copy`'s."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache.codecs import _decode_results, encode_results
from graders.cache.keys import (
    group_key,
    group_key_of,
    group_key_parts,
    location_key_for,
    location_key_head,
    location_key_of,
)
from graders.documents.model import LocatedAnswer
from graders.numeric.memo import _copied, placed
from graders.results import Evidence, ItemResult, Status
from graders.rubric import RubricItem

texts = st.text(max_size=12)
hexes = st.text("0123456789abcdef", min_size=0, max_size=64)
spans = st.none() | st.integers(0, 10_000)
evidence = st.builds(Evidence, kind=st.sampled_from(["answer", "value", "check"]), text=texts,
                     start=spans, end=spans, note=texts)
points = st.integers(0, 400).map(lambda n: Decimal(n).scaleb(-2))


@st.composite
def results(draw: Any, ids: tuple[str, ...] = ("q.a", "q.b", "q.c")) -> list[ItemResult]:
    found = []
    for item_id in ids[:draw(st.integers(1, len(ids)))]:
        most = draw(points)
        found.append(ItemResult(
            item_id=item_id, question="Q", points=min(draw(points), most), max_points=most,
            status=draw(st.sampled_from(list(Status))), feedback=draw(texts),
            student_feedback=draw(st.none() | texts),
            evidence=tuple(draw(st.lists(evidence, max_size=3))),
            confidence=draw(st.floats(0, 1)), grader="numeric", grader_version="1.1"))
    return found


@settings(max_examples=200, deadline=None)
@given(static=hexes, submission=st.text(max_size=80), question=texts, options=hexes,
       earlier=hexes, environment=st.text(max_size=40))
def test_a_group_key_from_its_parts_is_the_group_key(
        static: str, submission: str, question: str, options: str, earlier: str,
        environment: str) -> None:
    head, after = group_key_parts(static, question, options, earlier, environment)
    assert group_key_of(head, submission, after) == group_key(
        static, submission, question, options, earlier, environment)


@settings(max_examples=200, deadline=None)
@given(projection=st.text(max_size=70), document=st.text(max_size=70),
       filename=st.none() | st.text(max_size=30), content_type=st.none() | st.text(max_size=30))
def test_a_location_key_from_its_head_is_the_location_key(
        projection: str, document: str, filename: str | None, content_type: str | None) -> None:
    assert location_key_of(location_key_head(projection), document, filename,
                           content_type) == location_key_for(
        projection, None, filename, content_type, document=document)


def _as_model_construct(results: list[ItemResult]) -> list[ItemResult]:
    return [ItemResult.model_construct(**dict(r.__dict__)) for r in results]


@settings(max_examples=150, deadline=None)
@given(given_results=results())
def test_stored_results_are_built_as_model_construct_builds_them(
        given_results: list[ItemResult]) -> None:
    items = [RubricItem(id=r.item_id, points=r.max_points, grader="numeric")
             for r in given_results]
    decoded = _decode_results(encode_results(given_results), items, "Q")
    expected = _as_model_construct(given_results)
    assert decoded == expected == given_results
    for mine, theirs in zip(decoded, expected, strict=True):
        assert type(mine) is ItemResult
        assert list(mine.__dict__.items()) == list(theirs.__dict__.items())
        assert mine.__pydantic_fields_set__ == theirs.__pydantic_fields_set__
        assert mine.__pydantic_extra__ == theirs.__pydantic_extra__
        assert mine.__pydantic_private__ == theirs.__pydantic_private__
        assert repr(mine) == repr(theirs) and hash(mine) == hash(theirs)


@settings(max_examples=150, deadline=None)
@given(given_results=results(), start=spans, answer_start=spans, length=st.integers(0, 50))
def test_results_are_moved_as_model_copy_moves_them(
        given_results: list[ItemResult], start: int | None, answer_start: int | None,
        length: int) -> None:
    answer = LocatedAnswer(question_id="Q", text="x", start=answer_start,
                           end=None if answer_start is None else answer_start + length)
    moved = placed(given_results, start, answer)
    shift = 0 if start is None or answer_start is None else answer_start - start
    for result, mine in zip(given_results, moved, strict=True):
        copied = [e.model_copy(update={"start": answer.start, "end": answer.end})
                  if e.kind == "answer" else e if e.start is None else e.model_copy(
                      update={"start": e.start + shift,
                              "end": None if e.end is None else e.end + shift})
                  for e in result.evidence]
        expected = result if start == answer_start else result.model_copy(
            update={"evidence": tuple(copied)})
        assert mine == expected
        for a, b in [(mine, expected), *zip(mine.evidence, expected.evidence, strict=True)]:
            assert type(a) is type(b)
            assert list(a.__dict__.items()) == list(b.__dict__.items())
            assert a.__pydantic_fields_set__ == b.__pydantic_fields_set__
            assert a.__pydantic_extra__ == b.__pydantic_extra__
            assert a.__pydantic_private__ == b.__pydantic_private__


def test_a_copy_keeps_the_fields_set_and_adds_the_updated_ones() -> None:
    plain = Evidence(kind="value", text="64")
    mine = _copied(plain, {"start": 3})
    assert mine.model_fields_set == plain.model_copy(update={"start": 3}).model_fields_set
    assert mine.model_fields_set == {"kind", "text", "start"}
    assert plain.start is None and mine.start == 3

"""The cache's shortcuts give exactly what the general code gives: a group's key and a location
key from their parts made once, stored results built without `model_construct`'s generic
handling, results moved without `model_copy`'s, and entries read ahead in one query."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.cache.store import SqliteStore
from graders.cache import MemoryStore, ResultCache
from graders.cache.codecs import _decode_results, encode_results
from graders.cache.core import frame
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


keys = st.sampled_from([f"k{n}" for n in range(6)])


@settings(max_examples=60, deadline=None)
@given(stored=st.dictionaries(keys, st.binary(max_size=20), max_size=6),
       pending=st.dictionaries(keys, st.binary(max_size=20), max_size=3),
       ahead=st.lists(keys, max_size=6), read=st.lists(keys, max_size=8))
def test_entries_read_ahead_are_what_reading_them_one_by_one_gives(
        tmp_path_factory: Any, stored: dict[str, bytes], pending: dict[str, bytes],
        ahead: list[str], read: list[str]) -> None:
    """Prefetched or not, a read gives the same entry, and marks as used the same ones."""
    found: list[list[bytes | None]] = []
    touched: list[set[str]] = []
    for prefetch in (False, True):
        path = Path(tmp_path_factory.mktemp("cache")) / "cache.sqlite"
        store = SqliteStore(path, 1 << 20)
        cache = ResultCache(store)
        for key, value in stored.items():
            cache.save(key, value)
        store.flush()
        for key, value in pending.items():
            cache.save(key, value)
        if prefetch:
            cache.prefetch(ahead)
        found.append([cache.load(key, bytes) for key in read])
        touched.append(set(store._touched))
        store.close()
    assert found[0] == found[1]
    assert found[0] == [pending.get(k, stored.get(k)) for k in read]
    assert touched[0] == touched[1]


def test_a_saved_entry_is_not_shadowed_by_one_read_ahead(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "cache.sqlite", 1 << 20)
    cache = ResultCache(store)
    cache.prefetch(["a", "b"])
    cache.save("a", b"new")
    assert cache.load("a", bytes) == b"new"
    assert cache.load("b", bytes) is None
    # A store that cannot read several at once reads one by one.
    memory = ResultCache(MemoryStore())
    memory.save("a", b"x")
    memory.prefetch(["a", "b"])
    assert memory.load("a", bytes) == b"x"
    assert frame(b"x") == memory.store.get("a")  # type: ignore[union-attr]

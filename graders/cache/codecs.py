"""Cache values as bytes, and back only through validation: anything unexpected raises."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict

from graders.documents.model import ParsedSubmission
from graders.results import Evidence, ItemResult, Status, to_points
from graders.rubric_model import RubricItem

_PARSED: TypeAdapter[ParsedSubmission] = TypeAdapter(ParsedSubmission)
_RESULTS: TypeAdapter[tuple[ItemResult, ...]] = TypeAdapter(tuple[ItemResult, ...])


class _StoredResult(TypedDict):
    """ItemResult's fields, validated natively (ItemResult's own points validator is Python,
    and reading results back is most of what a regrade of unchanged items does)."""

    item_id: str
    question: str
    points: Decimal
    max_points: Decimal
    status: Status
    feedback: str
    student_feedback: str | None
    evidence: tuple[Evidence, ...]
    confidence: Annotated[float, Field(ge=0.0, le=1.0)]
    grader: str
    grader_version: str


_STORED: TypeAdapter[list[_StoredResult]] = TypeAdapter(list[_StoredResult])


class Rejected(ValueError):
    """A stored value that does not fit what its key promises."""


def encode_parsed(parsed: ParsedSubmission) -> bytes:
    return _PARSED.dump_json(parsed)


def decode_parsed(payload: bytes) -> ParsedSubmission:
    parsed = _PARSED.validate_json(payload)
    for question_id, answer in parsed.answers.items():
        if answer.question_id != question_id:
            raise Rejected("an answer filed under another question")
    return parsed


def encode_results(results: Sequence[ItemResult]) -> bytes:
    return _RESULTS.dump_json(tuple(results))


# Decoded group results by what decoding them reads: the payload, the group's items (ids and
# points) and its question. The same entry read again (a program many submissions share, one
# numeric answer) is not validated and built again, and the outcomes of one grading call then
# hold the same objects, which pickle once per call.
_DECODED: OrderedDict[tuple[bytes, str, tuple[tuple[str, Decimal], ...]],
                      tuple[ItemResult, ...]] = OrderedDict()
_DECODED_ENTRIES = 512
_DECODED_BYTES = 1 << 16  # larger payloads are decoded every time
_decoded_lock = threading.Lock()


def decode_results(payload: bytes, items: Sequence[RubricItem], question: str
                   ) -> list[ItemResult]:
    """The group's results, one per item in order, each within its item's points."""
    memo = (payload, question, tuple((i.id, i.points) for i in items))
    with _decoded_lock:
        found = _DECODED.get(memo)
        if found is not None:
            _DECODED.move_to_end(memo)
            return list(found)
    results = _decode_results(payload, items, question)
    if len(payload) <= _DECODED_BYTES:
        with _decoded_lock:
            _DECODED[memo] = tuple(results)
            while len(_DECODED) > _DECODED_ENTRIES:
                _DECODED.popitem(last=False)
    return results


def _decode_results(payload: bytes, items: Sequence[RubricItem], question: str
                    ) -> list[ItemResult]:
    stored = _STORED.validate_json(payload)
    if [r["item_id"] for r in stored] != [i.id for i in items]:
        raise Rejected("results for other items")
    results: list[ItemResult] = []
    # The items of one group often quote the same evidence (the code that ran, its inputs):
    # one object each, as the grader made them, so an outcome pickles them once.
    shared: dict[Evidence, Evidence] = {}
    for fields, item in zip(stored, items, strict=True):
        points, max_points = fields["points"], fields["max_points"]
        # Stored points are hundredths exactly as `to_points` makes them, within the item's.
        if (fields["question"] != question or max_points != to_points(item.points)
                or not 0 <= points <= max_points or points.as_tuple().exponent != -2
                or max_points.as_tuple().exponent != -2):
            raise Rejected(f"a result that does not fit item {item.id}")
        fields["evidence"] = tuple(shared.setdefault(e, e) for e in fields["evidence"])
        results.append(_constructed(fields))
    return results


_FIELDS = tuple(ItemResult.model_fields)
_FIELD_SET = frozenset(_FIELDS)
_new_result = ItemResult.__new__
_set = object.__setattr__


def _constructed(fields: _StoredResult) -> ItemResult:
    """`ItemResult.model_construct(**fields)` for validated fields, every one present (reading
    results back is most of what a regrade of unchanged items does: without its generic
    handling of aliases and defaults)."""
    values: dict[str, Any] = fields  # type: ignore[assignment]
    if values.keys() != _FIELD_SET:
        return ItemResult.model_construct(**values)
    result = _new_result(ItemResult)
    _set(result, "__dict__", {name: values[name] for name in _FIELDS})
    _set(result, "__pydantic_fields_set__", set(_FIELDS))
    _set(result, "__pydantic_extra__", None)
    _set(result, "__pydantic_private__", None)
    return result

"""Cache values as bytes, and back only through validation: anything unexpected raises."""

from __future__ import annotations

import io
import pickle
import threading
from collections import OrderedDict
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field, TypeAdapter
from typing_extensions import TypedDict

from graders.documents.model import ParsedSubmission
from graders.results import Evidence, ItemResult, Status, to_points
from graders.rubric import RubricItem

if TYPE_CHECKING:
    from graders.sandbox import JobOutcome

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


# Sandbox observations hold NumPy arrays: pickled, and unpickled only into these classes (and
# plain numeric arrays), so a tampered entry cannot name any other callable.
_ALLOWED = {
    ("graders.sandbox.pool", "JobOutcome"),
    ("graders.sandbox.protocol", "ModuleResult"),
    ("graders.sandbox.protocol", "CallResult"),
    ("graders.sandbox.protocol", "StudentError"),
    ("graders.sandbox.protocol", "Value"),
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.numeric", "_frombuffer"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.numeric", "_frombuffer"),
    ("numpy.core.multiarray", "_reconstruct"),
}


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED and not (
            module == "numpy.dtypes" and name.endswith("DType") and name != "ObjectDType"
        ):
            raise Rejected(f"{module}.{name} is not a sandbox observation type")
        return super().find_class(module, name)


def encode_outcome(outcome: JobOutcome) -> bytes:
    return pickle.dumps(outcome, protocol=5)


def decode_outcome(payload: bytes) -> JobOutcome:
    from graders.sandbox.pool import JobOutcome as Outcome  # the sandbox only where one is read

    value = _Restricted(io.BytesIO(payload)).load()
    if not isinstance(value, Outcome) or value.status != "completed":
        raise Rejected("not a completed sandbox job")
    for array in _arrays(value):
        if array.dtype.hasobject:
            raise Rejected("an object array")
    return value


def _arrays(outcome: JobOutcome) -> list[Any]:
    found: list[Any] = []

    def walk(value: Any) -> None:
        if value is None:
            return
        if getattr(value, "array", None) is not None:
            found.append(value.array)
        for item in getattr(value, "items", ()):
            walk(item)

    for call in outcome.calls:
        if call is not None:
            walk(call.value)
            found.extend(call.salvage.values())
    return found

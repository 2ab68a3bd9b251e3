"""Cache values as bytes, and back only through validation: anything unexpected raises."""

from __future__ import annotations

import io
import pickle
from collections.abc import Sequence
from typing import Any

from pydantic import TypeAdapter

from graders.documents.model import ParsedSubmission
from graders.results import ItemResult
from graders.rubric import RubricItem
from graders.sandbox import JobOutcome

_PARSED: TypeAdapter[ParsedSubmission] = TypeAdapter(ParsedSubmission)
_RESULTS: TypeAdapter[tuple[ItemResult, ...]] = TypeAdapter(tuple[ItemResult, ...])


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


def decode_results(payload: bytes, items: Sequence[RubricItem], question: str
                   ) -> list[ItemResult]:
    """The group's results, one per item in order, each within its item's points."""
    results = _RESULTS.validate_json(payload)
    if [r.item_id for r in results] != [i.id for i in items]:
        raise Rejected("results for other items")
    for result, item in zip(results, items, strict=True):
        if (result.question != question or result.max_points != item.points
                or not 0 <= result.points <= item.points):
            raise Rejected(f"a result that does not fit item {item.id}")
    return list(results)


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
    value = _Restricted(io.BytesIO(payload)).load()
    if not isinstance(value, JobOutcome) or value.status != "completed":
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

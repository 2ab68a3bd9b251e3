"""What the `numeric` kind knows besides grading: the expected value is its solution and must not
appear in a public title; answers are grouped by the value read, to the item's tolerance; a
result depends on the question's answer alone and is re-scored in place by a points-only regrade;
a later item may carry its value forward."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from graders.answer_keys import Answer, parse_numbers, reading, rounded
from graders.disclosure import spelled_number
from graders.kind import BreakdownLine, BreakdownPart, Kind
from graders.numeric.config import VERSION, NumericConfig

SHOWN = 30  # known mistakes listed in a breakdown


def _numbers(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, int | float) and not isinstance(v, bool)]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [value]
    return []


def _tolerance(config: Mapping[str, Any]) -> Decimal | None:
    raw = config.get("abs_tolerance")
    if isinstance(raw, int | float | str) and not isinstance(raw, bool):
        try:
            tolerance = Decimal(str(raw))
        except InvalidOperation:
            return None
        return tolerance if tolerance.is_finite() and tolerance > 0 else None
    return None


def _exact(config: Mapping[str, Any]) -> bool:
    return bool(config.get("mode", "exact") == "exact")


def _breakdown(config: NumericConfig) -> tuple[BreakdownPart, ...]:
    """The known mistakes and their points, carried-forward and rounding credit."""
    lines = [BreakdownLine(f"for {m.value}: {m.feedback}", m.points)
             for m in config.known_mistakes[:SHOWN]]
    if config.carry_forward is not None:
        lines.append(BreakdownLine("for a value computed correctly from the student's own "
                                   f"{config.carry_forward.from_item}",
                                   config.carry_forward.points))
    if config.rounding is not None:
        lines.append(BreakdownLine(f"{config.rounding.credit * 100}% of the points for the value "
                                   "rounded more coarsely than asked"))
    if not lines:
        return ()
    return (BreakdownPart("for the expected value; partial credit", "levels", tuple(lines),
                          full=True),)


class NumericKind(Kind):
    name: ClassVar[str] = "numeric"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[BaseModel]] = NumericConfig
    grader_module: ClassVar[str] = "graders.numeric.grader"
    reads_answer_only: ClassVar[bool] = True
    rescores_in_place: ClassVar[bool] = True
    carries_value: ClassVar[bool] = True
    group_method: ClassVar[str] = "value"

    def solution_text(self, config: Mapping[str, Any]) -> str:
        if not _exact(config):
            return ""
        expected = config.get("expected")
        if isinstance(expected, list):
            return "[" + ", ".join(spelled_number(v) for v in expected) + "]"
        return "" if expected is None else spelled_number(expected)

    def breakdown(self, config: Mapping[str, Any]) -> tuple[BreakdownPart, ...]:
        try:
            return _breakdown(NumericConfig.model_validate(config))
        except ValidationError:  # a stored rubric the grader refused: nothing to break down
            return ()

    def answer_values(self, config: Mapping[str, Any]) -> list[Any]:
        found: list[Any] = _numbers(config.get("expected")) if _exact(config) else []
        for mistake in config.get("known_mistakes", ()):
            if isinstance(mistake, dict):
                found.extend(_numbers(mistake.get("value")))
        return found

    def group_reading(self, config: Mapping[str, Any], answer: Answer) -> str | None:
        values = answer.evidence_of("value")
        if not values:
            return None
        # The grader's own reading ("read as 589824"): an unevaluated "768x768" is its value.
        text = reading(values[-1].get("note", ""), values[-1].get("text", ""))
        numbers = parse_numbers(text, vector=config.get("kind") == "vector")
        if not numbers:
            return None
        tolerance = _tolerance(config)
        integer = config.get("kind") == "integer"
        parts = [rounded(n, tolerance, integer) for n in numbers]
        return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"


KIND = NumericKind()

"""What of a rubric item gives its answer away: its solution as a student may read it once
released, and the values a public title must not state."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the rubric validates public titles with this module
    from graders.rubric import RubricItem

_SYMBOLIC_KINDS = frozenset({"symbolic"})


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _numbers(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [v for v in value if isinstance(v, int | float) and not isinstance(v, bool)]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return [value]
    return []


def solution_text(item: RubricItem) -> str:
    """The model answer shown once solutions are released: the author's own `solution`, else
    what the grader's config expects (reference statements, expected values or expressions)."""
    if item.solution:
        return item.solution
    config = item.config
    if item.grader == "written":
        return " ".join(str(r) for r in config.get("reference", ()))
    if item.grader == "numeric" and config.get("mode", "exact") == "exact":
        expected = config.get("expected")
        if isinstance(expected, list):
            return "[" + ", ".join(_number(v) for v in expected) + "]"
        return "" if expected is None else _number(expected)
    if item.grader in _SYMBOLIC_KINDS and config.get("expected") is not None:
        target, expected = config.get("target"), config.get("expected")
        if isinstance(target, list | tuple) and isinstance(expected, list | tuple):
            return ", ".join(f"{t} = {e}" for t, e in zip(target, expected, strict=False))
        return f"{target} = {expected}"
    return ""


def answer_values(item: RubricItem) -> list[str]:
    """Numbers that are the item's answer or a known wrong answer, in the spellings a title
    would use (589824, 589,824)."""
    config = item.config
    found: list[Any] = []
    if item.grader == "numeric" and config.get("mode", "exact") == "exact":
        found.extend(_numbers(config.get("expected")))
    for mistake in config.get("known_mistakes", ()) if item.grader == "numeric" else ():
        if isinstance(mistake, dict):
            found.extend(_numbers(mistake.get("value")))
    spellings: list[str] = []
    for value in found:
        for spelled in (str(value), _number(value)):
            if spelled not in spellings:
                spellings.append(spelled)
    return spellings


def states_value(text: str, values: Iterable[str]) -> str | None:
    """The first value that `text` states as a whole number (not as part of a longer one)."""
    capped = text[:2000]
    for value in values:
        if re.search(rf"(?<![\w.,]){re.escape(value)}(?![\w]|[.,]\d)", capped):
            return value
    return None

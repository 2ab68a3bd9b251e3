"""What of a rubric item gives its answer away: its solution as a student may read it once
released, and the values a public title must not state. Each kind's strategy says what its
config discloses (`Kind.solution_text`, `Kind.answer_values`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from graders.registry import get_kind
from graders.rubric_model import RubricItem


def spelled_number(value: Any) -> str:
    """A value as a title or a solution would write it (589,824; 0.125)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def solution_text(item: RubricItem) -> str:
    """The model answer shown once solutions are released: the author's own `solution`, else
    what the grader's config expects (reference statements, expected values or expressions)."""
    if item.solution:
        return item.solution
    strategy = get_kind(item.grader)
    return "" if strategy is None else strategy.solution_text(item.config)


def answer_values(item: RubricItem) -> list[str]:
    """Values that are the item's answer or a known wrong answer, in the spellings a title
    would use (589824, 589,824)."""
    strategy = get_kind(item.grader)
    found = [] if strategy is None else strategy.answer_values(item.config)
    spellings: list[str] = []
    for value in found:
        for spelled in (str(value), spelled_number(value)):
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

"""What the `choice` kind knows besides grading: its solution is the correct choice(s); answers
are grouped by the selections read; a result depends on the question's answer alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel

from graders.answer_keys import Answer
from graders.choice.config import VERSION, ChoiceConfig
from graders.kind import Kind


def _listed(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value] if isinstance(value, list | tuple) else []


class ChoiceKind(Kind):
    name: ClassVar[str] = "choice"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[BaseModel]] = ChoiceConfig
    grader_module: ClassVar[str] = "graders.choice.grader"
    reads_answer_only: ClassVar[bool] = True
    group_method: ClassVar[str] = "choice"

    def solution_text(self, config: Mapping[str, Any]) -> str:
        separator = ", " if config.get("select") == "several" else " / "
        return separator.join(_listed(config.get("correct")))

    def answer_values(self, config: Mapping[str, Any]) -> list[Any]:
        # A one-letter label ("B") is in too many titles ("Part B") to mean the answer.
        return [c for c in _listed(config.get("correct")) if len(c.strip()) > 1]

    def group_reading(self, config: Mapping[str, Any], answer: Answer) -> str | None:
        read = answer.evidence_of("choice")
        return str(read[-1].get("text", ""))[:2000] if read else None


KIND = ChoiceKind()

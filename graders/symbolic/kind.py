"""What the `symbolic` kind knows besides grading: its solution is `target = expected`; answers are
grouped by the canonical form the grader reports; its results are not cached (its worker pool
gives up on slow expressions by wall time, so the same answer may come back otherwise)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import BaseModel

from graders.answer_keys import MAX_VALUE_TEXT, Answer, reading
from graders.kind import Kind
from graders.symbolic.config import VERSION, SymbolicConfig


class SymbolicKind(Kind):
    name: ClassVar[str] = "symbolic"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[BaseModel]] = SymbolicConfig
    grader_module: ClassVar[str] = "graders.symbolic.grader"
    cacheable: ClassVar[bool] = False
    group_method: ClassVar[str] = "expression"

    def solution_text(self, config: Mapping[str, Any]) -> str:
        target, expected = config.get("target"), config.get("expected")
        if expected is None:
            return ""
        if isinstance(target, list | tuple) and isinstance(expected, list | tuple):
            return ", ".join(f"{t} = {e}" for t, e in zip(target, expected, strict=False))
        return f"{target} = {expected}"

    def group_reading(self, config: Mapping[str, Any], answer: Answer) -> str | None:
        readings = answer.evidence_of("expression")
        if not readings:
            return None
        shown = [reading(r.get("note", ""), r.get("text", "")) for r in readings]
        return "; ".join(re.sub(r"\s+", "", s[:MAX_VALUE_TEXT]) for s in shown)


KIND = SymbolicKind()

"""What the `code` kind knows besides grading: answers are grouped by the verdicts of the checks
that ran; a result depends on the question's programs (`graders.code.basis`) and its batteries'
files (`graders.code.environment`); a battery that does not build is a rubric problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from graders.answer_keys import MAX_VALUE_TEXT, Answer
from graders.code.basis import code_basis
from graders.code.config import VERSION, CodeCheckConfig
from graders.code.environment import battery_environment, battery_files
from graders.context import GradingContext, GradingResources
from graders.kind import Kind
from graders.rubric_model import Finding, Rubric, RubricItem


class CodeKind(Kind):
    name: ClassVar[str] = "code"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[BaseModel]] = CodeCheckConfig
    grader_module: ClassVar[str] = "graders.code.grader"
    group_method: ClassVar[str] = "behaviour"
    runs_programs: ClassVar[bool] = True
    # The batteries draw their cases with numpy.random; graders.sandbox.warm lists the
    # sandbox's root and compiles its filter, which every zygote start needs.
    preload: ClassVar[tuple[str, ...]] = ("numpy.random", "graders.sandbox.warm")

    def warm(self, resources: GradingResources) -> None:
        import_module(self.grader_module).start_sandbox(resources)

    def group_reading(self, config: Mapping[str, Any], answer: Answer) -> str | None:
        checks = [str(c.get("text", ""))[:MAX_VALUE_TEXT] for c in answer.evidence_of("check")]
        return " | ".join(checks) if checks else None

    def key_basis(self, context: GradingContext) -> str | None:
        return code_basis(context)

    def environment(self, items: Sequence[RubricItem], context: GradingContext,
                    load: bool = True) -> str:
        return battery_environment(items)

    def rubric_files(self, items: Sequence[RubricItem]) -> list[tuple[str, Path]]:
        return battery_files(items)

    def rubric_findings(self, rubric: Rubric) -> list[Finding]:
        # Imported here, not with the kind: building a battery needs NumPy and the trusted
        # modules, which only `rubric validate` asks for.
        check = import_module("graders.code.battery_check")
        findings: list[Finding] = check.battery_findings(rubric)
        return findings

    def rubric_notes(self, rubric: Rubric) -> list[Finding]:
        check = import_module("graders.code.battery_check")
        notes: list[Finding] = check.battery_notes(rubric)
        return notes


KIND = CodeKind()

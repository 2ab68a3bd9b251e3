"""What the `written` kind knows besides grading: its solution is its reference statements;
answers are grouped by text, near-identical ones merged by the embedding model when the
grader's verdicts on them agree; a result depends on the model the grader loaded; instructor
overrides become exemplars and calibrated thresholds."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from graders.answer_keys import MAX_TEXT, Answer
from graders.context import GradingContext
from graders.kind import BreakdownLine, BreakdownPart, Kind
from graders.rubric_model import RubricItem
from graders.written.config import VERSION, AnyOf, Condition, WrittenConfig
from graders.written.identity import model_identity
from graders.written.settings import WrittenSettings

# What a written grader's verdict on an answer is made of: the elements it found stated (its
# evidence notes "states: ...") and whether it flagged the answer as possibly stating the
# opposite of the reference. Two answers whose verdicts differ are never one group, however
# alike their words ("ignores word order" / "does not ignore word order").
_STATES = re.compile(r"^states: (.{1,400})")
OPPOSITE = "may state the opposite"
SHOWN = 30  # elements, levels or contradictions listed in a breakdown


def _condition(condition: Condition, labels: Mapping[str, str]) -> str:
    if isinstance(condition, AnyOf):
        return f"any {condition.any} of ({', '.join(labels.get(i, i) for i in condition.of)})"
    return labels.get(condition, condition)


def _conditions(conditions: Sequence[Condition], labels: Mapping[str, str]) -> str:
    return " and ".join(_condition(c, labels) for c in conditions[:SHOWN])


def _breakdown(config: WrittenConfig) -> tuple[BreakdownPart, ...]:
    """The elements and what full credit requires of them, the partial levels, the caps."""
    labels = {el.id: el.label or el.statement or el.id for el in config.elements}
    parts: list[BreakdownPart] = []
    if config.elements:
        parts.append(BreakdownPart(
            f"for: {_conditions(config.required, labels)}", "elements",
            tuple(BreakdownLine(labels[el.id], id=el.id) for el in config.elements[:SHOWN]),
            full=True))
    if config.partial:
        parts.append(BreakdownPart("Partial levels", "levels", tuple(
            BreakdownLine(f"when {_conditions(level.when, labels)}", level.points,
                          note=level.feedback or "")
            for level in config.partial[:SHOWN])))
    if config.contradictions:
        parts.append(BreakdownPart("Known wrong statements", "caps", tuple(
            BreakdownLine(f"when it says: {c.feedback}", c.points, before="at most")
            for c in config.contradictions[:SHOWN])))
    return tuple(parts)


class WrittenKind(Kind):
    name: ClassVar[str] = "written"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[BaseModel]] = WrittenConfig
    grader_module: ClassVar[str] = "graders.written.grader"
    learns_from_overrides: ClassVar[bool] = True

    def solution_text(self, config: Mapping[str, Any]) -> str:
        return " ".join(str(r) for r in config.get("reference", ()))

    def breakdown(self, config: Mapping[str, Any]) -> tuple[BreakdownPart, ...]:
        try:
            return _breakdown(WrittenConfig.model_validate(config))
        except ValidationError:  # a stored rubric the grader refused: nothing to break down
            return ()

    def verdict(self, answer: Answer) -> str:
        stated = sorted({m.group(1).strip() for e in answer.evidence_of("sentence")
                         if (m := _STATES.match(str(e.get("note", ""))[:500]))})
        flags = ["opposite"] if OPPOSITE in answer.feedback[:MAX_TEXT] else []
        return " + ".join(stated) + (" | " + ", ".join(flags) if flags else "")

    def flagged(self, answer: Answer) -> str:
        if OPPOSITE in answer.feedback[:MAX_TEXT]:
            return "the machine flagged this answer as possibly stating the opposite"
        return ""

    def environment(self, items: Sequence[RubricItem], context: GradingContext,
                    load: bool = True) -> str:
        """The model's identity (`model_identity`; "none" without one). `load=False` (a
        regrade's keys in the CLI) names the model without loading it: a model that is
        installed but fails to load is then named where the grading processes say "none", a
        mismatch that only sends those submissions to the grading processes."""
        settings = context.resources.view(WrittenSettings.from_options)
        if settings.similarity == "off":
            return "none"
        identity = model_identity(settings.max_tokens)
        if load and identity != "none":
            # The grader (and the model) only where it runs: a regrade's keys do not import it.
            grader = import_module("graders.written.grader")
            if grader.shared_embedder(context) is None:
                return "none"
        return identity


KIND = WrittenKind()

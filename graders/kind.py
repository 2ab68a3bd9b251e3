"""What a grader kind is: the grader that scores its items and the strategy that knows the rest.

Everything the rest of the system asks about a kind (the solution text it discloses, how its
points are earned as staff read it beside an answer, the values a public title must not state,
how its answers are grouped, what its cached results depend on, whether a points-only regrade
can re-score it in place, whether it learns from instructor overrides) is answered by the
kind's `Kind`, which lives in the kind's own package (`graders/<kind>/kind.py`) and is found
through `graders.registry`. No code outside a kind's package asks which kind an item is.

A `Kind` module stays light: it imports the kind's config module, never its grader (NumPy, the
sandbox, the embedding model): a points-only regrade asks kinds about their items without
running them. The grader's module is named (`grader_module`) and imported on first grading.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from graders.answer_keys import Answer
from graders.cache.keys import answer_digest
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer
from graders.results import ItemResult
from graders.rubric_model import Finding, Rubric, RubricItem


class Grader(ABC):
    """One grader kind's scoring. Stateless: per-process resources come through the context."""

    kind: ClassVar[str]
    version: ClassVar[str]
    config_model: ClassVar[type[BaseModel]]

    def grade_items(
        self,
        items: Sequence[RubricItem],
        answer: LocatedAnswer,
        context: GradingContext,
    ) -> list[ItemResult]:
        """Grade all of one question's items of this kind (a code battery runs once for all)."""
        return [self.grade(item, answer, context) for item in items]

    @abstractmethod
    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        """Grade one item. A wrong answer is data; raise only for a bug of ours."""


@dataclass(frozen=True)
class BreakdownLine:
    """One line of an item's points breakdown, as plain text (the page escapes it): `before`,
    then the `points` it names (None: none), then `text`; an element's `id` shown as code
    first; a `note` shown muted last."""

    text: str
    points: Decimal | None = None
    before: str = ""
    id: str = ""
    note: str = ""


@dataclass(frozen=True)
class BreakdownPart:
    """One part of an item's points breakdown: a heading (`full`: it follows the item's full
    points, "Full 3 points" + " for the expected value"), then its lines: the elements, the
    levels of partial credit or the caps."""

    heading: str
    role: str  # "elements", "levels" or "caps"
    lines: tuple[BreakdownLine, ...]
    full: bool = False


class Kind:
    """A grader kind's strategy. The defaults describe a kind that discloses nothing, groups
    answers by their normalised text and whose results depend on the answer and the rubric
    only; a kind overrides what it knows better."""

    name: ClassVar[str]
    # The grader's version (it names the grader's code in every cache key) and its items'
    # config model, both from the kind's config module.
    version: ClassVar[str]
    config_model: ClassVar[type[BaseModel]]
    # The module whose `GRADER` grades the kind's items; imported on first use.
    grader_module: ClassVar[str]
    # Results are a function of the cache key (a kind whose grader gives up by wall time is not).
    cacheable: ClassVar[bool] = True
    # The grader reads nothing of the submission but its question's located answer: the
    # group's cache key names that answer, not the whole document.
    reads_answer_only: ClassVar[bool] = False
    # A points-only regrade may re-score a stored result in place (no grading run).
    rescores_in_place: ClassVar[bool] = False
    # Instructor overrides become exemplars and calibrated thresholds (active grading, the
    # calibration service), and near-identical answers are grouped by an embedding model.
    learns_from_overrides: ClassVar[bool] = False
    # How the kind's answers are grouped: the name of the reading `group_reading` returns.
    group_method: ClassVar[str] = "text"
    # A later item may carry the value of this kind's item forward (`carry_forward`).
    carries_value: ClassVar[bool] = False
    # The grader runs the student's program. A kind that does not, on a question answered with
    # code, reads the program's text and cannot tell whether it runs: the engine sends its
    # full or partial credit there to review (`graders.engine.unrun_review`).
    runs_programs: ClassVar[bool] = False
    # Imported with the grader's module by a fork server before it forks grading processes
    # (once for all of them, not once each on their first document): what the grader imports
    # or computes on first use.
    preload: ClassVar[tuple[str, ...]] = ()

    def preload_modules(self) -> tuple[str, ...]:
        """What a process that grades this kind imports before its first document."""
        return (self.grader_module, *self.preload)

    def warm(self, resources: GradingResources) -> None:
        """Start what grading this kind keeps for the process's life (the code kind's sandbox)
        before the process's first document, while its caller is still storing documents. A
        failure is left for the first document to meet."""
        return None

    def grader(self) -> Grader:
        found = getattr(import_module(self.grader_module), "GRADER", None)
        if not isinstance(found, Grader) or found.kind != self.name:
            raise TypeError(f"{self.grader_module}.GRADER is not the {self.name!r} grader")
        return found

    def solution_text(self, config: Mapping[str, Any]) -> str:
        """The model answer derived from an item's config (its author's `solution` comes
        first, `graders.disclosure`); "" when the config says nothing a student may read."""
        return ""

    def breakdown(self, config: Mapping[str, Any]) -> tuple[BreakdownPart, ...]:
        """How an item's points are earned, for staff beside an answer (its elements, levels of
        partial credit, caps); () when the config says nothing beyond full points, or is one
        the grader refuses."""
        return ()

    def answer_values(self, config: Mapping[str, Any]) -> list[Any]:
        """The values (numbers, strings) that are an item's answer or a known wrong answer: what
        a public title must not state."""
        return []

    def group_reading(self, config: Mapping[str, Any], answer: Answer) -> str | None:
        """What the grader recorded of `answer` that makes two answers alike (equal readings
        are one group), or None to group it by its normalised text."""
        return None

    def verdict(self, answer: Answer) -> str:
        """The machine's verdict on `answer` as a comparable string ("" for none): answers whose
        verdicts differ are never merged as similar, and a group member whose verdict differs
        from its representative's is shown as disputed."""
        return ""

    def flagged(self, answer: Answer) -> str:
        """Why the machine doubts `answer` on its own ("" when it does not): such a member of
        a group is shown as disputed."""
        return ""

    def rubric_findings(self, rubric: Rubric) -> list[Finding]:
        """What building the kind's resources finds wrong with a valid rubric (a code battery
        that does not build): `gradeformer rubric validate` reports it."""
        return []

    def rubric_notes(self, rubric: Rubric) -> list[Finding]:
        """What a valid rubric may want a second look at, not a problem (a code check that
        looks at one drawn case): `gradeformer rubric validate` prints it as a note."""
        return []

    def key_basis(self, context: GradingContext) -> str | None:
        """What of the located submission the kind's results depend on, as a digest; None: the
        whole located submission."""
        if self.reads_answer_only:
            answer = context.submission.answers.get(context.question.id)
            if answer is not None:
                return answer_digest(answer)
        return None

    def environment(self, items: Sequence[RubricItem], context: GradingContext,
                    load: bool = True) -> str:
        """What the kind's results depend on besides the rubric, the answer and the options (a
        code battery's files, the written grader's model). `load=False`: name it without
        loading it (a regrade's keys in the CLI)."""
        return ""

    def rubric_files(self, items: Sequence[RubricItem]) -> list[tuple[str, Path]]:
        """The files beside the rubric that grading `items` reads (a code battery and the
        Python in its folder): each as a path relative to the rubric's folder, as the rubric
        names it, and where it is now. A loaded rubric version keeps them
        (`graders.rubric_files`)."""
        return []

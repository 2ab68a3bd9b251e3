"""A rubric as data: assignment -> questions -> items, with no knowledge of grader kinds (the
loader, `graders.rubric`, checks each item's config against its kind)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from graders.label_phrases import LabelPatternError, expand

AnswerKind = Literal["prose", "numeric", "code", "derivation", "mixed"]
# When a student sees an item's points and feedback (Gradescope's vocabulary): at once, never,
# once the due date has passed, or once an instructor publishes the grades.
Visibility = Literal["visible", "hidden", "after_due_date", "after_published"]
# When a student sees the rubric's solutions (reference answers, expected values, private titles).
SolutionRelease = Literal["never", "after_due_date", "after_published"]


class RubricError(Exception):
    """A rubric file that cannot be used; `problems` holds one line per problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        super().__init__(f"{source}: " + "; ".join(problems))

    def __reduce__(self) -> tuple[type[RubricError], tuple[str, list[str]]]:
        # Raised in a grading process, it crosses back by pickle: with its own arguments (the
        # default rebuilds it from the message alone, which breaks the process pool).
        return (RubricError, (self.source, self.problems))


Loc = tuple[int | str, ...]


@dataclass(frozen=True)
class Finding:
    """One problem of a rubric: where it is (a path into the YAML document) and what it is."""

    loc: Loc
    message: str


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RubricItem(_Strict):
    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.\-]+$")
    points: Decimal = Field(ge=0)  # 0: reported, not scored (e.g. a plausibility check)
    grader: str
    title: str = ""
    config: dict[str, Any] = Field(default_factory=dict)
    # None: the rubric's `release.visibility`.
    visibility: Visibility | None = None
    # Titles often state the answer ("d_head = 64"): a student sees one only when it is marked
    # public, or once solutions are released.
    title_public: bool = False
    # The model answer a student is shown when solutions are released (default: derived from
    # the grader's config: reference statements, expected values).
    solution: str = ""
    # The folder of the rubric file the item was read from (None: not read from a file, or
    # bundled): what a code item's battery path is relative to. Not part of the content.
    _rubric_dir: Path | None = PrivateAttr(default=None)

    @property
    def rubric_dir(self) -> Path | None:
        return self._rubric_dir

    @field_validator("points", mode="before")
    @classmethod
    def _exact_points(cls, value: object) -> object:
        if isinstance(value, float):
            return Decimal(str(value))
        return value

    def placed_in(self, rubric_dir: Path | None) -> None:
        """Record the folder of the rubric file the item was read from (set once, at load)."""
        self._rubric_dir = rubric_dir


class Question(_Strict):
    id: str = Field(min_length=1)
    title: str = ""
    prompt: str = ""
    part: str = ""
    # Labels a student may write for this question ("Q1", "1.", "1a", ...): cues for location.
    labels: tuple[str, ...] = ()
    answer_kind: AnswerKind = "prose"
    # Key terms and expected values that identify this question's answer by its content.
    cues: tuple[str, ...] = ()
    # The handout editions that ask this question (empty: all of the rubric's `handouts`). A
    # student of another edition who has no answer to it is not marked down: its items count
    # for neither points nor maximum.
    handouts: tuple[str, ...] = ()
    items: tuple[RubricItem, ...] = Field(min_length=1)

    @field_validator("labels")
    @classmethod
    def _readable_labels(cls, labels: tuple[str, ...]) -> tuple[str, ...]:
        for label in labels:
            if not label.strip():
                raise ValueError("a label is empty")
            try:
                expand(label)
            except LabelPatternError as exc:
                raise ValueError(str(exc)) from None
        return labels


class Release(_Strict):
    """What students see of their results, and when."""

    visibility: Visibility = "after_published"
    solutions: SolutionRelease = "never"


class Rubric(_Strict):
    slug: str = Field(pattern=r"^[a-z0-9][a-z0-9\-]*$")
    title: str
    version: str = "1"
    description: str = ""
    # Written/symbolic results with lower confidence than this go to the review queue. When the
    # file does not set it, a written item graded by a calibrated model uses that model's own
    # threshold instead (`sets_review_threshold`).
    review_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    # The handout editions (years, versions) this rubric grades; see Question.handouts.
    handouts: tuple[str, ...] = ()
    questions: tuple[Question, ...] = Field(min_length=1)
    release: Release = Release()

    @model_validator(mode="after")
    def _unique_ids(self) -> Rubric:
        seen: set[str] = set()
        for question in self.questions:
            if question.id in seen:
                raise ValueError(f"question id {question.id!r} is used twice")
            seen.add(question.id)
        seen_items: set[str] = set()
        for item in self.items():
            if item.id in seen_items:
                raise ValueError(f"item id {item.id!r} is used twice")
            seen_items.add(item.id)
        for question in self.questions:
            unknown = sorted(set(question.handouts) - set(self.handouts))
            if unknown:
                raise ValueError(f"question {question.id!r} names handouts {unknown} that the "
                                 f"rubric's `handouts` does not list")
        return self

    def handouts_without(self, question: Question) -> tuple[str, ...]:
        """The rubric's handout editions that do not ask `question`."""
        if not question.handouts:
            return ()
        return tuple(h for h in self.handouts if h not in question.handouts)

    def asks(self, question: Question, handout: str | None) -> bool:
        """Whether the declared edition `handout` asks `question` (None: no edition declared,
        nothing says it does not)."""
        return handout is None or not question.handouts or handout in question.handouts

    def items(self) -> Iterator[RubricItem]:
        for question in self.questions:
            yield from question.items

    def question_of(self, item_id: str) -> Question:
        for question in self.questions:
            if any(item.id == item_id for item in question.items):
                return question
        raise KeyError(item_id)

    @property
    def sets_review_threshold(self) -> bool:
        """Whether the file states `review_threshold` (rather than taking the default)."""
        return "review_threshold" in self.model_fields_set

    def visibility_of(self, item: RubricItem) -> Visibility:
        return item.visibility or self.release.visibility

    @property
    def max_points(self) -> Decimal:
        return sum((item.points for item in self.items()), Decimal(0))


class LoadedRubric(BaseModel):
    """A validated rubric with the hash of the exact bytes it came from."""

    model_config = ConfigDict(frozen=True)

    rubric: Rubric
    content_hash: str
    source: str


BUNDLED_RUBRICS = Path(__file__).resolve().parent.parent / "rubrics"

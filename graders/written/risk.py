"""Instructor-graded answers: exemplars of their question, and its auto-grade threshold.

When an instructor has graded some answers of a question (a `points` column in a table, or
overrides), two things follow for the rest of that question's answers:
- exemplars by default: the graded answers become the item's exemplars (a graded answer close
  to a new one is evidence for its points; see `exemplars.py`);
- risk control: the question's review threshold is set so that the error among auto-graded
  answers stays under a target the instructor chooses (default 5%). The graded answers are
  split in two; each half is graded with the other half as exemplars, and the threshold is the
  lowest at which the auto-graded ones err at most the target, counted with one error added
  ((errors + 1) / (auto-graded + 1)), so that few graded answers send more to review, not less.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from graders.results import ItemResult
from graders.rubric_model import LoadedRubric, RubricItem
from graders.written.calibration import AGREEMENT
from graders.written.settings import DEFAULT_TARGET, MAX_EXEMPLARS


@dataclass(frozen=True)
class Graded:
    """An answer and the points an instructor gave it."""

    answer: str
    points: Decimal


@dataclass(frozen=True)
class QuestionRisk:
    threshold: float | None  # None: too few graded answers, the item's default threshold stands
    calibrated_on: int
    expected_error: float | None  # the bound at that threshold
    auto_share: float | None  # share of the calibration answers auto-graded at it


def the_written_item(part: LoadedRubric) -> RubricItem | None:
    """The question's item when it is a single written item (a row's points are its points)."""
    items = part.rubric.questions[0].items
    return items[0] if len(items) == 1 and items[0].grader == "written" else None


def with_exemplars(part: LoadedRubric, graded: Sequence[Graded],
                   threshold: float | None = None) -> LoadedRubric:
    """The one-question rubric `part` with `graded` added to its written item's exemplars."""
    item = the_written_item(part)
    if item is None:
        return part
    config: dict[str, Any] = dict(item.config)
    top = item.points
    shown = [{"text": g.answer, "points": min(g.points, top)} for g in graded[:MAX_EXEMPLARS]
             if g.answer.strip()]
    config["exemplars"] = [*config.get("exemplars", ()), *shown]
    if threshold is not None:
        config["review_threshold"] = threshold
    question = part.rubric.questions[0]
    new_item = item.model_copy(update={"config": config})
    new_question = question.model_copy(update={"items": [new_item]})
    rubric = part.rubric.model_copy(update={"questions": [new_question]})
    return LoadedRubric(rubric=rubric, content_hash=part.content_hash, source=part.source)


def risk_threshold(confidence: Sequence[float], wrong: Sequence[bool],
                   target: float = DEFAULT_TARGET) -> tuple[float, float, float]:
    """The lowest threshold (hundredths) whose auto-graded answers err at most `target`,
    with one error added; then that bound and the share auto-graded. 1.0 when none does."""
    pairs = list(zip(confidence, wrong, strict=True))
    for hundredths in range(0, 101):
        threshold = hundredths / 100
        chosen = [w for c, w in pairs if c >= threshold]
        bound = (sum(chosen) + 1) / (len(chosen) + 1)
        if chosen and bound <= target:
            return threshold, bound, len(chosen) / len(pairs)
    return 1.0, 1.0, 0.0


def calibrate_question(part: LoadedRubric, graded: Sequence[Graded],
                       grade: Callable[[LoadedRubric, str], ItemResult],
                       target: float = DEFAULT_TARGET) -> QuestionRisk:
    """Two-fold: each half graded with the other half as exemplars (`grade` grades one
    answer against a rubric), then `risk_threshold` on the results."""
    item = the_written_item(part)
    # With fewer than 1/target graded answers the bound cannot be met even with no error: the
    # item's default threshold stands rather than sending the whole question to review.
    if item is None or len(graded) < math.ceil(1 / target):
        return QuestionRisk(None, len(graded), None, None)
    halves = (graded[0::2], graded[1::2])
    tolerance = item.points * Decimal(str(AGREEMENT))
    confidence: list[float] = []
    wrong: list[bool] = []
    for held, shown in ((halves[0], halves[1]), (halves[1], halves[0])):
        fold = with_exemplars(part, shown)
        for answer in held:
            result = grade(fold, answer.answer)
            confidence.append(result.confidence)
            wrong.append(abs(result.points - min(answer.points, item.points)) > tolerance)
    threshold, bound, share = risk_threshold(confidence, wrong, target)
    return QuestionRisk(threshold, len(graded), bound, share)

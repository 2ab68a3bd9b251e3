"""Machine scores with instructor overrides on top: the one place every read gets its numbers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from app.db.models import GradingRun, ItemScore, Override
from graders.results import Status
from graders.totals import NOT_COUNTED, run_status

# The comment a group "Accept" stores: staff read it as who decided; it is not for the student.
ACCEPTED_SUGGESTION = "Group decision: the machine's suggestion accepted."


@dataclass(frozen=True)
class OverrideView:
    points: Decimal
    comment: str
    user_id: int | None
    at: datetime


@dataclass(frozen=True)
class EffectiveItem:
    item_id: str
    question: str
    points: Decimal
    max_points: Decimal
    status: str
    feedback: str
    confidence: float
    evidence: list[Any]
    grader: str
    grader_version: str
    machine_points: Decimal
    machine_status: str
    override: OverrideView | None
    # What the student reads once the points are released: the grader's message, or for a
    # human decision the one `decided_feedback` chooses (staff pages preview exactly this).
    student_feedback: str | None = None

    @property
    def counts(self) -> bool:
        return self.override is not None or self.status not in NOT_COUNTED

    @property
    def full_credit(self) -> bool:
        return self.counts and self.points >= self.max_points


@dataclass(frozen=True)
class EffectiveScore:
    status: str
    total: Decimal | None
    max_points: Decimal | None
    items: tuple[EffectiveItem, ...]


def _points(value: Decimal) -> str:
    return format(value.normalize(), "f")


def points_message(points: Decimal, max_points: Decimal, missing: bool) -> str:
    """A message from decided points alone (no grader's words to show)."""
    earned = f"{_points(points)} of {_points(max_points)} points"
    if missing:
        return f"No answer was found for this part ({earned})."
    if max_points > 0 and points >= max_points:
        return "Full credit."
    return f"{earned}."


def decided_feedback(score: ItemScore, override: Override) -> str:
    """What the student reads of a human decision, once its points are released: the
    instructor's comment; for an accepted suggestion of an item the machine graded confidently,
    the grader's own message; otherwise a message for the decided points. The grader's words
    for an item it sent to review ("a grader will check...") promise a check that has now
    happened, and were written for points that may have changed."""
    comment = (override.comment or "").strip()  # None before the row is flushed
    if comment and comment != ACCEPTED_SUGGESTION:
        return comment
    if (override.points == score.points and score.status == Status.GRADED.value
            and score.student_feedback):
        return score.student_feedback
    return points_message(override.points, score.max_points, missing=False)


def effective_item(score: ItemScore, override: Override | None) -> EffectiveItem:
    if override is None:
        return EffectiveItem(
            score.item_id,
            score.question_id,
            score.points,
            score.max_points,
            score.status,
            score.feedback,
            score.confidence,
            list(score.evidence),
            score.grader,
            score.grader_version,
            score.points,
            score.status,
            None,
            score.student_feedback,
        )
    feedback = score.feedback
    if override.comment:
        feedback = (
            f"{override.comment}\n\n(Machine feedback: {score.feedback})"
            if feedback
            else override.comment
        )
    view = OverrideView(override.points, override.comment, override.user_id, override.updated_at)
    return EffectiveItem(
        score.item_id,
        score.question_id,
        override.points,
        score.max_points,
        Status.GRADED.value,
        feedback,
        1.0,
        list(score.evidence),
        score.grader,
        score.grader_version,
        score.points,
        score.status,
        view,
        decided_feedback(score, override),
    )


def combine(items: Iterable[EffectiveItem], fallback_status: str) -> EffectiveScore:
    items = tuple(items)
    if not items:
        return EffectiveScore(fallback_status, None, None, ())
    status = run_status(i.status for i in items)
    total = sum((i.points for i in items if i.counts), Decimal(0))
    max_points = sum((i.max_points for i in items), Decimal(0))
    return EffectiveScore(status, total, max_points, items)


def effective_score(
    submission_status: str, run: GradingRun | None, overrides: Mapping[str, Override]
) -> EffectiveScore:
    """The submission's status, total and items as an instructor or student should see them."""
    if run is None or not run.items:
        return EffectiveScore(submission_status, None, None, ())
    return combine(
        (effective_item(s, overrides.get(s.item_id)) for s in run.items), submission_status
    )

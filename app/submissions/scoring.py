"""Machine scores with instructor overrides on top: the one place every read gets its numbers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from app.db.models import GradingRun, ItemScore, Override, SubmissionStatus
from graders.results import Status

# Items whose machine points do not count: nothing trustworthy was computed for them.
_NOT_COUNTED = frozenset({Status.PENDING.value, Status.GRADER_ERROR.value})
# Run status precedence: the worst item decides what the submission needs next.
_PRECEDENCE = (
    SubmissionStatus.GRADER_ERROR.value,
    SubmissionStatus.PENDING.value,
    SubmissionStatus.NEEDS_REVIEW.value,
)


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
    student_feedback: str | None = None  # the grader's message for the student

    @property
    def counts(self) -> bool:
        return self.override is not None or self.status not in _NOT_COUNTED

    @property
    def full_credit(self) -> bool:
        return self.counts and self.points >= self.max_points


@dataclass(frozen=True)
class EffectiveScore:
    status: str
    total: Decimal | None
    max_points: Decimal | None
    items: tuple[EffectiveItem, ...]


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
        score.student_feedback,
    )


def combine(items: Iterable[EffectiveItem], fallback_status: str) -> EffectiveScore:
    items = tuple(items)
    if not items:
        return EffectiveScore(fallback_status, None, None, ())
    statuses = {i.status for i in items}
    status = next((s for s in _PRECEDENCE if s in statuses), SubmissionStatus.GRADED.value)
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

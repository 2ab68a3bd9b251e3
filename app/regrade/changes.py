"""How a regrade compares a submission's scores before and after: what `changed` counts and
what a dry run shows (the same decisions on the grading processes' results and on the fast
path's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from app.db.models import ItemScore, Override, Submission, SubmissionStatus
from app.grading.repository import ItemRow, Scored
from app.grading.worker import WorkerOutcome
from app.submissions.scoring import _NOT_COUNTED as NOT_COUNTED
from app.submissions.scoring import _PRECEDENCE as PRECEDENCE
from app.submissions.scoring import EffectiveScore, combine, effective_item


@dataclass(frozen=True)
class ItemChange:
    item_id: str
    old_points: Decimal | None
    new_points: Decimal
    old_status: str | None
    new_status: str


@dataclass(frozen=True)
class ScoreChange:
    submission_id: int
    student: str | None
    old_total: Decimal | None
    new_total: Decimal | None
    old_status: str
    new_status: str
    items: tuple[ItemChange, ...]

def _score(
    rows: Sequence[ItemRow], overrides: Mapping[str, Override], fallback_status: str
) -> EffectiveScore:
    """`effective_score` over plain rows: effective_item reads only the attributes an ItemRow
    has, and building ORM objects for every item of every submission cost a regrade more CPU
    than storing the new runs."""
    if not rows:
        return EffectiveScore(fallback_status, None, None, ())
    return combine(
        (effective_item(cast(ItemScore, row), overrides.get(row.item_id)) for row in rows),
        fallback_status,
    )


def _new_score(outcome: WorkerOutcome, overrides: Mapping[str, Override]) -> EffectiveScore:
    """What the submission will read as after storing `outcome`, overrides still applied."""
    rows = [
        ItemRow(
            r.item_id, r.question, r.points, r.max_points, r.status.value,
            r.confidence, r.grader, r.grader_version, r.feedback,
        )
        for r in outcome.items
    ]
    return combine(
        (effective_item(cast(ItemScore, row), overrides.get(row.item_id)) for row in rows),
        outcome.status,
    )


def diff(submission: Submission, old: EffectiveScore, new: EffectiveScore) -> ScoreChange | None:
    return diff_of(submission.id, submission.student, old, new)


def diff_of(submission_id: int, student: str | None, old: EffectiveScore,
            new: EffectiveScore) -> ScoreChange | None:
    before = {i.item_id: i for i in old.items}
    changed = tuple(
        ItemChange(
            i.item_id,
            None if before.get(i.item_id) is None else before[i.item_id].points,
            i.points,
            None if before.get(i.item_id) is None else before[i.item_id].status,
            i.status,
        )
        for i in new.items
        if i.item_id not in before
        or before[i.item_id].points != i.points
        or before[i.item_id].status != i.status
    )
    if not changed and old.total == new.total and old.status == new.status:
        return None
    return ScoreChange(
        submission_id, student, old.total, new.total, old.status, new.status, changed
    )


def _lean(rows: Sequence[Scored], overrides: Mapping[str, Override]
          ) -> tuple[str, Decimal, dict[str, tuple[Decimal, str]]]:
    """`_score` for `diff`, on what it compares only: status, total and each item's effective
    points and status (no EffectiveItem built per item)."""
    items: dict[str, tuple[Decimal, str]] = {}
    total = Decimal(0)
    for row in rows:
        override = overrides.get(row.item_id)
        if override is not None:
            items[row.item_id] = (override.points, SubmissionStatus.GRADED.value)
            total += override.points
        else:
            items[row.item_id] = (row.points, row.status)
            if row.status not in NOT_COUNTED:
                total += row.points
    statuses = {status for _, status in items.values()}
    status = next((s for s in PRECEDENCE if s in statuses), SubmissionStatus.GRADED.value)
    return status, total, items


def lean_diff(submission_id: int, student: str | None, old_rows: Sequence[Scored],
              new_rows: Sequence[Scored], overrides: Mapping[str, Override]
              ) -> ScoreChange | None:
    """`diff_of(_score(old_rows), _score(new_rows))` for rows that are not empty."""
    old_status, old_total, before = _lean(old_rows, overrides)
    new_status, new_total, after = _lean(new_rows, overrides)
    changed = tuple(
        ItemChange(item_id, None if was is None else was[0], now[0],
                   None if was is None else was[1], now[1])
        for item_id, now in after.items()
        for was in (before.get(item_id),)
        if was is None or was != now
    )
    if not changed and old_total == new_total and old_status == new_status:
        return None
    return ScoreChange(submission_id, student, old_total, new_total, old_status, new_status,
                       changed)

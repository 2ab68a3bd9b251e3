"""How a regrade compares a submission's scores before and after: what `changed` counts and
what a dry run shows (the same decisions on the grading processes' results and on the fast
path's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from app.db.models import ItemScore, Override
from app.grading.repository import ItemRow
from app.grading.worker import WorkerOutcome
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

def stored_score(
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


def new_score(outcome: WorkerOutcome, overrides: Mapping[str, Override]) -> EffectiveScore:
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

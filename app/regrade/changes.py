"""How a regrade compares a submission's scores before and after: what `changed` counts and
what a dry run shows, on the grading processes' results (`diff_of`) and on the fast path's
(`change_of` a run settled by graders.cache.settle)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, ItemScore, Override, Submission
from app.grading.repository import ItemRow, advanced_from, current_item_rows
from app.grading.worker import WorkerOutcome
from app.points import JsonPoints
from app.submissions.repository import overrides_for
from app.submissions.scoring import EffectiveScore, combine, effective_item
from graders.cache.settle import Settled


# Points annotated as the API shows them: the regrade router returns these as they are.
@dataclass(frozen=True)
class ItemChange:
    item_id: str
    old_points: JsonPoints | None
    new_points: JsonPoints
    old_status: str | None
    new_status: str


@dataclass(frozen=True)
class ScoreChange:
    submission_id: int
    student: str | None
    old_total: JsonPoints | None
    new_total: JsonPoints | None
    old_status: str
    new_status: str
    items: tuple[ItemChange, ...]


def stored_score(rows: Sequence[ItemRow], overrides: Mapping[str, Override],
                 fallback_status: str) -> EffectiveScore:
    # effective_item reads only the attributes an ItemRow has: ORM objects for every item of
    # every submission cost a regrade more CPU than storing the new runs.
    return combine((effective_item(cast(ItemScore, row), overrides.get(row.item_id))
                    for row in rows), fallback_status)


def new_score(outcome: WorkerOutcome, overrides: Mapping[str, Override]) -> EffectiveScore:
    """What the submission will read as after storing `outcome`, overrides still applied."""
    rows = [ItemRow(r.item_id, r.question, r.points, r.max_points, r.status.value,
                    r.confidence, r.grader, r.grader_version, r.feedback) for r in outcome.items]
    return stored_score(rows, overrides, outcome.status)


def diff_of(submission_id: int, student: str | None, old: EffectiveScore,
            new: EffectiveScore) -> ScoreChange | None:
    before = {i.item_id: (i.points, i.status) for i in old.items}
    changed = tuple(ItemChange(i.item_id, was[0], i.points, was[1], i.status) for i in new.items
                    if (was := before.get(i.item_id, (None, None))) != (i.points, i.status))
    if not changed and old.total == new.total and old.status == new.status:
        return None
    return ScoreChange(submission_id, student, old.total, new.total, old.status, new.status,
                       changed)


def change_of(submission_id: int, student: str | None, settled: Settled) -> ScoreChange:
    """A run re-scored in place (graders.cache.settle), as a regrade reports its change."""
    return ScoreChange(submission_id, student, settled.before.points, settled.after.points,
                       settled.before.status, settled.after.status, tuple(
                           ItemChange(m.item_id, m.before.points, m.after.points,
                                      m.before.status, m.after.status) for m in settled.moved))


def stored_by_job(session: Session, job_id: int, ids: Sequence[int]
                  ) -> dict[int, ScoreChange | None]:
    """Those of `ids` a job has stored re-scored in place, each with its change as the regrade
    reports it, read back from the current run and the state it was advanced from. What a
    forked worker that died after storing a batch never reported."""
    current = {sid: (status, student) for sid, status, student in session.execute(
        select(GradingRun.submission_id, GradingRun.status, Submission.student)
        .join(Submission, Submission.id == GradingRun.submission_id)
        .where(GradingRun.submission_id.in_(list(ids)), GradingRun.regrade_job_id == job_id,
               GradingRun.is_current.is_(True)))}
    now = current_item_rows(session, list(current))
    before = advanced_from(session, list(current))
    overrides = overrides_for(session, list(current))
    found: dict[int, ScoreChange | None] = {}
    for sid, (status, student) in current.items():
        rows = now.get(sid, [])
        was_status, was = before.get(sid, (status, rows))
        own = overrides.get(sid, {})
        found[sid] = diff_of(sid, student, stored_score(was, own, was_status),
                             stored_score(rows, own, status))
    return found

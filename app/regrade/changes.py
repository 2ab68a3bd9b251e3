"""How a regrade compares a submission's scores before and after: what `changed` counts and
what a dry run shows, on the grading processes' results (`diff_of`) and on the fast path's
(`settle`, from the stored run's totals and the few rows read of it: only the recomputed items
can differ, the rest of the run is the stored one)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, ItemScore, Override, Submission, SubmissionStatus
from app.grading.repository import ItemRow, RunScores, advanced_from, current_item_rows
from app.grading.worker import WorkerOutcome
from app.points import JsonPoints
from app.submissions.repository import overrides_for
from app.submissions.scoring import EffectiveScore, combine, effective_item
from graders.results import ItemResult
from graders.totals import counted, run_status

GRADED = SubmissionStatus.GRADED.value


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


@dataclass(frozen=True, slots=True)
class Settled:
    status: str  # the machine's run status (no overrides), as stored
    total: Decimal
    max_points: Decimal
    change: ScoreChange | None  # with overrides applied, as a regrade reports it


def settle(submission_id: int, student: str | None, total: Decimal, max_points: Decimal,
           scores: RunScores, recomputed: Mapping[str, ItemResult],
           overrides: Mapping[str, Override], positions: Mapping[str, int]) -> Settled | None:
    """A run re-scored in place: the stored totals with each recomputed item's counted points
    replaced, the status from the rows that decide it (all of them are read); an overridden
    item counts its override's points and reads as graded. None when the rows read do not
    cover the recomputed items (the grading processes do the submission)."""
    rows = scores.rows
    if any(item not in rows for item in recomputed):
        return None
    before = {item: (row.points, row.status) for item, row in rows.items()}
    after = dict(before)
    new_total, new_max = total, max_points
    for item, result in recomputed.items():
        old = rows[item]
        after[item] = (result.points, result.status.value)
        new_total += counted(result.points, result.status.value) - counted(old.points, old.status)
        new_max += result.max_points - old.max_points
    machine = run_status(status for _, status in after.values())
    if not recomputed:
        return Settled(machine, new_total, new_max, None)
    overridden = {item: o for item, o in overrides.items() if item in rows}

    def effective(values: Mapping[str, tuple[Decimal, str]], shown: Decimal) -> tuple[str, Decimal]:
        for item, override in overridden.items():
            shown += override.points - counted(*values[item])
        return run_status(GRADED if item in overridden else status
                          for item, (_, status) in values.items()), shown

    old_status, old_total = effective(before, total)
    now_status, now_total = (machine, new_total) if not overridden else effective(after, new_total)
    changed: list[ItemChange] = []
    for item in sorted(recomputed, key=lambda i: positions.get(i, 0)):
        override = overridden.get(item)
        was = before[item] if override is None else (override.points, GRADED)
        now = after[item] if override is None else (override.points, GRADED)
        if was != now:
            changed.append(ItemChange(item, was[0], now[0], was[1], now[1]))
    change = None
    if changed or old_total != now_total or old_status != now_status:
        change = ScoreChange(submission_id, student, old_total, now_total, old_status,
                             now_status, tuple(changed))
    return Settled(machine, new_total, new_max, change)


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

"""How a submission re-scored in place reads afterwards, from its stored run's totals and the
few rows a regrade reads of it (`app.grading.repository.run_scores`): its new status and
totals, and what changed, decided as `app.regrade.changes.lean_diff` decides over every row.

Only the recomputed items can differ; the rest of the run is the stored one. So the new
machine total is the stored total with each recomputed item's counted points replaced, the
maximum likewise, and the status follows from the rows whose status decides a run's (all of
them are read) with the recomputed ones replaced. Overrides are applied as everywhere: an
overridden item counts its override's points and reads as graded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from app.db.models import Override, SubmissionStatus
from app.grading.repository import RunScores
from app.regrade.changes import ItemChange, ScoreChange
from graders.results import ItemResult
from graders.totals import counted, run_status

GRADED = SubmissionStatus.GRADED.value


@dataclass(frozen=True, slots=True)
class Settled:
    status: str  # the machine's run status (no overrides), as stored
    total: Decimal
    max_points: Decimal
    change: ScoreChange | None  # with overrides applied, as a regrade reports it


def settle(submission_id: int, student: str | None, total: Decimal, max_points: Decimal,
           scores: RunScores, recomputed: Mapping[str, ItemResult],
           overrides: Mapping[str, Override], positions: Mapping[str, int]) -> Settled | None:
    """None when the rows read do not cover the recomputed items (the caller sends the
    submission to the grading processes)."""
    rows = scores.rows
    if any(item not in rows for item in recomputed):
        return None
    before = {item: (row.points, row.status) for item, row in rows.items()}
    after = dict(before)
    new_total, new_max = total, max_points
    for item, result in recomputed.items():
        old = rows[item]
        status = result.status.value
        after[item] = (result.points, status)
        new_total += counted(result.points, status) - counted(old.points, old.status)
        new_max += result.max_points - old.max_points
    machine = run_status(status for _, status in after.values())
    if not recomputed:
        return Settled(machine, new_total, new_max, None)
    overridden = {item: o for item, o in overrides.items() if item in rows}

    def effective(values: Mapping[str, tuple[Decimal, str]], machine_total: Decimal
                  ) -> tuple[str, Decimal]:
        shown = machine_total
        for item, override in overridden.items():
            shown += override.points - counted(*values[item])
        return run_status(GRADED if item in overridden else status
                       for item, (_, status) in values.items()), shown

    if overridden:
        old_status, old_total = effective(before, total)
        now_status, now_total = effective(after, new_total)
    else:  # what `effective` gives without overrides: the machine's own, known already
        old_status, old_total = run_status(status for _, status in before.values()), total
        now_status, now_total = machine, new_total
    changed: list[ItemChange] = []
    for item in sorted(recomputed, key=lambda i: positions.get(i, 0)):
        override = overridden.get(item)
        was = (override.points, GRADED) if override is not None else before[item]
        now = (override.points, GRADED) if override is not None else after[item]
        if was != now:
            changed.append(ItemChange(item, was[0], now[0], was[1], now[1]))
    change = None
    if changed or old_total != now_total or old_status != now_status:
        change = ScoreChange(submission_id, student, old_total, now_total, old_status,
                             now_status, tuple(changed))
    return Settled(machine, new_total, new_max, change)

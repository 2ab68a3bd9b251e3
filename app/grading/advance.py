"""A regrade re-scored in place (app.regrade.fast) stores its runs here, paying for what
changed only.

The current run keeps its id and every item row that did not change; only its own columns
(rubric version, status, totals, time, keys) are updated. Its previous state becomes a new run
that is no longer current: the old rubric, status, totals and time, and the superseded rows of
the items that changed, moved to it (not copied). So a run that is no longer current holds the
item rows that differ from the run after it; the item it lacks read as in that later run. The
history a page shows (app.web) is per run (status, totals, rubric, time), ordered by time, and
every reader of scores reads the current run, which is always complete.

A run graded by the grading processes is stored whole (app.grading.repository.store_outcomes)
and the run before it keeps all its rows, as before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, insert, select, text, update
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import GradingRun, ItemScore, Submission
from app.grading.repository import item_values_once
from app.sanitize import clean
from graders.results import ItemResult

_RUNS = cast(Table, GradingRun.__table__)
_ITEMS = cast(Table, ItemScore.__table__)
_SUBMISSIONS = cast(Table, Submission.__table__)
# A run's columns its previous state keeps (its located answers and keys stay with the
# current run: a superseded run is never re-scored from, and nothing reads its answers).
_KEPT = ("submission_id, rubric_version_id, rubric_hash, regrade_job_id, status, error, total, "
         "max_points, execution_time, created_at, located_digest")
_PREVIOUS = text(
    f"INSERT INTO grading_runs ({_KEPT}, answers, result_keys, is_current) "
    f"SELECT {_KEPT}, :answers, NULL, :no FROM grading_runs WHERE id = :run"
).bindparams(bindparam("answers", type_=_RUNS.c.answers.type),
             bindparam("no", type_=_RUNS.c.is_current.type))


@dataclass(frozen=True, slots=True)
class AdvancedRun:
    """A submission's current run re-scored: its new status, totals and keys, and the results
    of the items that changed (item id -> result)."""

    submission_id: int
    run_id: int
    status: str
    total: Decimal
    max_points: Decimal
    keys: dict[str, Any]
    changed: Mapping[str, ItemResult]


def advance_runs(
    session: Session,
    runs: Sequence[AdvancedRun],
    version_id: int,
    rubric_hash: str,
    regrade_job_id: int | None,
    positions: Mapping[str, int],
    seconds: float | None = None,
) -> int:
    """Store each re-scored run in place (see the module's text): a few statements for all
    the runs, a row written per changed item. Returns the number stored: a run that is no
    longer current (its submission regraded or deleted meanwhile) is skipped."""
    if not runs:
        return 0
    live = set(session.execute(
        select(_RUNS.c.id)
        .where(_RUNS.c.id.in_([r.run_id for r in runs]), _RUNS.c.is_current.is_(True))
    ).scalars().all())
    stored = [r for r in runs if r.run_id in live]
    if not stored:
        return 0
    # The previous states, as new runs no longer current: copied in SQL, without the answers
    # and keys. Each is then its submission's newest run that is not current (ids only grow;
    # this transaction writes the submission's runs), where the superseded rows move.
    session.execute(_PREVIOUS, [{"run": r.run_id, "answers": {}, "no": False} for r in stored])
    moved = [r for r in stored if r.changed]
    previous = dict(session.execute(
        select(_RUNS.c.submission_id, func.max(_RUNS.c.id))
        .where(_RUNS.c.submission_id.in_([r.submission_id for r in moved]),
               _RUNS.c.is_current.is_(False))
        .group_by(_RUNS.c.submission_id)
    ).tuples().all()) if moved else {}
    moves = [{"to": previous[r.submission_id], "run": r.run_id, "item": clean(item_id, 100)}
             for r in moved for item_id in r.changed]
    if moves:
        session.execute(
            update(_ITEMS)
            .where(_ITEMS.c.run_id == bindparam("run"), _ITEMS.c.item_id == bindparam("item"))
            .values(run_id=bindparam("to")),
            moves,
        )
    values: dict[int, tuple[ItemResult, dict[str, Any]]] = {}  # results are shared: clean once
    rows = [
        {"run_id": r.run_id, "position": positions[item_id], "item_id": clean(item_id, 100),
         **item_values_once(result, values)}
        for r in stored
        for item_id, result in r.changed.items()
    ]
    if rows:
        session.execute(insert(_ITEMS), rows)
    now = utcnow()
    session.execute(
        update(_RUNS).where(_RUNS.c.id == bindparam("run")).values(
            rubric_version_id=version_id, rubric_hash=rubric_hash,
            regrade_job_id=regrade_job_id, status=bindparam("st"), error=None,
            total=bindparam("tot"), max_points=bindparam("max"), execution_time=seconds,
            created_at=now, result_keys=bindparam("keys")),
        [{"run": r.run_id, "st": r.status, "tot": r.total, "max": r.max_points,
          "keys": r.keys} for r in stored],
    )
    session.execute(
        update(_SUBMISSIONS)
        .where(_SUBMISSIONS.c.id == bindparam("sid"))
        .values(status=bindparam("st"), error=None, updated_at=now),
        [{"sid": r.submission_id, "st": r.status} for r in stored],
    )
    return len(stored)

"""A regrade re-scored in place (app.regrade.fast) stores its runs here, paying for what
changed only: the current run keeps its id and every item row that did not change, and its
previous state becomes a new run, no longer current, holding the superseded rows of the items
that changed, moved to it (not copied). So a run that is no longer current holds the rows that
differ from the run after it; every reader of scores reads the current run, always complete.
A run graded by the grading processes is stored whole (app.grading.repository.store_outcomes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from sqlalchemy import Table, bindparam, or_, select, text, update
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.driver import bind, driver_sql
from app.db.models import GradingRun, Submission
from app.grading.repository import insert_items
from app.sanitize import clean
from graders.results import ItemResult

_RUNS = cast(Table, GradingRun.__table__)
_SUBMISSIONS = cast(Table, Submission.__table__)
# A run's columns its previous state keeps (its located answers and keys stay with the
# current run: a superseded run is never re-scored from, and nothing reads its answers).
_KEPT = ("submission_id, rubric_version_id, rubric_hash, regrade_job_id, status, error, total, "
         "max_points, execution_time, created_at, located_digest")
_PREVIOUS = text(
    f"INSERT INTO grading_runs ({_KEPT}, answers, result_keys, is_current) "
    f"SELECT {_KEPT}, :answers, NULL, :no FROM grading_runs WHERE id IN :runs ORDER BY id"
).bindparams(bindparam("answers", type_=_RUNS.c.answers.type),
             bindparam("no", type_=_RUNS.c.is_current.type),
             bindparam("runs", expanding=True))
# A superseded row moves to its run's previous state: the submission's newest run that is not
# current.
_MOVE = text(
    "UPDATE item_scores SET run_id = (SELECT max(g.id) FROM grading_runs g "
    "JOIN grading_runs r ON g.submission_id = r.submission_id "
    "WHERE r.id = item_scores.run_id AND g.is_current = :no) "
    "WHERE run_id IN :runs AND item_id IN :items"
).bindparams(bindparam("no", type_=_RUNS.c.is_current.type),
             bindparam("runs", expanding=True), bindparam("items", expanding=True))

@dataclass(frozen=True, slots=True)
class AdvancedRun:
    """A submission's current run re-scored: its new status, totals and keys, and the results
    of the items that changed (item id -> result)."""

    submission_id: int
    run_id: int
    status: str
    total: Decimal
    max_points: Decimal
    keys: str  # as JSON text
    changed: Mapping[str, ItemResult]


def advance_runs(session: Session, runs: Sequence[AdvancedRun], version_id: int,
                 rubric_hash: str, regrade_job_id: int | None, positions: Mapping[str, int],
                 seconds: float | None = None) -> int:
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
    # The previous states, as new runs no longer current: copied in SQL by one statement,
    # without the answers and keys. Each is then its submission's newest run that is not
    # current (ids only grow; this transaction writes the submission's runs), where the
    # superseded rows move: one statement per set of changed items, each row finding its
    # run's previous state itself.
    session.execute(_PREVIOUS, {"runs": [r.run_id for r in stored], "answers": {},
                                "no": False})
    by_items: dict[tuple[str, ...], list[int]] = {}
    for r in stored:
        if r.changed:
            by_items.setdefault(tuple(sorted(r.changed)), []).append(r.run_id)
    for items, run_ids in by_items.items():
        session.execute(_MOVE, {"runs": run_ids, "items": [clean(i, 100) for i in items],
                                "no": False})
    insert_items(session, ((r.run_id, positions[item_id], item_id, result)
                           for r in stored for item_id, result in r.changed.items()))
    connection = session.connection()
    dialect = connection.dialect
    now = utcnow()
    when = bind(_RUNS.c.created_at, dialect)(now)
    seconds_bound = bind(_RUNS.c.execution_time, dialect)(seconds)
    points = bind(_RUNS.c.total, dialect)
    connection.exec_driver_sql(driver_sql(
        "UPDATE grading_runs SET rubric_version_id = ?, rubric_hash = ?, regrade_job_id = ?, "
        "status = ?, error = NULL, total = ?, max_points = ?, execution_time = ?, "
        "created_at = ?, result_keys = ? WHERE id = ?", dialect), [
        (version_id, rubric_hash, regrade_job_id, r.status, points(r.total),
         points(r.max_points), seconds_bound, when, r.keys, r.run_id)
        for r in stored
    ])
    by_status: dict[str, list[int]] = {}
    for r in stored:
        by_status.setdefault(r.status, []).append(r.submission_id)
    for status, ids in by_status.items():
        # Only the submissions whose status or error changes, as the grading processes' ORM
        # path does: an unchanged row is not written again (its page stays clean).
        session.execute(
            update(_SUBMISSIONS)
            .where(_SUBMISSIONS.c.id.in_(ids),
                   or_(_SUBMISSIONS.c.status != status, _SUBMISSIONS.c.error.is_not(None)))
            .values(status=status, error=None, updated_at=now))
    return len(stored)

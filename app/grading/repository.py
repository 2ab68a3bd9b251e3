"""Storing grading runs. A run graded by the grading processes is stored whole, with all its
item scores, replacing the current run (`store_outcomes`). A regrade re-scored in place
(graders.cache.rescore) pays for what changed only (`advance_runs`): the current run keeps its id
and every item row that did not change, and its previous state becomes a new run, no longer
current, holding the superseded rows of the items that changed, moved to it (not copied). So a
run that is no longer current holds the rows that differ from the run after it. Every reader of
scores reads the current run, always complete; the one reader of a previous state
(`advanced_from`) reads it here, whole.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple, cast

from sqlalchemy import Executable, Table, bindparam, func, or_, select, text, update
from sqlalchemy.orm import Session, selectinload

from app.db.base import utcnow
from app.db.driver import bind, driver_sql
from app.db.models import GradingRun, ItemScore, Submission, SubmissionStatus
from app.grading.worker import WorkerOutcome
from app.sanitize import clean, clean_json, clean_optional
from graders.engine import GradingOutcome
from graders.results import ItemResult
from graders.totals import PRECEDENCE


def item_values(r: ItemResult) -> dict[str, Any]:
    """An item result's stored columns (all but its run, position and id)."""
    return {
        "question_id": clean(r.question, 100),
        "points": r.points,
        "max_points": r.max_points,
        "status": r.status.value,
        # Feedback and evidence quote the student's document: cleaned at this boundary.
        "feedback": clean(r.feedback),
        "student_feedback": clean_optional(r.student_feedback),
        "evidence": clean_json([e.model_dump(mode="json") for e in r.evidence]),
        "confidence": r.confidence,
        "grader": clean(r.grader, 50),
        "grader_version": clean(r.grader_version, 50),
    }


# An item row's columns after its run, position and id, as `item_values` names them.
_ITEM_VALUES = ("question_id", "points", "max_points", "status", "feedback", "student_feedback",
                "evidence", "confidence", "grader", "grader_version")
_ITEMS = cast(Table, ItemScore.__table__)


def insert_items(session: Session, rows: Iterable[tuple[int, int, str, ItemResult]]) -> None:
    """Item rows, each (run id, position, item id, result), in one statement run through the
    driver (app.db.driver): the ORM's unit of work costs several times more per row, Core's
    insert a third more again, and this runs in the API process, whose GIL the uploads need.
    A result shared by many rows (a regrade's re-scored runs) is cleaned and bound once."""
    connection = session.connection()
    dialect = connection.dialect
    binds = [bind(_ITEMS.c[name], dialect) for name in _ITEM_VALUES]
    # id(result) -> (result, its bound values): the result is kept so that its id stays its.
    bound: dict[int, tuple[ItemResult, tuple[Any, ...]]] = {}
    item_id_of = functools.cache(lambda item_id: clean(item_id, 100))
    values: list[tuple[Any, ...]] = []
    for run_id, position, item_id, result in rows:
        found = bound.get(id(result))
        if found is None:
            named = item_values(result)
            found = bound[id(result)] = (result, tuple(
                b(named[name]) for b, name in zip(binds, _ITEM_VALUES, strict=True)))
        values.append((run_id, position, item_id_of(item_id), *found[1]))
    if values:
        connection.exec_driver_sql(driver_sql(
            f"INSERT INTO item_scores (run_id, position, item_id, {', '.join(_ITEM_VALUES)}) "
            f"VALUES ({', '.join('?' * (3 + len(_ITEM_VALUES)))})", dialect), values)


def store_outcomes(session: Session, outcomes: Sequence[tuple[int, int, WorkerOutcome]],
                   regrade_job_id: int | None = None) -> list[GradingRun]:
    """Store (submission id, rubric version id, outcome) triples; each becomes the current run."""
    if not outcomes:
        return []
    ids = [submission_id for submission_id, _, _ in outcomes]
    session.execute(update(GradingRun).values(is_current=False).where(
        GradingRun.submission_id.in_(ids), GradingRun.is_current.is_(True)))
    submissions = {s.id: s for s in
                   session.scalars(select(Submission).where(Submission.id.in_(ids)))}
    runs: list[tuple[GradingRun, WorkerOutcome]] = []
    for submission_id, version_id, outcome in outcomes:
        submission = submissions.get(submission_id)
        if submission is None:  # deleted while it was being graded
            continue
        scored = GradingOutcome(outcome.rubric_hash, outcome.items)  # its total, its maximum
        run = GradingRun(
            submission_id=submission_id, rubric_version_id=version_id,
            rubric_hash=outcome.rubric_hash, regrade_job_id=regrade_job_id, status=outcome.status,
            error=clean_optional(outcome.error), total=scored.total, max_points=scored.max_points,
            answers=clean_json(dict(outcome.answers)), execution_time=outcome.execution_time,
            is_current=True, located_digest=outcome.located, result_keys=outcome.keys)
        session.add(run)
        runs.append((run, outcome))
        submission.status = SubmissionStatus(outcome.status).value
        submission.error = clean_optional(outcome.error)
    session.flush()
    insert_items(session, ((run.id, position, r.item_id, r)
                           for run, outcome in runs for position, r in enumerate(outcome.items)))
    return [run for run, _ in runs]


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
    live = set(session.execute(select(_RUNS.c.id).where(
        _RUNS.c.id.in_([r.run_id for r in runs]), _RUNS.c.is_current.is_(True))).scalars())
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
    dialect, now = connection.dialect, utcnow()
    points, when = bind(_RUNS.c.total, dialect), bind(_RUNS.c.created_at, dialect)(now)
    took = bind(_RUNS.c.execution_time, dialect)(seconds)
    connection.exec_driver_sql(driver_sql(
        "UPDATE grading_runs SET rubric_version_id = ?, rubric_hash = ?, regrade_job_id = ?, "
        "status = ?, error = NULL, total = ?, max_points = ?, execution_time = ?, "
        "created_at = ?, result_keys = ? WHERE id = ?", dialect), [
        (version_id, rubric_hash, regrade_job_id, r.status, points(r.total),
         points(r.max_points), took, when, r.keys, r.run_id) for r in stored])
    by_status: dict[str, list[int]] = {}
    for r in stored:
        by_status.setdefault(r.status, []).append(r.submission_id)
    for status, ids in by_status.items():
        # Only the submissions whose status or error changes, as the grading processes' ORM
        # path does: an unchanged row is not written again (its page stays clean).
        session.execute(update(_SUBMISSIONS).values(status=status, error=None, updated_at=now)
                        .where(_SUBMISSIONS.c.id.in_(ids), or_(_SUBMISSIONS.c.status != status,
                                                               _SUBMISSIONS.c.error.is_not(None))))
    return len(stored)


def mark_failed(session: Session, submission_ids: Iterable[int], message: str) -> None:
    """The grading process itself failed: keep the submission, say so, let a regrade retry."""
    session.execute(update(Submission).where(Submission.id.in_(list(submission_ids)))
                    .values(status=SubmissionStatus.GRADER_ERROR.value, error=clean(message)))


def current_runs(session: Session, submission_ids: Sequence[int]) -> dict[int, GradingRun]:
    if not submission_ids:
        return {}
    runs = session.scalars(select(GradingRun).options(selectinload(GradingRun.items)).where(
        GradingRun.submission_id.in_(submission_ids), GradingRun.is_current.is_(True)))
    return {run.submission_id: run for run in runs}


@dataclass(frozen=True, slots=True)
class ItemRow:
    """An item score as plain values: what comparing runs needs, without the ORM's cost (a
    bulk regrade compares every item of every submission)."""

    item_id: str
    question_id: str
    points: Decimal
    max_points: Decimal
    status: str
    confidence: float
    grader: str
    grader_version: str
    feedback: str = ""
    evidence: list[Any] = field(default_factory=list)
    student_feedback: str | None = None


# An ItemRow's columns, in its order (feedback and evidence not loaded).
_ROW_COLUMNS = (ItemScore.item_id, ItemScore.question_id, ItemScore.points, ItemScore.max_points,
                ItemScore.status, ItemScore.confidence, ItemScore.grader, ItemScore.grader_version)


def _rows_by(session: Session, query: Executable) -> dict[int, list[ItemRow]]:
    """The query's rows (a key, then _ROW_COLUMNS) as ItemRows by key, in its order. Core, not
    the ORM's row loading: a bulk regrade reads every item of every submission."""
    found: dict[int, list[ItemRow]] = {}
    for key, *values in session.connection().execute(query):
        found.setdefault(key, []).append(ItemRow(*values))
    return found


def current_item_rows(session: Session, submission_ids: Sequence[int]) -> dict[int, list[ItemRow]]:
    """Submission id -> its current run's items in order; submissions without a current run,
    or whose run has no items, are absent."""
    if not submission_ids:
        return {}
    return _rows_by(session, select(GradingRun.submission_id, *_ROW_COLUMNS)
                    .join(ItemScore, ItemScore.run_id == GradingRun.id)
                    .where(GradingRun.submission_id.in_(submission_ids),
                           GradingRun.is_current.is_(True))
                    .order_by(GradingRun.submission_id, ItemScore.position))


def advanced_from(session: Session, submission_ids: Sequence[int]
                  ) -> dict[int, tuple[str, list[ItemRow]]]:
    """Of submissions whose current run was re-scored in place (`advance_runs`), the state it
    was advanced from, whole: its status and its item rows in the current run's order (the
    superseded rows it holds over the current run's). Submissions without one are absent."""
    previous = dict(session.execute(
        select(GradingRun.submission_id, func.max(GradingRun.id))
        .where(GradingRun.submission_id.in_(list(submission_ids)),
               GradingRun.is_current.is_(False))
        .group_by(GradingRun.submission_id)).tuples().all())
    status = dict(session.execute(
        select(GradingRun.id, GradingRun.status).where(GradingRun.id.in_(list(previous.values())))
    ).tuples().all())
    superseded = _rows_by(session, select(ItemScore.run_id, *_ROW_COLUMNS)
                          .where(ItemScore.run_id.in_(list(status))))
    moved = {run_id: {row.item_id: row for row in rows} for run_id, rows in superseded.items()}
    current = current_item_rows(session, list(previous))
    return {sid: (status[run_id], [moved.get(run_id, {}).get(row.item_id, row)
                                   for row in current.get(sid, [])])
            for sid, run_id in previous.items()}


class Score(NamedTuple):
    item_id: str
    points: Decimal
    max_points: Decimal
    status: str


# The statuses that decide a run's status (graders.totals, as app.submissions.scoring reads it);
# a run's other items are graded or missing, which leave it `graded`.
DECIDING = PRECEDENCE


@dataclass(frozen=True, slots=True)
class RunScores:
    """What a regrade's fast path reads of a stored run (`run_scores`): how many item rows it
    has, and of those only the rows of `items` and the rows whose status decides the run's."""

    count: int
    rows: dict[str, Score]


def run_scores(session: Session, run_ids: Sequence[int], items: Iterable[str]
               ) -> dict[int, RunScores]:
    """For each run, its item count and the rows of `items` or with a deciding status: a bulk
    regrade's new totals and statuses follow from the run's own and these (every item of every
    submission would be 33 rows each, a Decimal each, read to change one)."""
    if not run_ids:
        return {}
    connection = session.connection()
    found = {run_id: RunScores(count, {}) for run_id, count in connection.execute(
        select(ItemScore.run_id, func.count()).where(ItemScore.run_id.in_(run_ids))
        .group_by(ItemScore.run_id)).tuples()}
    wanted = sorted(set(items))
    columns = (ItemScore.run_id, ItemScore.item_id, ItemScore.points, ItemScore.max_points,
               ItemScore.status)
    # Two statements, each on its index: (run id, item id) and (run id, status).
    for condition in (ItemScore.item_id.in_(wanted), ItemScore.status.in_(DECIDING)):
        for run_id, item, points, max_points, status in connection.execute(
            select(*columns).where(ItemScore.run_id.in_(run_ids), condition)
        ).tuples().all():
            found[run_id].rows[item] = Score(item, points, max_points, status)
    return found

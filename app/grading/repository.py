"""Storing grading runs: one run with all its item scores, replacing the current run."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple, Protocol, cast

from sqlalchemy import Table, TextClause, bindparam, insert, select, text, update
from sqlalchemy.orm import Session, selectinload

from app.db.base import utcnow
from app.db.models import GradingRun, ItemScore, Submission, SubmissionStatus
from app.grading.worker import WorkerOutcome
from app.sanitize import clean, clean_json, clean_optional
from graders.results import ItemResult


def _item_values(r: ItemResult) -> dict[str, Any]:
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


def _item_rows(run_id: int, outcome: WorkerOutcome) -> list[dict[str, Any]]:
    return [
        {"run_id": run_id, "position": position, "item_id": clean(r.item_id, 100),
         **_item_values(r)}
        for position, r in enumerate(outcome.items)
    ]


def store_outcomes(
    session: Session,
    outcomes: Sequence[tuple[int, int, WorkerOutcome]],
    regrade_job_id: int | None = None,
) -> list[GradingRun]:
    """Store (submission id, rubric version id, outcome) triples; each becomes the current run."""
    if not outcomes:
        return []
    ids = [submission_id for submission_id, _, _ in outcomes]
    session.execute(
        update(GradingRun)
        .where(GradingRun.submission_id.in_(ids), GradingRun.is_current.is_(True))
        .values(is_current=False)
    )
    submissions = {
        s.id: s for s in session.scalars(select(Submission).where(Submission.id.in_(ids)))
    }
    runs: list[GradingRun] = []
    kept: list[tuple[int, int, WorkerOutcome]] = []
    for submission_id, version_id, outcome in outcomes:
        submission = submissions.get(submission_id)
        if submission is None:  # deleted while it was being graded
            continue
        kept.append((submission_id, version_id, outcome))
        total = sum((r.points for r in outcome.items if r.counts_toward_total), Decimal(0))
        run = GradingRun(
            submission_id=submission_id,
            rubric_version_id=version_id,
            rubric_hash=outcome.rubric_hash,
            regrade_job_id=regrade_job_id,
            status=outcome.status,
            error=clean_optional(outcome.error),
            total=total,
            max_points=sum((r.max_points for r in outcome.items), Decimal(0)),
            answers=clean_json(dict(outcome.answers)),
            execution_time=outcome.execution_time,
            is_current=True,
            located_digest=outcome.located,
            result_keys=outcome.keys,
        )
        session.add(run)
        runs.append(run)
        submission.status = SubmissionStatus(outcome.status).value
        submission.error = clean_optional(outcome.error)
    session.flush()
    # Item rows go in as one Core executemany: the ORM unit of work costs several times more
    # per row, its bulk path a third more again, and this runs in the API process, whose GIL
    # the uploads need.
    rows = [
        row
        for run, (_, _, outcome) in zip(runs, kept, strict=True)
        for row in _item_rows(run.id, outcome)
    ]
    if rows:
        session.execute(insert(cast(Table, ItemScore.__table__)), rows)
    return runs


def mark_failed(session: Session, submission_ids: Iterable[int], message: str) -> None:
    """The grading process itself failed: keep the submission, say so, let a regrade retry."""
    session.execute(
        update(Submission)
        .where(Submission.id.in_(list(submission_ids)))
        .values(status=SubmissionStatus.GRADER_ERROR.value, error=clean(message))
    )


def current_runs(session: Session, submission_ids: Sequence[int]) -> dict[int, GradingRun]:
    if not submission_ids:
        return {}
    runs = session.scalars(
        select(GradingRun)
        .where(GradingRun.submission_id.in_(submission_ids), GradingRun.is_current.is_(True))
        .options(selectinload(GradingRun.items))
    )
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


def current_item_rows(session: Session, submission_ids: Sequence[int]) -> dict[int, list[ItemRow]]:
    """Submission id -> its current run's items in order (feedback and evidence not loaded);
    submissions without a current run, or whose run has no items, are absent."""
    found: dict[int, list[ItemRow]] = {}
    if not submission_ids:
        return found
    # Core, not the ORM's row loading: a bulk regrade reads every item of every submission.
    rows = session.connection().execute(
        select(
            GradingRun.submission_id, ItemScore.item_id, ItemScore.question_id, ItemScore.points,
            ItemScore.max_points, ItemScore.status, ItemScore.confidence, ItemScore.grader,
            ItemScore.grader_version,
        )
        .join(ItemScore, ItemScore.run_id == GradingRun.id)
        .where(GradingRun.submission_id.in_(submission_ids), GradingRun.is_current.is_(True))
        .order_by(GradingRun.submission_id, ItemScore.position)
    ).all()
    for sid, item, question, points, max_points, status, confidence, grader, version in rows:
        found.setdefault(sid, []).append(
            ItemRow(item, question, points, max_points, status, confidence, grader, version))
    return found


class Scored(Protocol):
    """What a regrade's fast path reads of an item score (an ItemRow, or a `Score`)."""

    @property
    def item_id(self) -> str: ...

    @property
    def points(self) -> Decimal: ...

    @property
    def max_points(self) -> Decimal: ...

    @property
    def status(self) -> str: ...


class Score(NamedTuple):
    item_id: str
    points: Decimal
    max_points: Decimal
    status: str


def current_scores(session: Session, submission_ids: Sequence[int]) -> dict[int, list[Scored]]:
    """`current_item_rows` with only what the fast path reads, as tuples (a bulk regrade reads
    every item of every submission)."""
    found: dict[int, list[Scored]] = {}
    if not submission_ids:
        return found
    rows = session.connection().execute(
        select(GradingRun.submission_id, ItemScore.item_id, ItemScore.points,
               ItemScore.max_points, ItemScore.status)
        .join(ItemScore, ItemScore.run_id == GradingRun.id)
        .where(GradingRun.submission_id.in_(submission_ids), GradingRun.is_current.is_(True))
        .order_by(GradingRun.submission_id, ItemScore.position)
    ).tuples().all()
    for sid, item, points, max_points, status in rows:
        found.setdefault(sid, []).append(Score(item, points, max_points, status))
    return found


@dataclass(frozen=True, slots=True)
class CopiedRun:
    """A new run made from a stored one (`copy_runs`): its rows are the stored run's, with
    `changed` (item id -> result) written over them."""

    submission_id: int
    old_run_id: int
    status: str
    total: Decimal
    max_points: Decimal
    keys: dict[str, Any]
    changed: Mapping[str, ItemResult]


_COPY_RUN = text(
    "INSERT INTO grading_runs (submission_id, rubric_version_id, rubric_hash, regrade_job_id, "
    "status, error, total, max_points, answers, execution_time, is_current, created_at, "
    "located_digest, result_keys) "
    "SELECT submission_id, :version, :rubric_hash, :job, :status, NULL, :total, :max_points, "
    "answers, :seconds, :current, :now, located_digest, :keys FROM grading_runs WHERE id = :old"
).bindparams(*(
    bindparam(name, type_=cast(Table, GradingRun.__table__).c[column].type)
    for name, column in (("total", "total"), ("max_points", "max_points"),
                         ("current", "is_current"), ("now", "created_at"),
                         ("keys", "result_keys"))
))
_COPY_ITEMS = (
    "INSERT INTO item_scores (run_id, position, item_id, question_id, points, max_points, "
    "status, feedback, student_feedback, evidence, confidence, grader, grader_version) "
    "SELECT :new, position, item_id, question_id, points, max_points, status, feedback, "
    "student_feedback, evidence, confidence, grader, grader_version "
    "FROM item_scores WHERE run_id = :old"
)


def _copy_items(skipped: int) -> TextClause:
    """The statement copying a run's item rows but `skipped` of them (:s0, :s1, ...)."""
    if not skipped:
        return text(_COPY_ITEMS)
    names = ", ".join(f":s{n}" for n in range(skipped))
    return text(f"{_COPY_ITEMS} AND item_id NOT IN ({names})")


def copy_runs(
    session: Session,
    runs: Sequence[CopiedRun],
    version_id: int,
    rubric_hash: str,
    regrade_job_id: int | None,
    positions: Mapping[str, int],
    seconds: float | None = None,
) -> int:
    """Store each as the submission's current run, copying the stored run's answers and item
    rows in SQL and writing only the changed items (at `positions`, item id -> its place in
    the run): a few statements per submission, never an ORM object per row. Returns the
    number stored (a submission deleted meanwhile is not)."""
    if not runs:
        return 0
    ids = [r.submission_id for r in runs]
    session.execute(
        update(GradingRun)
        .where(GradingRun.submission_id.in_(ids), GradingRun.is_current.is_(True))
        .values(is_current=False)
    )
    now = utcnow()
    session.execute(_COPY_RUN, [
        {"version": version_id, "rubric_hash": rubric_hash, "job": regrade_job_id,
         "status": r.status, "total": r.total, "max_points": r.max_points, "seconds": seconds,
         "current": True, "now": now, "keys": r.keys, "old": r.old_run_id}
        for r in runs
    ])
    new = dict(session.execute(
        select(GradingRun.submission_id, GradingRun.id)
        .where(GradingRun.submission_id.in_(ids), GradingRun.is_current.is_(True))
    ).tuples().all())
    stored = [r for r in runs if r.submission_id in new]
    if not stored:
        return 0
    # Unchanged rows are copied in SQL; the changed ones are not copied (to be overwritten)
    # but written once, as new rows at their item's place.
    by_skipped: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in stored:
        skipped = tuple(sorted(r.changed))
        by_skipped.setdefault(skipped, []).append(
            {"new": new[r.submission_id], "old": r.old_run_id,
             **{f"s{n}": clean(item, 100) for n, item in enumerate(skipped)}})
    for skipped, params in by_skipped.items():
        session.execute(_copy_items(len(skipped)), params)
    values: dict[int, tuple[ItemResult, dict[str, Any]]] = {}  # results are shared: clean once
    changed = [
        {"run_id": new[r.submission_id], "position": positions[item_id],
         "item_id": clean(item_id, 100), **_values_of(result, values)}
        for r in stored
        for item_id, result in r.changed.items()
    ]
    if changed:
        session.execute(insert(cast(Table, ItemScore.__table__)), changed)
    session.execute(
        update(cast(Table, Submission.__table__))
        .where(cast(Table, Submission.__table__).c.id == bindparam("sid"))
        .values(status=bindparam("st"), error=None, updated_at=bindparam("at")),
        [{"sid": r.submission_id, "st": r.status, "at": now} for r in stored],
    )
    return len(stored)


def _values_of(result: ItemResult, seen: dict[int, tuple[ItemResult, dict[str, Any]]]
               ) -> dict[str, Any]:
    found = seen.get(id(result))
    if found is None:
        found = seen[id(result)] = (result, _item_values(result))
    return found[1]

"""Regrade jobs and the submissions they still have to do. Flushes, never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import Session, undefer

from app.db.base import utcnow
from app.db.models import GradingRun, RegradeJob, Submission


def running_job(session: Session, assignment_id: int) -> RegradeJob | None:
    return session.scalar(
        select(RegradeJob)
        .where(RegradeJob.assignment_id == assignment_id, RegradeJob.status == "running")
        .order_by(RegradeJob.id.desc())
    )


def latest_job(session: Session, assignment_id: int) -> RegradeJob | None:
    return session.scalar(
        select(RegradeJob)
        .where(RegradeJob.assignment_id == assignment_id)
        .order_by(RegradeJob.id.desc())
        .limit(1)
    )


def add_job(
    session: Session, assignment_id: int, version_id: int, rubric_hash: str, total: int
) -> RegradeJob:
    job = RegradeJob(
        assignment_id=assignment_id,
        rubric_version_id=version_id,
        rubric_hash=rubric_hash,
        status="running",
        total=total,
    )
    session.add(job)
    session.flush()
    return job


def get_job(session: Session, job_id: int) -> RegradeJob | None:
    return session.get(RegradeJob, job_id)


def count_done(session: Session, job_id: int, done: int, changed: int) -> None:
    """Add a stored batch to the job's counts, in SQL: the workers of one regrade (and the
    grading processes' results) store batches in parallel transactions, and a count read and
    written back by each would lose the other's."""
    session.execute(
        update(RegradeJob)
        .where(RegradeJob.id == job_id)
        .values(done=RegradeJob.done + done, changed=RegradeJob.changed + changed,
                heartbeat_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def regraded_by(session: Session, job_id: int, ids: Sequence[int]) -> set[int]:
    """Those of `ids` the job has regraded already (stored under it)."""
    return set(session.scalars(
        select(GradingRun.submission_id)
        .where(GradingRun.submission_id.in_(list(ids)), GradingRun.regrade_job_id == job_id)
    ))


def finish_job(session: Session, job: RegradeJob, status: str = "done") -> None:
    job.status = status
    job.finished_at = utcnow()
    session.flush()


def count_submissions(session: Session, assignment_id: int) -> int:
    return int(
        session.scalar(
            select(func.count(Submission.id)).where(Submission.assignment_id == assignment_id)
        )
        or 0
    )


def ids_to_regrade(session: Session, assignment_id: int, job_id: int | None) -> list[int]:
    """Submission ids in order; with a job, only those it has not regraded yet (resume)."""
    query = select(Submission.id).where(Submission.assignment_id == assignment_id)
    if job_id is not None:
        done = exists().where(
            GradingRun.submission_id == Submission.id, GradingRun.regrade_job_id == job_id
        )
        query = query.where(~done)
    return list(session.scalars(query.order_by(Submission.id)))


def with_raw(session: Session, ids: Sequence[int]) -> list[Submission]:
    return list(
        session.scalars(
            select(Submission)
            .where(Submission.id.in_(ids))
            .options(undefer(Submission.raw))
            .order_by(Submission.id)
        )
    )

"""Regrade jobs as leases: at most one live job per assignment, whoever starts it (API or CLI);
and the submissions a job still has to do. Flushes, never commits.

A job is claimed in one write transaction that reads the assignment's running job and, when
there is none (or its runner stopped sending heartbeats), creates or takes it over. Everyone
else gets the live job back to poll: starting a regrade twice is the same as starting it once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import exists, func, select, update
from sqlalchemy.orm import Session, undefer

from app.assignments.service import current_rubric
from app.audit.repository import record
from app.db.base import utcnow
from app.db.models import Assignment, GradingRun, RegradeJob, Submission, User
from app.errors import NotFound
from app.sanitize import clean

# A runner writes a heartbeat after every stored batch (a few seconds to a minute apart).
DEFAULT_STALE_AFTER = timedelta(minutes=10)


class JobStatus(BaseModel):
    """A job as the API, the pages and the CLI show it."""

    model_config = ConfigDict(frozen=True)

    id: int
    assignment: str
    status: str = Field(description="running, done, failed or abandoned")
    rubric_hash: str
    total: int
    done: int
    changed: int
    error: str | None
    started_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class Claim:
    job_id: int
    ours: bool  # this caller must run it; otherwise another runner is alive and does
    resumed: bool  # an earlier runner stopped part-way; this one continues its work


def claim(session: Session, slug: str, actor: User | None,
          stale_after: timedelta = DEFAULT_STALE_AFTER) -> Claim:
    """The assignment's live job, or a new or taken-over one that the caller must run."""
    current = current_rubric(session, slug)
    assignment_id = current.assignment.id
    # Serialises claims on PostgreSQL (SQLite's immediate transactions already do).
    session.execute(select(Assignment.id).where(Assignment.id == assignment_id).with_for_update())
    rubric_hash = current.loaded.content_hash
    job = session.scalar(select(RegradeJob).where(
        RegradeJob.assignment_id == assignment_id, RegradeJob.status == "running"
    ).order_by(RegradeJob.id.desc()))
    # Live: a runner wrote a heartbeat lately (a job without one is there to be resumed).
    beat = None if job is None else job.heartbeat_at  # aware (app.db.base.UTCDateTime)
    if job is not None and beat is not None and utcnow() - beat < stale_after:
        return Claim(job.id, ours=False, resumed=False)
    if job is not None and job.rubric_hash != rubric_hash:
        finish_job(session, job, "abandoned")  # the rubric changed since
        job = None
    resumed = job is not None
    if job is None:
        total = session.scalar(select(func.count(Submission.id))
                               .where(Submission.assignment_id == assignment_id)) or 0
        job = RegradeJob(assignment_id=assignment_id, rubric_version_id=current.version.id,
                         rubric_hash=rubric_hash, status="running", total=total)
        session.add(job)
        session.flush()
        record(session, actor, "regrade.start", "assignment", slug,
               {"job": job.id, "rubric_hash": rubric_hash})
    job.heartbeat_at = utcnow()
    session.flush()
    return Claim(job.id, ours=True, resumed=resumed)


def release(session: Session, job_id: int) -> None:
    """The runner stopped without finishing: let the next claim take the job over now."""
    job = get_job(session, job_id)
    if job is not None and job.status == "running":
        job.heartbeat_at = None


def fail(session: Session, job_id: int, message: str) -> None:
    job = get_job(session, job_id)
    if job is not None and job.status == "running":
        job.error = clean(message, 2000)
        finish_job(session, job, "failed")


def get_job(session: Session, job_id: int) -> RegradeJob | None:
    return session.get(RegradeJob, job_id)


def finish_job(session: Session, job: RegradeJob, status: str = "done") -> None:
    job.status = status
    job.finished_at = utcnow()
    session.flush()


def _status(session: Session, job: RegradeJob | None, missing: str) -> JobStatus:
    if job is None:
        raise NotFound(missing)
    assignment = session.get(Assignment, job.assignment_id)
    return JobStatus(id=job.id, assignment="" if assignment is None else assignment.slug,
                     status=job.status, rubric_hash=job.rubric_hash, total=job.total,
                     done=job.done, changed=job.changed, error=job.error,
                     started_at=job.started_at, finished_at=job.finished_at)


def job_status(session: Session, job_id: int) -> JobStatus:
    return _status(session, get_job(session, job_id), f"There is no regrade job {job_id}.")


def latest_status(session: Session, slug: str) -> JobStatus:
    assignment = session.scalar(select(Assignment).where(Assignment.slug == slug))
    job = None if assignment is None else session.scalar(
        select(RegradeJob).where(RegradeJob.assignment_id == assignment.id)
        .order_by(RegradeJob.id.desc()).limit(1))
    return _status(session, job, f"Assignment {slug!r} has no regrade job.")


def count_done(session: Session, job_id: int, done: int, changed: int) -> None:
    """Add a stored batch to the job's counts, in SQL: the workers of one regrade (and the
    grading processes' results) store batches in parallel transactions, and a count read and
    written back by each would lose the other's."""
    session.execute(
        update(RegradeJob).where(RegradeJob.id == job_id)
        .values(done=RegradeJob.done + done, changed=RegradeJob.changed + changed,
                heartbeat_at=utcnow())
        .execution_options(synchronize_session=False))


def ids_to_regrade(session: Session, assignment_id: int, job_id: int | None) -> list[int]:
    """Submission ids in order; with a job, only those it has not regraded yet (resume)."""
    query = select(Submission.id).where(Submission.assignment_id == assignment_id)
    if job_id is not None:
        query = query.where(~exists().where(GradingRun.submission_id == Submission.id,
                                            GradingRun.regrade_job_id == job_id))
    return list(session.scalars(query.order_by(Submission.id)))


def with_raw(session: Session, ids: Sequence[int]) -> list[Submission]:
    return list(session.scalars(select(Submission).where(Submission.id.in_(ids))
                                .options(undefer(Submission.raw)).order_by(Submission.id)))

"""Regrade jobs as leases: at most one live job per assignment, whoever starts it (API or CLI).

A job is claimed in one write transaction that reads the assignment's running job and, when
there is none (or its runner stopped sending heartbeats), creates or takes it over. Everyone
else gets the live job back to poll: starting a regrade twice is the same as starting it once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assignments.service import current_rubric
from app.audit.repository import record
from app.db.base import utcnow
from app.db.models import Assignment, RegradeJob, User
from app.errors import NotFound
from app.regrade import repository
from app.sanitize import clean

# A runner writes a heartbeat after every stored batch (a few seconds to a minute apart).
DEFAULT_STALE_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class JobStatus:
    id: int
    assignment: str
    status: str
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


def _aware(moment: datetime | None) -> datetime | None:
    # SQLite hands back naive datetimes for what was written as UTC.
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def is_live(job: RegradeJob, stale_after: timedelta, now: datetime | None = None) -> bool:
    """A runner wrote a heartbeat lately. A job without one was interrupted before leases
    existed (or its runner never started): it is there to be resumed."""
    beat = _aware(job.heartbeat_at)
    return beat is not None and (now or utcnow()) - beat < stale_after


def claim(
    session: Session,
    slug: str,
    actor: User | None,
    stale_after: timedelta = DEFAULT_STALE_AFTER,
) -> Claim:
    """The assignment's live job, or a new or taken-over one that the caller must run."""
    current = current_rubric(session, slug)
    # Serialises claims on PostgreSQL (SQLite's immediate transactions already do).
    session.execute(
        select(Assignment.id).where(Assignment.id == current.assignment.id).with_for_update()
    )
    rubric_hash = current.loaded.content_hash
    job = repository.running_job(session, current.assignment.id)
    if job is not None and is_live(job, stale_after):
        return Claim(job.id, ours=False, resumed=False)
    if job is not None and job.rubric_hash != rubric_hash:
        repository.finish_job(session, job, "abandoned")  # the rubric changed since
        job = None
    resumed = job is not None
    if job is None:
        total = repository.count_submissions(session, current.assignment.id)
        job = repository.add_job(
            session, current.assignment.id, current.version.id, rubric_hash, total
        )
        record(
            session, actor, "regrade.start", "assignment", slug,
            {"job": job.id, "rubric_hash": rubric_hash},
        )
    job.heartbeat_at = utcnow()
    session.flush()
    return Claim(job.id, ours=True, resumed=resumed)


def release(session: Session, job_id: int) -> None:
    """The runner stopped without finishing: let the next claim take the job over now."""
    job = repository.get_job(session, job_id)
    if job is not None and job.status == "running":
        job.heartbeat_at = None


def fail(session: Session, job_id: int, message: str) -> None:
    job = repository.get_job(session, job_id)
    if job is not None and job.status == "running":
        job.error = clean(message, 2000)
        repository.finish_job(session, job, "failed")


def _status(session: Session, job: RegradeJob) -> JobStatus:
    assignment = session.get(Assignment, job.assignment_id)
    return JobStatus(
        id=job.id,
        assignment="" if assignment is None else assignment.slug,
        status=job.status,
        rubric_hash=job.rubric_hash,
        total=job.total,
        done=job.done,
        changed=job.changed,
        error=job.error,
        started_at=job.started_at,
        finished_at=job.finished_at,
    )


def job_status(session: Session, job_id: int) -> JobStatus:
    job = repository.get_job(session, job_id)
    if job is None:
        raise NotFound(f"There is no regrade job {job_id}.")
    return _status(session, job)


def latest_status(session: Session, slug: str) -> JobStatus:
    assignment = session.scalar(select(Assignment).where(Assignment.slug == slug))
    job = None if assignment is None else repository.latest_job(session, assignment.id)
    if job is None:
        raise NotFound(f"Assignment {slug!r} has no regrade job.")
    return _status(session, job)

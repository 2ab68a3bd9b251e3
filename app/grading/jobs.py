"""A unit of grading work, built from stored rows, and the executor interface."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assignments.repository import current_version
from app.db.models import RubricVersion, Submission, SubmissionStatus


@dataclass(frozen=True)
class GradingJob:
    submission_id: int
    rubric_version_id: int
    rubric_text: str
    raw: bytes
    filename: str | None
    content_type: str | None


def job_for(submission: Submission, version: RubricVersion) -> GradingJob:
    return GradingJob(
        submission_id=submission.id,
        rubric_version_id=version.id,
        rubric_text=version.source_text,
        raw=submission.raw,
        filename=submission.filename,
        content_type=submission.content_type,
    )


class Executor(Protocol):
    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None] | None:
        """Grade in the background. With `track`, a future that resolves once the run is
        stored; without, the executor may return None (nothing waits for it)."""

    def local_pool(self) -> concurrent.futures.Executor | None:
        """A process pool in this process that bulk work (regrades) may share, if any."""

    def shutdown(self) -> None: ...


def unfinished_jobs(session: Session, batch: int = 100) -> Iterator[GradingJob]:
    """Submissions accepted but never graded (the server stopped): grade them now."""
    statuses = (SubmissionStatus.QUEUED.value, SubmissionStatus.GRADING.value)
    versions: dict[int, RubricVersion | None] = {}
    rows = session.scalars(
        select(Submission)
        .where(Submission.status.in_(statuses))
        .order_by(Submission.id)
        .execution_options(yield_per=batch)
    )
    for submission in rows:
        if submission.assignment_id not in versions:
            versions[submission.assignment_id] = current_version(session, submission.assignment_id)
        version = versions[submission.assignment_id]
        if version is not None:
            yield job_for(submission, version)

"""A unit of grading work, built from stored rows, and the executor interface."""

from __future__ import annotations

import concurrent.futures
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

from app.db.models import RubricVersion, Submission


@dataclass(frozen=True)
class GradingJob:
    submission_id: int
    rubric_version_id: int
    rubric_text: str
    raw: bytes
    filename: str | None
    content_type: str | None
    # Earlier attempts whose grading process died: a retry runs alone, after a backoff.
    attempts: int = 0
    # What grading learned from the instructor's grades (`app.calibration.context`, JSON).
    context: str | None = None
    # The handout edition the submission declares (its `handout` column).
    handout: str | None = None
    # Whose turn this job takes in a fair queue: the student it is filed under, else the
    # uploader (app/grading/fair.py).
    owner: str = ""
    # The file its rubric was loaded from (`rubric_versions.source_name`): where a grading
    # process that never read it finds its code batteries.
    rubric_source: str | None = None
    # The battery files kept with the version (`rubric_versions.battery_files`): what it is
    # graded with, wherever that file is now.
    rubric_files: bytes | None = None


def job_for(
    submission: Submission, version: RubricVersion, context: str | None = None
) -> GradingJob:
    return GradingJob(
        submission_id=submission.id,
        rubric_version_id=version.id,
        rubric_text=version.source_text,
        rubric_source=version.source_name,
        rubric_files=version.battery_files,
        raw=submission.raw,
        filename=submission.filename,
        content_type=submission.content_type,
        attempts=submission.attempts,
        context=context,
        handout=submission.handout,
        owner=owner_of(submission.student, submission.uploader_id),
    )


def owner_of(student: str | None, uploader_id: int | None) -> str:
    """One key per student, whoever uploaded (a student, or staff on a student's behalf)."""
    if student:
        return f"student:{student}"
    return f"uploader:{uploader_id}" if uploader_id is not None else "anonymous"


class Executor(Protocol):
    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None] | None:
        """Grade in the background. With `track`, a future that resolves once the run is
        stored (or the job was given back to the queue: the submission then says `queued`);
        without, the executor may return None (nothing waits for it)."""

    def local_pool(self) -> concurrent.futures.Executor | None:
        """A process pool in this process that bulk work (regrades) may share, if any."""

    def held(self) -> frozenset[int]:
        """Submissions this executor holds (queued, grading or storing): their leases are
        renewed, and the sweeper never hands them out again."""

    def shutdown(self, grace: float | None = None) -> None:
        """Stop; running jobs get `grace` seconds (None: all they need), the rest are given
        back to the queue."""

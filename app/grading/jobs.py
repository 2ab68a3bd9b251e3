"""The grading queue: jobs built from stored rows, who holds them until when (leases, bounded
attempts), and the sweeper that hands out what nobody holds.

A queued or grading submission is held by one executor until `lease_until`. A live holder
renews its leases; when one runs out the holder died (a killed server or worker, a result that
could not be written, a broker that lost the message), and the sweeper hands the submission out
again. Storing a result is idempotent: a submission that is already final keeps its run, so a
job handed out twice is never graded twice.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, sessionmaker, undefer

from app.assignments.repository import current_version
from app.db.base import utcnow
from app.db.models import RubricVersion, Submission, SubmissionStatus
from app.db.session import unit_of_work
from app.grading.repository import mark_failed, store_outcomes
from app.grading.retry import GradingProcessDied
from app.grading.worker import RubricText, WorkerOutcome

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GradingJob:
    submission_id: int
    rubric_version_id: int
    rubric: RubricText  # the version's text, the file it was loaded from, its battery files
    raw: bytes
    filename: str | None
    content_type: str | None
    # Earlier attempts whose grading process died: a retry runs alone, after a backoff.
    attempts: int = 0
    # What grading learned from the instructor's grades (`app.calibration.context`, JSON).
    context: str | None = None
    # The handout edition the submission declares (its `handout` column).
    handout: str | None = None
    # Whose turn this job takes (app/grading/retry.py `FairQueue`, app/worker/executor.py's
    # priorities): the student it is filed under, else the uploader.
    student: str | None = None
    uploader_id: int | None = None

    @property
    def owner(self) -> str:
        """One key per student, whoever uploaded (a student, or staff on a student's behalf)."""
        if self.student:
            return f"student:{self.student}"
        return f"uploader:{self.uploader_id}" if self.uploader_id is not None else "anonymous"

    def arguments(self) -> tuple[Any, ...]:
        """`grade_document`'s arguments (app/grading/worker.py) for this job."""
        return (self.rubric, self.raw, self.filename, self.content_type, None, self.context,
                self.submission_id, self.handout)


def job_for(submission: Submission, version: RubricVersion, context: str | None = None
            ) -> GradingJob:
    s = submission
    return GradingJob(
        submission_id=s.id, rubric_version_id=version.id, rubric=RubricText.of_version(version),
        raw=s.raw, filename=s.filename, content_type=s.content_type, attempts=s.attempts,
        context=context, handout=s.handout, student=s.student, uploader_id=s.uploader_id)


class Executor(Protocol):
    def enqueue(self, job: GradingJob, *, track: bool = False) -> Future[None] | None:
        """Grade in the background. With `track`, a future that resolves once the run is
        stored (or the job was given back to the queue: the submission then says `queued`);
        without, the executor may return None (nothing waits for it)."""

    def held(self) -> frozenset[int]:
        """Submissions this executor holds (queued, grading or storing): their leases are
        renewed, and the sweeper never hands them out again."""

    def shutdown(self, grace: float | None = None) -> None:
        """Stop; running jobs get `grace` seconds (None: all they need), the rest are given
        back to the queue."""


UNFINISHED = (SubmissionStatus.QUEUED.value, SubmissionStatus.GRADING.value)
CHUNK = 500


def lease_until(seconds: float) -> datetime:
    return utcnow() + timedelta(seconds=seconds)


def _update(session: Session, ids: Collection[int], values: Mapping[str, Any],
            unfinished: bool = True) -> None:
    """`values` set on the submissions `ids` (only those still unfinished), CHUNK at a time."""
    ordered = sorted(ids)
    for start in range(0, len(ordered), CHUNK):
        query = update(Submission).where(Submission.id.in_(ordered[start : start + CHUNK]))
        if unfinished:
            query = query.where(Submission.status.in_(UNFINISHED))
        session.execute(query.values(values).execution_options(synchronize_session=False))


def renew(session: Session, ids: Collection[int], seconds: float) -> None:
    """The holder is alive: keep what it holds."""
    _update(session, ids, {"lease_until": lease_until(seconds)})


def release(session: Session, ids: Collection[int]) -> None:
    """Give back unfinished work (shutdown, a failed publish): queued, free for anyone now."""
    _update(session, ids, {"status": SubmissionStatus.QUEUED.value, "lease_until": None,
                           "claimed_by": None})


def record_deaths(session: Session, ids: Collection[int]) -> None:
    """A grading process died with these in flight: one more attempt each."""
    _update(session, ids, {"attempts": Submission.attempts + 1}, unfinished=False)


def take(session: Session, seconds: float, exclude: Collection[int] = (), after_id: int = 0,
         everything: bool = False) -> tuple[list[GradingJob], int | None]:
    """One page of unfinished submissions (ids above `after_id`) whose lease ran out, or all of
    them with `everything` (only for a sole owner: the local executor at start), minus those in
    `exclude`, leased to the caller for `seconds`; and where the next page starts (None: nothing
    was left)."""
    query = select(Submission).where(Submission.status.in_(UNFINISHED), Submission.id > after_id)
    if not everything:
        expired = or_(Submission.lease_until.is_(None), Submission.lease_until < utcnow())
        query = query.where(expired)
    page = list(session.scalars(
        query.order_by(Submission.id).limit(CHUNK).options(undefer(Submission.raw))))
    from app.calibration.service import context_text

    rubric_of = functools.cache(lambda assignment: (current_version(session, assignment),
                                                    context_text(session, assignment)))
    jobs: list[GradingJob] = []
    # Held in this process already (their leases are renewed): never handed out twice.
    for submission in (s for s in page if s.id not in exclude):
        version, context = rubric_of(submission.assignment_id)
        if version is not None:
            if submission.claimed_by is not None:
                # A Celery task's claim ran out: that holder is taken for dead (a live task is
                # stopped at its time limit, before its claim ends). Free the claim, or the task
                # published now finds it held (the lease renewed below) and the submission waits
                # forever; a holder that was only cut off finds its claim gone, stores nothing.
                submission.claimed_by = None
                submission.status = SubmissionStatus.QUEUED.value
            jobs.append(job_for(submission, version, context))
    renew(session, [j.submission_id for j in jobs], seconds)
    return jobs, page[-1].id if len(page) == CHUNK else None


def claim(session: Session, submission_id: int, holder: str, seconds: float, max_attempts: int
          ) -> Submission | str:
    """Take a submission for grading, once: a final one is left alone, one held by another
    live task too; a redelivered message (same task id) takes back its own claim. The
    submission, or why not: "gone", "done", "held", "gave up"."""
    submission = session.scalar(select(Submission).where(Submission.id == submission_id)
                                .options(undefer(Submission.raw)).with_for_update())
    if submission is None:
        return "gone"
    if submission.status not in UNFINISHED:
        return "done"
    if (submission.status == SubmissionStatus.GRADING.value and submission.claimed_by != holder
            and submission.lease_until is not None and submission.lease_until > utcnow()):
        return "held"
    if submission.attempts >= max_attempts:
        mark_failed(session, [submission_id], str(GradingProcessDied(submission.attempts)))
        return "gave up"
    submission.status = SubmissionStatus.GRADING.value
    submission.claimed_by = holder
    submission.lease_until = lease_until(seconds)
    submission.attempts = submission.attempts + 1
    return submission


def store_if_unfinished(session: Session, outcomes: Sequence[tuple[int, int, WorkerOutcome]],
                        holder: str | None = None) -> int:
    """Store results of submissions still waiting for one (and, with `holder`, still claimed
    by it); a result for a submission graded meanwhile is dropped. Returns how many stored."""
    if not outcomes:
        return 0
    ids = [submission_id for submission_id, _, _ in outcomes]
    query = select(Submission.id).where(Submission.id.in_(ids), Submission.status.in_(UNFINISHED))
    if holder is not None:
        query = query.where(Submission.claimed_by == holder).with_for_update()
    waiting = set(session.scalars(query))
    kept = [o for o in outcomes if o[0] in waiting]
    store_outcomes(session, kept)
    _update(session, [o[0] for o in kept], {"lease_until": None, "claimed_by": None},
            unfinished=False)
    return len(kept)


def sweep(sessions: sessionmaker[Session], executor: Executor, lease_seconds: float,
          everything: bool = False) -> int:
    """One sweep; returns how many submissions it enqueued. `everything`: take every unfinished
    submission whatever its lease (the sole owner of the database, at start)."""
    held = executor.held()
    if held:
        with unit_of_work(sessions) as session:
            renew(session, held, lease_seconds)
    enqueued = 0
    after: int | None = 0
    while after is not None:
        with unit_of_work(sessions) as session:
            jobs, after = take(session, lease_seconds, held, after, everything)
        for job in jobs:
            executor.enqueue(job)
        enqueued += len(jobs)
    return enqueued


class Sweeper(threading.Thread):
    """Every interval, renews what this process holds and hands out what nobody does."""

    def __init__(self, sessions: sessionmaker[Session], executor: Executor, interval: float,
                 lease_seconds: float) -> None:
        super().__init__(name="grading-sweeper", daemon=True)
        self._sweep = (sessions, executor, lease_seconds)
        self._interval = interval
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()
        if self.is_alive():
            self.join()

    def run(self) -> None:
        while not self._stopped.wait(self._interval):
            try:
                found = sweep(*self._sweep)
            except Exception:  # the database is down or locked: try again next interval
                log.exception("sweeping for unfinished submissions failed")
                continue
            if found:
                log.warning("sweeper: %d unfinished submissions had no live holder; enqueued",
                            found)

"""Storing and queueing an upload that has been read: the one path behind the API's upload and
the web app's submit pages (the document read in a bounded helper process, the student's
storage quota, the idempotent store, then grading)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass

from fastapi import Request, status
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.auth.roles import is_staff
from app.db.models import SubmissionStatus, User
from app.db.session import unit_of_work
from app.grading.jobs import Executor
from app.settings import Settings
from app.submissions import service
from app.submissions.admission import JobsWaiting
from app.submissions.decoding import DocumentReader
from app.submissions.intake import Stored, SubmissionIntake
from app.submissions.limits import UploadLimits
from app.submissions.service import NewSubmission
from app.submissions.upload import Upload
from graders.documents.strength import doubt_in


@dataclass(frozen=True)
class Received:
    submission_id: int
    status: str
    code: int  # 201 graded (wait), 202 queued, 200 a replay of a graded upload
    message: str | None = None  # "Needs review: does this answer this assignment? ..."


def _final_status(
    sessions: sessionmaker[Session], submission_id: int, user: User
) -> tuple[str, str | None]:
    """The graded submission's status, and the doubt that it answers this assignment."""
    with unit_of_work(sessions) as session:
        score = service.get_scored(session, submission_id, user).score
        return score.status, doubt_in(item.feedback for item in score.items)


async def _store_in_turn(intake: SubmissionIntake, new: NewSubmission, user: User,
                         hold_seconds: float) -> Stored:
    """Stored; or, while the student has as many uploads waiting for grading as they may, held
    back (polling the writer, which counts them in its transaction) until one is graded: a
    student who uploads one file after another faster than they are graded waits for their own
    jobs instead of being refused, and never has more waiting. Past `hold_seconds`, the 429."""
    deadline = time.monotonic() + hold_seconds
    pause = 0.05
    while True:
        try:
            return await intake.store(new, user)
        except JobsWaiting:
            if time.monotonic() + pause > deadline:
                raise
        await asyncio.sleep(pause)
        pause = min(0.5, pause * 1.5)


async def receive(
    request: Request,
    slug: str,
    user: User,
    upload: Upload,
    *,
    wait: bool = False,
    idempotency_key: str | None = None,
) -> Received:
    """Store `upload` as `user`'s submission of `slug` and queue it (or, `wait`, grade it)."""
    settings: Settings = request.app.state.settings
    executor: Executor = request.app.state.executor
    intake: SubmissionIntake = request.app.state.intake
    limits: UploadLimits = request.app.state.upload_limits
    own_quota = not is_staff(user)
    reader: DocumentReader = request.app.state.document_reader
    # The upload's own fields first (its size, the declared edition), then its document, read
    # in a helper process however it is named or disguised: this process parses none of it.
    service.check_fields(upload, settings.max_upload_bytes)
    document = await reader.read_document(upload.raw, upload.filename, upload.content_type,
                                          owner=user.id)
    new = service.prepare(slug, upload, user, settings.max_upload_bytes, document=document)
    if idempotency_key is not None:
        new = dataclasses.replace(new, idempotency_key=idempotency_key)
    if own_quota:
        if not limits.known(user.id):
            await run_in_threadpool(limits.load, user.id)
        limits.reserve(user.id, len(new.raw))
    try:
        stored = await _store_in_turn(intake, new, user, settings.upload_turn_seconds)
    except BaseException:
        if own_quota:
            limits.release(user.id, len(new.raw))
        raise
    # The raw bytes are committed before any grading starts: an accepted upload is never lost,
    # whatever happens to the grading process afterwards.
    if stored.replayed:  # the client's retry of an upload already stored: the same answer
        if own_quota:
            limits.release(user.id, len(new.raw))
        graded = SubmissionStatus(stored.status).is_final
        code = status.HTTP_200_OK if graded else status.HTTP_202_ACCEPTED
        return Received(stored.submission_id, stored.status, code)
    done = executor.enqueue(stored.job, track=wait)
    if not wait or done is None:
        return Received(stored.submission_id, SubmissionStatus.QUEUED, status.HTTP_202_ACCEPTED)
    await asyncio.wrap_future(done)
    final, doubt = await run_in_threadpool(
        _final_status, request.app.state.read_sessions, stored.submission_id, user
    )
    message = f"Needs review: {doubt}" if doubt else None
    # Waited for, yet not graded (on Celery, a broker that refused the job: it stays in the
    # outbox): stored, as a 202 says; a 201 would tell the client it was graded.
    graded = SubmissionStatus(final).is_final
    code = status.HTTP_201_CREATED if graded else status.HTTP_202_ACCEPTED
    return Received(stored.submission_id, final, code, message)

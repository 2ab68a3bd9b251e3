"""Upload, read and list submissions."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response, status
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.assignments.service import current_rubric
from app.auth.dependencies import CurrentUser
from app.db.models import SubmissionStatus, User
from app.db.session import unit_of_work
from app.deps import ExecutorDep, SessionDep, SettingsDep
from app.errors import InvalidInput
from app.submissions import service
from app.submissions.intake import SubmissionIntake
from app.submissions.schemas import Accepted, SubmissionOut, SubmissionSummary
from app.submissions.upload import read_upload

router = APIRouter(prefix="/api/v1", tags=["submissions"])

_UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The document itself (JSON answers, text, Markdown, LaTeX, .py, .ipynb, "
        "PDF), or a multipart form with the document in `file` (and optionally `student`).",
        "content": {
            "application/json": {
                "schema": {"type": "object"},
                "example": {"student_id": "s1", "answers": {"B1": "64", "b1.per_matrix": "589824"}},
            },
            "text/plain": {"schema": {"type": "string"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "student": {"type": "string"},
                    },
                    "required": ["file"],
                }
            },
        },
    }
}


# Documents up to this size are checked on the event loop: a thread hop would cost more than
# reading them. Bigger ones, and PDFs (text extraction), are checked on a worker thread.
INLINE_CHECK_BYTES = 32 * 1024


def _require_rubric(sessions: sessionmaker[Session], slug: str) -> None:
    with unit_of_work(sessions) as session:
        current_rubric(session, slug)


def _final_status(sessions: sessionmaker[Session], submission_id: int, user: User) -> str:
    with unit_of_work(sessions) as session:
        return service.get_scored(session, submission_id, user).score.status


def _answer(submission_id: int, state: str, code: int) -> Response:
    # A ready Response: FastAPI would otherwise validate the value against `response_model`
    # and encode it a second time, on the busiest route of the service.
    body = Accepted(id=submission_id, status=state).model_dump_json()
    return Response(body, status_code=code, media_type="application/json")


def _valid_key(key: str) -> bool:
    return 0 < len(key) <= 200 and key.isascii() and key.isprintable()


@router.post(
    "/assignments/{slug}/submissions",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=Accepted,
    responses={201: {"model": Accepted, "description": "Graded before answering (`wait=true`)"}},
    openapi_extra=_UPLOAD_BODY,
)
async def upload(
    slug: str,
    request: Request,
    settings: SettingsDep,
    executor: ExecutorDep,
    user: CurrentUser,
    wait: Annotated[bool, Query(description="Grade before answering (201).")] = False,
    student: Annotated[
        str | None, Query(description="File under this student (staff only).")
    ] = None,
    idempotency_key: Annotated[
        str | None,
        Header(
            description="Any unique string (a UUID): sending the same upload again with the "
            "same key returns the submission stored the first time instead of a duplicate."
        ),
    ] = None,
) -> Response:
    intake: SubmissionIntake = request.app.state.intake
    if not intake.knows(slug):
        # An unknown assignment is reported as such before anything about the document.
        await run_in_threadpool(_require_rubric, request.app.state.read_sessions, slug)
    upload = await read_upload(request, settings.max_upload_bytes)
    if idempotency_key is not None and not _valid_key(idempotency_key):
        raise InvalidInput("Idempotency-Key must be 1 to 200 printable ASCII characters.")
    if student and upload.student is None:
        upload = dataclasses.replace(upload, student=student.strip())
    if len(upload.raw) <= INLINE_CHECK_BYTES and b"%PDF" not in upload.raw[:1024]:
        new = service.prepare(slug, upload, user, settings.max_upload_bytes)
    else:
        new = await run_in_threadpool(
            service.prepare, slug, upload, user, settings.max_upload_bytes
        )
    # The raw bytes are committed before any grading starts: an accepted upload is never lost,
    # whatever happens to the grading process afterwards.
    if idempotency_key is not None:
        new = dataclasses.replace(new, idempotency_key=idempotency_key)
    stored = await intake.store(new, user)
    if stored.replayed:  # the client's retry of an upload already stored: the same answer
        graded = SubmissionStatus(stored.status).is_final
        code = status.HTTP_200_OK if graded else status.HTTP_202_ACCEPTED
        return _answer(stored.submission_id, stored.status, code)
    done = executor.enqueue(stored.job, track=wait)
    if not wait or done is None:
        return _answer(stored.submission_id, SubmissionStatus.QUEUED, status.HTTP_202_ACCEPTED)
    await asyncio.wrap_future(done)
    final = await run_in_threadpool(
        _final_status, request.app.state.read_sessions, stored.submission_id, user
    )
    return _answer(stored.submission_id, final, status.HTTP_201_CREATED)


@router.get("/submissions/{submission_id}", response_model=SubmissionOut)
def get_submission(submission_id: int, session: SessionDep, user: CurrentUser) -> SubmissionOut:
    return SubmissionOut.of(service.get_scored(session, submission_id, user))


@router.get("/assignments/{slug}/submissions", response_model=list[SubmissionSummary])
def list_submissions(
    slug: str,
    session: SessionDep,
    user: CurrentUser,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[SubmissionSummary]:
    return [
        SubmissionSummary.of(s) for s in service.list_scored(session, slug, user, limit, offset)
    ]

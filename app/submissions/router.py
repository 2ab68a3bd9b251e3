"""Upload, read and list submissions."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response, status
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.auth.dependencies import CurrentUser
from app.db.models import User
from app.deps import ExecutorDep, SessionDep, SettingsDep
from app.submissions import service
from app.submissions.schemas import Accepted, SubmissionOut, SubmissionSummary
from app.submissions.upload import Upload, read_upload

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


def _accept_and_commit(
    session: Session, slug: str, upload: Upload, user: User, max_bytes: int
) -> service.Accepted:
    accepted = service.accept(session, slug, upload, user, max_bytes)
    session.commit()
    return accepted


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
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    executor: ExecutorDep,
    user: CurrentUser,
    wait: Annotated[bool, Query(description="Grade before answering (201).")] = False,
    student: Annotated[
        str | None, Query(description="File under this student (staff only).")
    ] = None,
) -> Accepted:
    upload = await read_upload(request, settings.max_upload_bytes)
    if student and upload.student is None:
        upload = dataclasses.replace(upload, student=student.strip())
    # The raw bytes are durable before any grading starts: an accepted upload is never lost,
    # whatever happens to the grading process afterwards.
    accepted = await run_in_threadpool(
        _accept_and_commit, session, slug, upload, user, settings.max_upload_bytes
    )
    done = executor.enqueue(accepted.job, track=wait)
    if not wait or done is None:
        return Accepted(id=accepted.submission.id, status=accepted.submission.status)
    await asyncio.wrap_future(done)
    session.expire_all()  # the writer stored the run in its own transaction
    scored = await run_in_threadpool(service.get_scored, session, accepted.submission.id, user)
    response.status_code = status.HTTP_201_CREATED
    return Accepted(id=scored.submission.id, status=scored.score.status)


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

"""Upload, read and list submissions."""

from __future__ import annotations

import dataclasses
from contextlib import nullcontext
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response, status
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.assignments.service import current_rubric
from app.auth.dependencies import CurrentUser, InstructorUser, is_staff
from app.db.models import CountedSubmission, User
from app.db.session import unit_of_work
from app.deps import MAX_ID, ClockDep, IdPath, SessionDep, SettingsDep
from app.errors import InvalidInput
from app.settings import Settings
from app.submissions import service
from app.submissions.counting import counted_per_student, student_key
from app.submissions.filing import staff_student
from app.submissions.intake import SubmissionIntake
from app.submissions.limits import UploadLimits
from app.submissions.receive import Received, receive
from app.submissions.schemas import (
    Accepted,
    StudentSubmissionOut,
    StudentSubmissionSummary,
    SubmissionOut,
    SubmissionSummary,
)
from app.submissions.upload import Upload, read_upload
from app.submissions.visibility import student_score, view_for

router = APIRouter(prefix="/api/v1", tags=["submissions"])

_UPLOAD_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The document itself (JSON answers, text, Markdown, LaTeX, .py, .ipynb, "
        "PDF), or a multipart form with the document in `file` (and optionally `student` and "
        "`handout`).",
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
                        "handout": {"type": "string", "maxLength": 40},
                    },
                    "required": ["file"],
                }
            },
        },
    }
}


def _require_rubric(sessions: sessionmaker[Session], slug: str) -> None:
    with unit_of_work(sessions) as session:
        current_rubric(session, slug)


STUDENT_HOW = ("add ?student=ID (or a multipart `student` field), or upload it as a multipart "
               "file named after the student (alice.txt for alice)")


def _staff_student(sessions: sessionmaker[Session], slug: str, upload: Upload) -> str:
    with unit_of_work(sessions) as session:
        return staff_student(session, slug, upload.student, upload.filename, STUDENT_HOW)


def _answer(submission_id: int, state: str, code: int, message: str | None = None) -> Response:
    # A ready Response: FastAPI would otherwise validate the value against `response_model`
    # and encode it a second time, on the busiest route of the service.
    body = Accepted(id=submission_id, status=state, message=message).model_dump_json(
        exclude_none=True)
    return Response(body, status_code=code, media_type="application/json")


def _valid_key(key: str) -> bool:
    return 0 < len(key) <= 200 and key.isascii() and key.isprintable()


@router.post(
    "/assignments/{slug}/submissions",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=Accepted,
    responses={201: {"model": Accepted, "description": "Graded before answering (`wait=true`)"}},
    openapi_extra=_UPLOAD_BODY,
    summary="Upload a submission",
)
async def upload(
    slug: str,
    request: Request,
    settings: SettingsDep,
    user: CurrentUser,
    wait: Annotated[bool, Query(description="Grade before answering (201).")] = False,
    student: Annotated[
        str | None,
        Query(
            max_length=200,
            description="File under this student (staff only; a student's uploads are "
            "always their own). Without it a staff upload is filed under its multipart file "
            "name (alice.txt: alice), never under a name the document claims; with neither it "
            "is refused (422). With a roster loaded, only a student on it.",
        ),
    ] = None,
    handout: Annotated[
        str | None,
        Query(
            max_length=200,
            description="The handout edition this submission answers, one of the rubric's "
            "`handouts` (also a multipart field; a JSON submission may say it in its own "
            "`handout` key). A question that edition does not ask is not counted.",
        ),
    ] = None,
    idempotency_key: Annotated[
        str | None,
        Header(
            description="Any unique string (a UUID): sending the same upload again with the "
            "same key returns the submission stored the first time instead of a duplicate."
        ),
    ] = None,
) -> Response:
    """Store a document (raw bytes, or multipart `file`) as a submission of the assignment
    and queue it for grading: 202 with its id (poll `GET /api/v1/submissions/{id}`), or with
    `wait=true` 201 once graded. The bytes are committed before grading starts; a retry with
    the same `Idempotency-Key` answers with the submission stored the first time (200 or 202).

    Errors: 401 no or an unknown token; 403 the assignment is not open, or past its cut-off;
    404 unknown assignment; 408 the body arrived too slowly; 409 the student's submission
    limit is reached, or the `Idempotency-Key` named another document or assignment; 413
    larger than the upload limit, or the student's storage quota is used up; 415 a compressed
    body (`Content-Encoding` other than identity: send the document itself); 422 unreadable or
    unsupported document, a staff upload with no student (neither `student` nor a file name)
    or one not on the assignment's roster, a bad `Idempotency-Key`, or a `handout` the rubric
    does not grade (`unknown-handout`, its editions in `allowed`); 429 too many uploads by this
    student, as many of theirs in progress at once as a student may have, or their earlier
    documents still being read (see `Retry-After`); 503 documents cannot be read right now
    (retry shortly)."""
    intake: SubmissionIntake = request.app.state.intake
    limits: UploadLimits = request.app.state.upload_limits
    own_quota = not is_staff(user)
    if own_quota:
        limits.take(user.id)  # before the body is read: a flood costs no reading
    with limits.receiving(user.id) if own_quota else nullcontext():
        received = await _receive(request, slug, user, settings, intake, wait=wait,
                                  student=student, handout=handout,
                                  idempotency_key=idempotency_key)
    return _answer(received.submission_id, received.status, received.code, received.message)


async def _receive(request: Request, slug: str, user: User, settings: Settings,
                   intake: SubmissionIntake, *, wait: bool, student: str | None,
                   handout: str | None, idempotency_key: str | None) -> Received:
    own_quota = not is_staff(user)
    if not intake.knows(slug):
        # An unknown assignment is reported as such before anything about the document.
        await run_in_threadpool(_require_rubric, request.app.state.read_sessions, slug)
    upload = await read_upload(request, settings.max_upload_bytes)
    if idempotency_key is not None and not _valid_key(idempotency_key):
        raise InvalidInput("Idempotency-Key must be 1 to 200 printable ASCII characters.")
    # A staff upload is filed under the explicit `student` parameter (query or form), else its
    # file name, never under a name the document claims for itself, and never under nobody.
    if student and upload.student is None:
        upload = dataclasses.replace(upload, student=student.strip())
    if not own_quota:
        upload = dataclasses.replace(upload, student=await run_in_threadpool(
            _staff_student, request.app.state.read_sessions, slug, upload))
    if handout is not None and upload.handout is None:
        upload = dataclasses.replace(upload, handout=handout)
    return await receive(request, slug, user, upload, wait=wait,
                         idempotency_key=idempotency_key)


@router.get(
    "/submissions/{submission_id}",
    response_model=SubmissionOut | StudentSubmissionOut,
    summary="Read a submission and its scores",
)
def get_submission(
    submission_id: IdPath, session: SessionDep, user: CurrentUser, clock: ClockDep
) -> SubmissionOut | StudentSubmissionOut:
    """Staff see everything (scores, staff feedback, located answers, and per item
    `student_sees`: what its student reads now and once the grades are published); a student
    sees their own submission, with scores and feedback only as far as the rubric's release
    allows.

    Errors: 401 no or an unknown token; 404 no such submission, or (a student) not theirs."""
    scored = service.get_scored(session, submission_id, user)
    view = view_for(session, scored, clock())
    if is_staff(user):
        return SubmissionOut.of(scored, view)
    return StudentSubmissionOut.of_student(scored, student_score(scored, view))


@router.get(
    "/assignments/{slug}/submissions",
    response_model=list[SubmissionSummary] | list[StudentSubmissionSummary],
    summary="List an assignment's submissions",
)
def list_submissions(
    slug: str,
    session: SessionDep,
    user: CurrentUser,
    clock: ClockDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> list[SubmissionSummary] | list[StudentSubmissionSummary]:
    """Staff: every submission of the assignment, newest first, paged by `limit`/`offset`.
    A student: their own, with released scores and which one counts.

    Errors: 401 no or an unknown token; 404 unknown assignment; 422 `limit` or `offset` out
    of range."""
    if is_staff(user):
        return [
            SubmissionSummary.of(s)
            for s in service.list_scored(session, slug, user, limit, offset)
        ]
    own = service.list_own_scored(session, slug, user)
    if not own:
        return []
    view = view_for(session, own[0], clock())
    counted = counted_per_student(own, view.schedule)
    # Which one is best would tell a student how unreleased scores compare.
    hidden = view.schedule.counts == CountedSubmission.BEST and not view.state.published
    return [
        StudentSubmissionSummary.of(
            s, student_score(s, view), None if hidden else counted.get(student_key(s)) is s
        )
        for s in own[offset : offset + limit]
    ]


@router.put(
    "/submissions/{submission_id}/chosen",
    response_model=SubmissionSummary,
    summary="Choose the submission that counts",
)
def choose_submission(
    submission_id: IdPath, session: SessionDep, user: InstructorUser
) -> SubmissionSummary:
    """Mark the submission that counts for its student (assignments that count `chosen`).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 no such submission; 422
    the assignment does not count a chosen submission."""
    submission = service.choose(session, submission_id, user)
    return SubmissionSummary.of(service.scored(session, [submission])[0])

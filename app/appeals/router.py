"""Regrade requests over HTTP: a student asks about one released item, staff list and answer."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, Field

from app.appeals import service
from app.appeals.models import RegradeRequest
from app.assignments.service import require_assignment
from app.auth.dependencies import CurrentUser, InstructorUser, is_staff
from app.deps import ClockDep, IdPath, SessionDep, SettingsDep
from app.points import JsonPoints

router = APIRouter(prefix="/api/v1", tags=["regrade requests"])


class AskIn(BaseModel):
    comment: str = Field(min_length=1, max_length=service.MAX_COMMENT,
                         description="Why the item should be regraded (shown to course staff).")


class AnswerIn(BaseModel):
    reply: str = Field(min_length=1, max_length=service.MAX_REPLY,
                       description="The answer the student reads.")
    points: JsonPoints | None = Field(
        default=None, description="The item's new points (an override, kept across regrades "
        "and exported); null or the current points: kept.")
    feedback: str | None = Field(
        default=None, max_length=service.MAX_REPLY,
        description="The item's student-facing text (the override's comment); null: the "
        "current override's comment stays.")


class RequestOut(BaseModel):
    """What the student who asked sees: their comment, the staff reply, the points before and
    after, or why the request was closed."""

    id: int
    submission_id: int
    item_id: str
    status: str
    comment: str
    created_at: datetime
    points_before: JsonPoints | None
    reply: str | None
    answered_at: datetime | None
    points_after: JsonPoints | None
    closed_note: str | None

    @classmethod
    def of(cls, r: RegradeRequest) -> RequestOut:
        return cls(id=r.id, submission_id=r.submission_id, item_id=r.item_id, status=r.status,
                   comment=r.comment, created_at=r.created_at, points_before=r.points_before,
                   reply=r.reply, answered_at=r.answered_at, points_after=r.points_after,
                   closed_note=r.closed_note)


class StaffRequestOut(RequestOut):
    """Staff also see who asked and who answered."""

    student: str | None
    requester_id: int | None
    answered_by: int | None

    @classmethod
    def staff(cls, r: RegradeRequest, student: str | None) -> StaffRequestOut:
        return cls(**RequestOut.of(r).model_dump(), student=student,
                   requester_id=r.requester_id, answered_by=r.answered_by)


@router.post(
    "/submissions/{submission_id}/items/{item_id}/regrade-requests",
    status_code=status.HTTP_201_CREATED, response_model=RequestOut,
    summary="Ask for a regrade of an item",
)
def ask(submission_id: IdPath, item_id: str, body: AskIn, session: SessionDep,
        user: CurrentUser, clock: ClockDep, settings: SettingsDep) -> RequestOut:
    """A student asks course staff to look again at one item of their own submission, with a
    comment: only once the grades are published and the item's points are shown to them, on
    the submission that counts, one open request per item, and at most
    `GRADEFORMER_REGRADE_REQUESTS_PER_ASSIGNMENT` requests per assignment (default 3; requests
    closed by a withdrawal of the grades do not count). Audited as `regrade_request.create`.

    Errors: 401 no or an unknown token; 403 staff (they change points directly); 404 no such
    submission (or not theirs) or item; 409 `regrade-request-refused` (not published, points
    not released, not the submission that counts, a request on the item is open) or
    `regrade-request-limit-reached` (with `limit` and `used`); 422 an empty or too long
    comment."""
    request = service.ask(session, submission_id, item_id, body.comment, user, clock(),
                          settings.regrade_requests_per_assignment)
    return RequestOut.of(request)


@router.get(
    "/submissions/{submission_id}/regrade-requests",
    response_model=list[StaffRequestOut] | list[RequestOut],
    summary="List a submission's regrade requests",
)
def of_submission(submission_id: IdPath, session: SessionDep,
                  user: CurrentUser) -> list[StaffRequestOut] | list[RequestOut]:
    """Every request on the submission, oldest first: its student sees their own requests and
    the answers; staff also see who asked and answered.

    Errors: 401 no or an unknown token; 404 no such submission, or (a student) not theirs."""
    submission, found = service.of_submission(session, submission_id, user)
    if is_staff(user):
        return [StaffRequestOut.staff(r, submission.student) for r in found]
    return [RequestOut.of(r) for r in found]


@router.get(
    "/regrade-requests/{request_id}", response_model=StaffRequestOut | RequestOut,
    summary="Read a regrade request",
)
def read(request_id: IdPath, session: SessionDep,
         user: CurrentUser) -> StaffRequestOut | RequestOut:
    """One request with its answer. A student reads only requests on their own submissions.

    Errors: 401 no or an unknown token; 404 no such request, or (a student) not theirs."""
    if is_staff(user):
        found = service.for_staff(session, request_id)
        return StaffRequestOut.staff(found.request, found.submission.student)
    return RequestOut.of(service.for_student(session, request_id, user))


@router.get(
    "/assignments/{slug}/regrade-requests", response_model=list[StaffRequestOut],
    summary="List an assignment's regrade requests",
)
def of_assignment(
    slug: str,
    session: SessionDep,
    user: InstructorUser,
    state: Annotated[service.Shown,
                     Query(description="Which requests: open (default), answered, closed "
                           "(by a withdrawal) or all.")] = "open",
) -> list[StaffRequestOut]:
    """The assignment's requests (staff), open ones first, each kind oldest first (at most
    500).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422
    an unknown `state`."""
    statuses = service.statuses_of(state)
    assignment = require_assignment(session, slug)
    return [StaffRequestOut.staff(r, s.student)
            for r, s in service.of_assignment(session, assignment, statuses)]


@router.post(
    "/regrade-requests/{request_id}/answer", response_model=StaffRequestOut,
    summary="Answer a regrade request",
)
def answer(request_id: IdPath, body: AnswerIn, session: SessionDep, user: InstructorUser,
           clock: ClockDep) -> StaffRequestOut:
    """Staff answer an open request with a reply for the student, and keep the item's points
    (`points` null or unchanged) or change them: the change is an override like any other
    (audited as `override.set`, undoable, kept across regrades, exported); `feedback` sets the
    item's student-facing text. Audited as `regrade_request.answer`.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 no such request, or its
    item is gone from the rubric; 409 the request is answered or closed already; 422 an empty
    reply, or points out of the item's range or finer than hundredths."""
    found = service.answer(session, request_id, body.reply, body.points, body.feedback, user,
                           clock())
    return StaffRequestOut.staff(found.request, found.submission.student)

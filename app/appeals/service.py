"""Regrade requests: a student asks for a second look at one item whose points are released
(grades published) on the submission that counts; staff answer with a reply and keep or change
the points. A change is an override (app/review/service.py `set_override`): audited, kept
across regrades, in every export. Withdrawing the grades closes the open requests with a note
the student reads. Every step is in the audit log (entity `submission`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Literal

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.appeals import repository
from app.appeals.models import RegradeRequest, RequestStatus
from app.audit.repository import record
from app.auth.roles import is_staff
from app.db.locks import hold_decisions
from app.db.models import Assignment, Submission, User
from app.errors import (
    Conflict,
    InvalidInput,
    NotFound,
    NotPermitted,
    RegradeLimitReached,
    RegradeRefused,
)
from app.review.service import set_override
from app.sanitize import clean
from app.submissions.counting import counted_ids
from app.submissions.scoring import EffectiveItem
from app.submissions.service import ScoredSubmission, get_for_staff, get_scored, scored
from app.submissions.visibility import AssignmentView, student_item, view_for
from graders.results import Status

_UNDECIDED = frozenset({Status.NEEDS_REVIEW.value, Status.GRADER_ERROR.value,
                        Status.PENDING.value})
MAX_COMMENT = 2000  # characters of a student's request
MAX_REPLY = 5000  # characters of a staff reply (as an override comment)
CLOSED_NOTE = ("The grades were withdrawn, so this request was closed without an answer. "
               "Once they are published again you can ask again; it does not count towards "
               "your limit.")


@dataclass(frozen=True)
class ItemState:
    """What decides whether a student may ask about one item now."""

    item_id: str
    published: bool
    points_shown: bool
    counted: bool
    has_open: bool
    used: int
    limit: int


def refusal(state: ItemState) -> RegradeRefused | None:
    """Why the student may not ask for a regrade of this item now; None: they may."""
    if not state.published:
        return RegradeRefused("The grades are not published; you can ask for a regrade once "
                              "they are.", item_id=state.item_id)
    if not state.points_shown:
        return RegradeRefused(f"The points of {state.item_id} are not released to you, so "
                              "there is nothing to regrade yet.", item_id=state.item_id)
    if not state.counted:
        return RegradeRefused("Only the submission that counts can be regraded; this one is "
                              "not it.", item_id=state.item_id)
    if state.has_open:
        return RegradeRefused(f"You already asked for a regrade of {state.item_id}; wait for "
                              "the answer before asking again.", item_id=state.item_id)
    if state.limit == 0:
        return RegradeRefused("Regrade requests are turned off for this course; ask your "
                              "instructor.", item_id=state.item_id)
    if state.used >= state.limit:
        return RegradeLimitReached(
            f"You have used all {state.limit} regrade requests for this assignment. If you "
            "think another part is wrong, ask your instructor.",
            item_id=state.item_id, limit=state.limit, used=state.used)
    return None


@dataclass(frozen=True)
class StudentSide:
    """One of a student's submissions as the request rules see it."""

    scored: ScoredSubmission
    view: AssignmentView
    counted: bool
    used: int
    limit: int
    requests: list[RegradeRequest]

    def item_state(self, item: EffectiveItem) -> ItemState:
        declared = self.scored.submission.handout is not None
        shown = student_item(item, self.view, declared)
        open_now = any(r.item_id == item.item_id and r.status == RequestStatus.OPEN.value
                       for r in self.requests)
        return ItemState(item.item_id, self.view.state.published, shown.points is not None,
                         self.counted, open_now, self.used, self.limit)


def student_side(session: Session, submission_id: int, user: User, now: datetime,
                 limit: int) -> StudentSide:
    """A student's own submission (404 otherwise) with its requests and their limit."""
    s = get_scored(session, submission_id, user)
    assignment = session.get(Assignment, s.submission.assignment_id)
    if assignment is None:
        raise NotFound(f"There is no submission {submission_id}.")
    view = view_for(session, s, now)
    # Which submission counts is only worked out when it matters (under `best` it reads every
    # submission's score): before publication nothing can be asked.
    counted = view.state.published and s.submission.id in set(counted_ids(session, assignment))
    used = repository.counted_for_limit(session, assignment.id, user.id)
    return StudentSide(s, view, counted, used, limit,
                       repository.of_submission(session, s.submission.id))


def _item(s: ScoredSubmission, item_id: str) -> EffectiveItem:
    found = next((i for i in s.score.items if i.item_id == item_id), None)
    if found is None:
        raise NotFound(f"Submission {s.submission.id} has no item {item_id!r}.")
    return found


def ask(session: Session, submission_id: int, item_id: str, comment: str, user: User,
        now: datetime, limit: int) -> RegradeRequest:
    """File a student's request on one item of their own submission."""
    if is_staff(user):
        raise NotPermitted("Students ask for regrades; staff change an item's points on its "
                           "submission page, or answer a request.")
    repository.hold_requester(session, user.id)  # before the limit is counted
    side = student_side(session, submission_id, user, now, limit)
    item = _item(side.scored, item_id)
    refused = refusal(side.item_state(item))
    if refused is not None:
        raise refused
    text = clean(comment, MAX_COMMENT).strip()
    if not text:
        raise InvalidInput("Say why the item should be regraded (the comment is empty).",
                           field="comment")
    shown = student_item(item, side.view, side.scored.submission.handout is not None)
    request = RegradeRequest(submission_id=submission_id, item_id=item.item_id,
                             requester_id=user.id, status=RequestStatus.OPEN.value,
                             comment=text, points_before=shown.points, created_at=now)
    try:
        with session.begin_nested():  # the partial unique index: two posts at once
            repository.add(session, request)
    except IntegrityError:
        raise RegradeRefused(f"You already asked for a regrade of {item.item_id}; wait for "
                             "the answer before asking again.", item_id=item.item_id) from None
    record(session, user, "regrade_request.create", "submission", submission_id,
           {"item_id": item.item_id, "request_id": request.id, "comment": text})
    return request


@dataclass(frozen=True)
class StaffRequest:
    request: RegradeRequest
    submission: Submission
    scored: ScoredSubmission
    item: EffectiveItem


def for_staff(session: Session, request_id: int) -> StaffRequest:
    row = repository.get_with_submission(session, request_id)
    if row is None:
        raise NotFound(f"There is no regrade request {request_id}.")
    request, submission = row
    s = scored(session, [submission])[0]
    return StaffRequest(request, submission, s, _item(s, request.item_id))


def for_student(session: Session, request_id: int, user: User) -> RegradeRequest:
    """The student's own request; another student's is absent (404), as submissions are."""
    row = repository.get_with_submission(session, request_id)
    if row is None:
        raise NotFound(f"There is no regrade request {request_id}.")
    request, submission = row
    get_scored(session, submission.id, user)  # 404 unless the submission is theirs
    return request


def of_submission(session: Session, submission_id: int,
                  user: User) -> tuple[Submission, list[RegradeRequest]]:
    """The submission (404 unless staff or its student) and its requests, oldest first."""
    submission = get_scored(session, submission_id, user).submission
    return submission, repository.of_submission(session, submission_id)


def of_submission_for_staff(session: Session,
                            submission_id: int) -> tuple[Submission, list[RegradeRequest]]:
    submission = get_for_staff(session, submission_id)
    return submission, repository.of_submission(session, submission_id)


def thread(session: Session, submission_id: int, item_id: str) -> list[RegradeRequest]:
    """Every request on one item of a submission, oldest first (staff)."""
    return repository.thread(session, submission_id, item_id)


def answer(session: Session, request_id: int, reply: str, points: Decimal | None,
           feedback: str | None, actor: User, now: datetime) -> StaffRequest:
    """Staff answer an open request: `reply` for the student, and the item's points kept
    (`points` None or equal to the current ones) or changed by an override; `feedback` is the
    override's comment, the item's student-facing text (None: the current override's comment,
    if any, stays)."""
    found = for_staff(session, request_id)
    hold_decisions(session, found.submission.assignment_id)
    session.expire_all()  # read again what another answer at the same time stored
    found = for_staff(session, request_id)
    request, item = found.request, found.item
    if request.status != RequestStatus.OPEN.value:
        raise Conflict(f"Regrade request {request_id} is {request.status} already; only an "
                       "open request can be answered.", status=request.status)
    text = clean(reply, MAX_REPLY).strip()
    if not text:
        raise InvalidInput("Write a reply for the student (it is empty).", field="reply")
    current_comment = item.override.comment if item.override is not None else ""
    new_points = item.points if points is None else points
    new_comment = current_comment if feedback is None else clean(feedback, MAX_REPLY).strip()
    # An item a regrade sent back to review since the request has no points a student sees:
    # the answer decides it, whatever the points.
    undecided = item.override is None and item.status in _UNDECIDED
    changed = undecided or new_points != item.points or new_comment != current_comment
    if changed:
        set_override(session, request.submission_id, request.item_id, new_points,
                     new_comment, actor)
    request.status = RequestStatus.ANSWERED.value
    request.reply = text
    request.answered_by = actor.id
    request.answered_at = now
    request.points_after = new_points
    session.flush()
    record(session, actor, "regrade_request.answer", "submission", request.submission_id, {
        "item_id": request.item_id, "request_id": request.id, "reply": text,
        "points_before": str(item.points), "points_after": str(new_points),
        "changed": changed,
    })
    return for_staff(session, request_id)


def close_on_withdrawal(session: Session, assignment: Assignment, actor: User | None,
                        now: datetime) -> int:
    """Close every open request of the assignment with a note for its student (the grades
    they asked about are no longer released); returns how many."""
    closed = repository.open_of_assignment(session, assignment.id)
    for request in closed:
        request.status = RequestStatus.CLOSED.value
        request.closed_note = CLOSED_NOTE
        request.closed_at = now
        record(session, actor, "regrade_request.close", "submission", request.submission_id,
               {"item_id": request.item_id, "request_id": request.id,
                "reason": "grades withdrawn"})
    session.flush()
    return len(closed)


def open_count(session: Session, assignment: Assignment) -> int:
    return repository.open_count(session, assignment.id)


# What a list of an assignment's requests shows: one status, or all of them.
Shown = Literal["open", "answered", "closed", "all"]


def statuses_of(shown: Shown) -> tuple[str, ...]:
    return tuple(s.value for s in RequestStatus) if shown == "all" else (shown,)


def of_assignment(session: Session, assignment: Assignment, statuses: tuple[str, ...],
                  limit: int = repository.LIST_LIMIT) -> list[tuple[RegradeRequest, Submission]]:
    """The assignment's requests in these statuses, open ones first, each kind oldest first."""
    found = repository.of_assignment(session, assignment.id, statuses, limit)
    return [(r, s) for r, s in found]

"""Regrade request queries. Flushes, never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

from app.appeals.models import RegradeRequest, RequestStatus
from app.db.models import Submission, User

LIST_LIMIT = 500  # requests on one page or in one API answer


def hold_requester(session: Session, user_id: int) -> None:
    """Lock the asking student's row until the transaction ends (PostgreSQL; SQLite has one
    writer at a time): two of their requests at once count each other's, so neither passes
    the per-assignment limit by checking it before the other is stored."""
    session.execute(select(User.id).where(User.id == user_id).with_for_update())


def add(session: Session, request: RegradeRequest) -> RegradeRequest:
    session.add(request)
    session.flush()
    return request


def get(session: Session, request_id: int) -> RegradeRequest | None:
    return session.get(RegradeRequest, request_id)


def get_with_submission(
    session: Session, request_id: int
) -> Row[RegradeRequest, Submission] | None:
    return session.execute(
        select(RegradeRequest, Submission)
        .join(Submission, RegradeRequest.submission_id == Submission.id)
        .where(RegradeRequest.id == request_id)
    ).first()


def open_for_item(session: Session, submission_id: int, item_id: str) -> RegradeRequest | None:
    return session.scalar(
        select(RegradeRequest).where(
            RegradeRequest.submission_id == submission_id,
            RegradeRequest.item_id == item_id,
            RegradeRequest.status == RequestStatus.OPEN.value,
        )
    )


def of_submission(session: Session, submission_id: int) -> list[RegradeRequest]:
    """A submission's requests, oldest first (each item's thread in order)."""
    return list(
        session.scalars(
            select(RegradeRequest)
            .where(RegradeRequest.submission_id == submission_id)
            .order_by(RegradeRequest.id)
            .limit(LIST_LIMIT)
        )
    )


def thread(session: Session, submission_id: int, item_id: str) -> list[RegradeRequest]:
    """Every request on one item of one submission, oldest first."""
    return list(
        session.scalars(
            select(RegradeRequest)
            .where(RegradeRequest.submission_id == submission_id,
                   RegradeRequest.item_id == item_id)
            .order_by(RegradeRequest.id)
            .limit(LIST_LIMIT)
        )
    )


def counted_for_limit(session: Session, assignment_id: int, requester_id: int) -> int:
    """A student's requests on an assignment that count towards the limit: open and answered
    ones; one closed by a withdrawal of the grades was not the student's doing."""
    return session.scalar(
        select(func.count(RegradeRequest.id))
        .join(Submission, RegradeRequest.submission_id == Submission.id)
        .where(
            Submission.assignment_id == assignment_id,
            RegradeRequest.requester_id == requester_id,
            RegradeRequest.status != RequestStatus.CLOSED.value,
        )
    ) or 0


def of_assignment(
    session: Session, assignment_id: int, statuses: Sequence[str], limit: int = LIST_LIMIT
) -> list[Row[RegradeRequest, Submission]]:
    """An assignment's requests in these statuses with their submissions: open ones first,
    each kind oldest first (the first asked is the first answered)."""
    open_first = (RegradeRequest.status != RequestStatus.OPEN.value)
    return list(
        session.execute(
            select(RegradeRequest, Submission)
            .join(Submission, RegradeRequest.submission_id == Submission.id)
            .where(Submission.assignment_id == assignment_id,
                   RegradeRequest.status.in_(statuses))
            .order_by(open_first, RegradeRequest.id)
            .limit(limit)
        ).all()
    )


def open_count(session: Session, assignment_id: int) -> int:
    return session.scalar(
        select(func.count(RegradeRequest.id))
        .join(Submission, RegradeRequest.submission_id == Submission.id)
        .where(Submission.assignment_id == assignment_id,
               RegradeRequest.status == RequestStatus.OPEN.value)
    ) or 0


def open_of_assignment(session: Session, assignment_id: int) -> list[RegradeRequest]:
    ids = select(Submission.id).where(Submission.assignment_id == assignment_id)
    return list(
        session.scalars(
            select(RegradeRequest).where(
                RegradeRequest.submission_id.in_(ids),
                RegradeRequest.status == RequestStatus.OPEN.value,
            ).order_by(RegradeRequest.id)
        )
    )

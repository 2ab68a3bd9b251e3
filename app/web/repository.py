"""Queries the pages need beyond the services': a submission's history and per-assignment
counts. Flushes nothing, writes nothing."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session

from app.db.models import AuditEntry, GradingRun, ItemScore, Override, Submission, User

HISTORY_LIMIT = 200


def runs_of(session: Session, submission_id: int) -> list[GradingRun]:
    """Every grading run of a submission, newest first (the current one and those it replaced)."""
    return list(
        session.scalars(
            select(GradingRun)
            .where(GradingRun.submission_id == submission_id)
            .order_by(GradingRun.id.desc())
            .limit(HISTORY_LIMIT)
        )
    )


def audit_of(session: Session, submission_id: int) -> list[AuditEntry]:
    """The audit log's entries about a submission, newest first."""
    return list(
        session.scalars(
            select(AuditEntry)
            .where(AuditEntry.entity == "submission", AuditEntry.entity_id == str(submission_id))
            .order_by(AuditEntry.id.desc())
            .limit(HISTORY_LIMIT)
        )
    )


def user_names(session: Session, ids: Iterable[int | None]) -> dict[int, str]:
    wanted = {i for i in ids if i is not None}
    if not wanted:
        return {}
    query = select(User.id, User.name).where(User.id.in_(wanted))
    return dict(session.execute(query).tuples().all())


def submission_counts(session: Session) -> dict[int, int]:
    """Assignment id -> how many submissions it holds."""
    query = select(Submission.assignment_id, func.count(Submission.id)).group_by(
        Submission.assignment_id
    )
    return dict(session.execute(query).tuples().all())


def review_counts(session: Session) -> dict[int, int]:
    """Assignment id -> items of current runs waiting for review with no decision yet (the
    review queue's rule)."""
    decided = select(Override.id).where(
        and_(Override.submission_id == Submission.id, Override.item_id == ItemScore.item_id)
    )
    query = (
        select(Submission.assignment_id, func.count(ItemScore.id))
        .join(GradingRun, ItemScore.run_id == GradingRun.id)
        .join(Submission, GradingRun.submission_id == Submission.id)
        .where(
            GradingRun.is_current.is_(True),
            ItemScore.status == "needs_review",
            ~decided.exists(),
        )
        .group_by(Submission.assignment_id)
    )
    return dict(session.execute(query).tuples().all())

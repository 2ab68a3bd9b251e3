"""Queries the pages need beyond the services': a submission's history and per-assignment
counts. Flushes nothing, writes nothing."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.db.models import AuditEntry, GradingRun, Submission, User

HISTORY_LIMIT = 200


def runs_of(session: Session, submission_id: int) -> list[GradingRun]:
    """Every grading run of a submission, newest first (the current one and those it replaced).
    By time, not id: a regrade re-scored in place keeps the current run's id and stores its
    previous state as a new run (app.grading.repository.advance_runs)."""
    return list(
        session.scalars(
            select(GradingRun)
            .where(GradingRun.submission_id == submission_id)
            .order_by(GradingRun.is_current.desc(), GradingRun.created_at.desc(),
                      GradingRun.id.desc())
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

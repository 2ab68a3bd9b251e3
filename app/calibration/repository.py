"""Queries of risk control: instructor grades with the machine's results, targets, snapshots.
Flushes, never commits."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Row, func, select
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import (
    CalibrationSnapshot,
    GradingRun,
    ItemScore,
    Override,
    RiskTarget,
    Submission,
)
from app.review.repository import overridden_items


def graded_with_machine(
    session: Session, assignment_id: int
) -> list[Row[Override, ItemScore, GradingRun]]:
    """Every instructor decision with the current machine result of its item, oldest first
    (the review queue's query of overrides, in the order they were made)."""
    return sorted(overridden_items(session, assignment_id), key=lambda row: row[0].id)


def status_counts(session: Session, assignment_id: int) -> dict[tuple[str, str], int]:
    """(item id, machine status) -> how many current results, over the assignment."""
    query = (
        select(ItemScore.item_id, ItemScore.status, func.count())
        .join(GradingRun, ItemScore.run_id == GradingRun.id)
        .join(Submission, GradingRun.submission_id == Submission.id)
        .where(Submission.assignment_id == assignment_id, GradingRun.is_current.is_(True))
        .group_by(ItemScore.item_id, ItemScore.status)
    )
    return {(item, status): int(n) for item, status, n in session.execute(query).all()}


def targets(session: Session, assignment_id: int) -> dict[str, float]:
    """Question id ("" for the whole assignment) -> the error target the instructor set."""
    rows = session.scalars(select(RiskTarget).where(RiskTarget.assignment_id == assignment_id))
    return {row.question_id: row.target for row in rows}


def set_target(
    session: Session, assignment_id: int, question_id: str, target: float, user_id: int | None
) -> RiskTarget:
    row = session.scalar(
        select(RiskTarget).where(
            RiskTarget.assignment_id == assignment_id, RiskTarget.question_id == question_id
        )
    )
    if row is None:
        row = RiskTarget(
            assignment_id=assignment_id, question_id=question_id, target=target, user_id=user_id
        )
        session.add(row)
    else:
        row.target = target
        row.user_id = user_id
    session.flush()
    return row


def snapshot(session: Session, assignment_id: int) -> CalibrationSnapshot | None:
    return session.get(CalibrationSnapshot, assignment_id)


def store_snapshot(
    session: Session, assignment_id: int, rubric_hash: str, body: dict[str, Any]
) -> None:
    """Insert or replace, in one statement: two instructors' first overrides of an assignment
    at the same moment must not fail on the primary key."""
    values = {"assignment_id": assignment_id, "rubric_hash": rubric_hash, "body": body,
              "computed_at": utcnow()}
    insert = sqlite_insert
    if session.get_bind().dialect.name == "postgresql":
        # Imported here: on SQLite (a CLI's regrade) the PostgreSQL dialect is never loaded.
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        insert = postgresql_insert  # type: ignore[assignment]
    statement = insert(CalibrationSnapshot).values(**values)
    session.execute(statement.on_conflict_do_update(
        index_elements=[CalibrationSnapshot.assignment_id],
        set_={k: v for k, v in values.items() if k != "assignment_id"}))
    for known in list(session.identity_map.values()):  # a row read earlier is now stale
        if isinstance(known, CalibrationSnapshot) and known.assignment_id == assignment_id:
            session.expire(known)

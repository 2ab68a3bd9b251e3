"""Roster rows: replace a scope's list in one statement pair, read it back."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from app.db.models import RosterStudent
from app.roster.csvfile import RosterRow

COURSE = "course"


def replace(session: Session, scope: str, rows: Iterable[RosterRow]) -> int:
    """The scope's list becomes `rows` (in the caller's transaction: all or nothing). The rows
    are built before the delete and inserted as one executemany: on SQLite the delete takes
    the database's write lock, held until commit, and the health check and other writers wait
    for it (the unit of work's per-object flush held it several times as long)."""
    records = [
        {"scope": scope, "student_id": row.student_id, "name": row.name, "email": row.email,
         "sis_user_id": row.sis_user_id, "sis_login_id": row.sis_login_id,
         "section": row.section, "canvas_user_id": row.canvas_user_id}
        for row in rows
    ]
    session.execute(delete(RosterStudent).where(RosterStudent.scope == scope))
    if records:
        session.execute(insert(RosterStudent), records)
    return len(records)


def for_scope(session: Session, scope: str) -> list[RosterStudent]:
    return list(
        session.scalars(
            select(RosterStudent)
            .where(RosterStudent.scope == scope)
            .order_by(RosterStudent.student_id)
        )
    )


def has_scope(session: Session, scope: str) -> bool:
    found = session.scalar(select(RosterStudent.id).where(RosterStudent.scope == scope).limit(1))
    return found is not None

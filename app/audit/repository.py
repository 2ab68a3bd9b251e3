"""The audit log: who did what to which entity, appended in the same transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from app.db.base import utcnow
from app.db.models import AuditEntry, User


def record(
    session: Session,
    actor: User | None,
    action: str,
    entity: str,
    entity_id: str | int | None,
    detail: dict[str, Any] | None = None,
) -> None:
    session.add(
        AuditEntry(
            actor_id=None if actor is None else actor.id,
            action=action,
            entity=entity,
            entity_id=None if entity_id is None else str(entity_id),
            detail=detail or {},
        )
    )


def record_many(
    session: Session,
    action: str,
    entity: str,
    entries: Sequence[tuple[User | None, str | int | None, dict[str, Any]]],
) -> None:
    """One action on many entities (actor, entity id, detail) as one INSERT, not one ORM object
    each: the API stores uploads in batches in the process that answers HTTP."""
    if not entries:
        return
    rows = [
        {
            "at": utcnow(),
            "actor_id": None if actor is None else actor.id,
            "action": action,
            "entity": entity,
            "entity_id": None if entity_id is None else str(entity_id),
            "detail": detail,
        }
        for actor, entity_id, detail in entries
    ]
    session.execute(insert(AuditEntry), rows)


def recent(session: Session, limit: int = 100) -> list[AuditEntry]:
    return list(session.scalars(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)))

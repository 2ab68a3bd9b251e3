"""The audit log: who did what to which entity, appended in the same transaction."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

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


def recent(session: Session, limit: int = 100) -> list[AuditEntry]:
    return list(session.scalars(select(AuditEntry).order_by(AuditEntry.id.desc()).limit(limit)))

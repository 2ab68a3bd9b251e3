"""Undo of an instructor's decision on one item: the state before it comes back (the earlier
override, or none: the machine's score), audited as `override.undo`.

Every `override.set` audit entry keeps the whole earlier state (`previous`: points, comment and
who decided, or None). Undo is a stack: only the latest decision not undone yet can be undone;
when anyone changed the item since the page was shown (another decision, a removal, an undo),
the undo is refused (409) rather than overwrite the newer state.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.assignments.service import require_assignment
from app.audit.repository import record
from app.calibration import service as calibration
from app.db.locks import hold_decisions
from app.db.models import AuditEntry, Override, User
from app.errors import Conflict
from app.review import repository
from app.submissions.service import get_for_staff

CHANGES = ("override.set", "override.delete", "override.undo")
SCANNED = 2000  # audit entries of one submission looked at, newest first


@dataclass(frozen=True)
class LastChange:
    """The latest change to one item's decision: its audit entry id, what it did, the points it
    stored (None: no override after it) and whether it can be undone."""

    audit_id: int
    action: str
    points: Decimal | None
    undoable: bool


def _item_changes(session: Session, submission_id: int, item_id: str) -> list[AuditEntry]:
    entries = session.scalars(
        select(AuditEntry)
        .where(
            AuditEntry.entity == "submission",
            AuditEntry.entity_id == str(submission_id),
            AuditEntry.action.in_(CHANGES),
        )
        .order_by(AuditEntry.id.desc())
        .limit(SCANNED)
    )
    return [a for a in entries if isinstance(a.detail, dict) and a.detail.get("item_id") == item_id]


def _decimal(value: Any) -> Decimal | None:
    try:
        return None if value is None else Decimal(str(value))
    except InvalidOperation:
        return None


def last_change(session: Session, submission_id: int, item_id: str) -> LastChange | None:
    """The item's latest decision not undone yet (undo is a stack: after an undo, the decision
    before comes next), or None when there is none. A removal stops the walk: what it removed
    is not brought back by an undo."""
    undone: set[int] = set()
    for entry in _item_changes(session, submission_id, item_id):
        if entry.action == "override.undo":
            target = entry.detail.get("undone")
            if isinstance(target, int):
                undone.add(target)
            continue
        if entry.id in undone:
            continue
        stored = _decimal(entry.detail.get("points")) if entry.action == "override.set" else None
        undoable = entry.action == "override.set" and "previous" in entry.detail
        return LastChange(entry.id, entry.action, stored, undoable)
    return None


def undo(session: Session, submission_id: int, item_id: str, audit_id: int,
         actor: User) -> Override | None:
    """Undo the decision recorded as audit entry `audit_id` on this item: the earlier override
    comes back, or the override goes (the machine's score applies). Returns the override now in
    force (None: the machine's)."""
    submission = get_for_staff(session, submission_id)
    hold_decisions(session, submission.assignment_id)
    change = last_change(session, submission_id, item_id)
    if change is None or change.audit_id != audit_id:
        raise Conflict(
            f"{item_id} of submission {submission_id} was changed after that decision; only "
            "the latest decision not undone yet can be undone (reload the page).",
            latest=None if change is None else change.audit_id,
        )
    if not change.undoable:
        raise Conflict(f"The latest change to {item_id} ({change.action}) cannot be undone.")
    entry = session.get(AuditEntry, audit_id)
    assert entry is not None  # just read
    previous = entry.detail.get("previous")
    override = repository.get_override(session, submission_id, item_id)
    restored: Override | None = None
    if not isinstance(previous, dict):
        if override is not None:
            repository.delete_override(session, submission_id, item_id)
    else:
        points = _decimal(previous.get("points")) or Decimal(0)
        user_id = previous.get("user_id")
        if override is None:
            override = repository.add_override(session, Override(
                submission_id=submission_id, item_id=item_id, points=points,
                comment=str(previous.get("comment") or ""),
                user_id=user_id if isinstance(user_id, int) else None))
        else:
            override.points = points
            override.comment = str(previous.get("comment") or "")
            override.user_id = user_id if isinstance(user_id, int) else None
            session.flush()
        restored = override
    record(session, actor, "override.undo", "submission", submission_id, {
        "item_id": item_id,
        "undone": audit_id,
        "removed_points": entry.detail.get("points"),
        "restored": previous if isinstance(previous, dict) else None,
    })
    calibration.refresh(session, submission.assignment_id)
    return restored


def undo_latest(session: Session, submission_id: int, item_id: str, decision: int | None,
                actor: User) -> tuple[int, Override | None]:
    """Undo `decision` (an audit id), or when None the item's latest decision not undone: the
    decision undone and the override in force now (None: the machine's score)."""
    submission = get_for_staff(session, submission_id)  # 404 for an unknown submission
    hold_decisions(session, submission.assignment_id)  # before reading which is the latest
    if decision is None:
        latest = last_change(session, submission_id, item_id)
        if latest is None:
            raise Conflict(f"{item_id} of submission {submission_id} has no decision to undo.")
        decision = latest.audit_id
    return decision, undo(session, submission_id, item_id, decision, actor)


def _group_decisions(session: Session, slug: str) -> list[AuditEntry]:
    return list(session.scalars(
        select(AuditEntry)
        .where(AuditEntry.entity == "assignment", AuditEntry.entity_id == slug,
               AuditEntry.action == "groups.decide")
        .order_by(AuditEntry.id.desc())
        .limit(SCANNED)
    ))


def latest_group_decision(session: Session, slug: str, item_id: str,
                          group_id: str) -> int | None:
    """The audit id of the latest decision on this answer group, or None."""
    for entry in _group_decisions(session, slug):
        if entry.detail.get("item_id") == item_id and entry.detail.get("group") == group_id:
            return entry.id
    return None


def undo_group_decision(session: Session, slug: str, audit_id: int,
                        actor: User) -> tuple[list[int], list[int]]:
    """Undo a group decision member by member: each member whose latest decision is still
    the group's comes back to its state before; a member changed since keeps its newer
    decision. Returns (restored, left alone) submission ids; audited as `groups.undo`."""
    hold_decisions(session, require_assignment(session, slug).id)  # before "undone already?"
    entry = session.get(AuditEntry, audit_id)
    if (entry is None or entry.action != "groups.decide" or entry.entity_id != slug
            or not isinstance(entry.detail, dict)):
        raise Conflict(f"There is no group decision {audit_id} of {slug!r} to undo.")
    item_id = str(entry.detail.get("item_id"))
    undos = session.scalars(select(AuditEntry).where(
        AuditEntry.entity == "assignment", AuditEntry.entity_id == slug,
        AuditEntry.action == "groups.undo", AuditEntry.id > audit_id).limit(SCANNED))
    if any(u.detail.get("undone") == audit_id for u in undos):
        raise Conflict("That group decision was undone already.")
    restored: list[int] = []
    left: list[int] = []
    for sid in entry.detail.get("decided") or []:
        change = last_change(session, int(sid), item_id) if isinstance(sid, int) else None
        if change is None or change.audit_id > audit_id or not change.undoable:
            left.append(sid)
            continue
        undo(session, sid, item_id, change.audit_id, actor)
        restored.append(sid)
    record(session, actor, "groups.undo", "assignment", slug, {
        "item_id": item_id, "undone": audit_id, "restored": restored, "left_alone": left})
    return restored, left

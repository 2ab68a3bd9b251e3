"""Instructors set an assignment's schedule and limits, and publish (or withdraw) its grades."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.orm import Session

from app.appeals.service import close_on_withdrawal
from app.assignments.service import require_assignment
from app.audit.repository import record
from app.db.base import utcnow
from app.db.locks import hold_decisions
from app.db.models import Assignment, CountedSubmission, User
from app.errors import InvalidInput
from app.review.service import waiting_per_item

# The most uploads a limit can allow: within the database column (a 32-bit integer), and far
# beyond any course's needs; a larger number is refused as input, not stored.
MAX_SUBMISSIONS = 100_000
# The moments a schedule may name: what every database and Python's datetime hold once moved to
# UTC (year 1 at +14:00 is year 0 in UTC: no datetime, and PostgreSQL reads it back as BC).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
# The schedule fields an instructor may change.
SCHEDULE_FIELDS = frozenset(
    {"opens_at", "due_at", "late_until", "late_penalty_percent", "max_submissions", "counts"}
)


def _check(assignment: Assignment) -> None:
    moments = [
        ("opens_at", assignment.opens_at),
        ("due_at", assignment.due_at),
        ("late_until", assignment.late_until),
    ]
    for name, moment in moments:
        if moment is not None and moment.tzinfo is None:
            raise InvalidInput(f"{name} needs a UTC offset (e.g. 2026-12-01T23:59:00Z).")
        if moment is not None and not _in_range(moment):
            raise InvalidInput(f"{name} must be between {EARLIEST.year} and {LATEST.year - 1} "
                               "(UTC).")
    present = [(n, m) for n, m in moments if m is not None]
    for (first, a), (second, b) in itertools.pairwise(present):
        if a > b:
            raise InvalidInput(f"{first} ({a.isoformat()}) must not be after {second} "
                               f"({b.isoformat()}).")
    if assignment.late_until is not None and assignment.due_at is None:
        raise InvalidInput("late_until needs a due_at: late means after the due date.")
    if not Decimal(0) <= assignment.late_penalty_percent <= Decimal(100):
        raise InvalidInput("late_penalty_percent must be between 0 and 100.")
    if assignment.max_submissions is not None and not (
            1 <= assignment.max_submissions <= MAX_SUBMISSIONS):
        raise InvalidInput(f"max_submissions must be between 1 and {MAX_SUBMISSIONS} "
                           "(or null for no limit).")


def _in_range(moment: datetime) -> bool:
    try:
        return EARLIEST <= moment.astimezone(UTC) < LATEST
    except OverflowError:
        return False


def update_schedule(
    session: Session, slug: str, changed: Mapping[str, object], actor: User | None
) -> Assignment:
    """Change the given fields (None clears a date or the limit); the rest keep their value."""
    unknown = sorted(set(changed) - SCHEDULE_FIELDS)
    if unknown:
        raise InvalidInput(f"Unknown schedule field(s): {', '.join(unknown)}.")
    assignment = require_assignment(session, slug)
    for name, value in changed.items():
        setattr(assignment, name, value.value if isinstance(value, CountedSubmission) else value)
    _check(assignment)
    session.flush()
    record(
        session,
        actor,
        "assignment.schedule",
        "assignment",
        slug,
        {k: None if v is None else str(v) for k, v in changed.items()},
    )
    return assignment


def publish_grades(session: Session, slug: str, actor: User | None, now: datetime) -> Assignment:
    """Students see what the rubric releases after publication, from now on."""
    assignment = require_assignment(session, slug)
    if assignment.grades_published_at is None:
        assignment.grades_published_at = now
        session.flush()
        record(session, actor, "grades.publish", "assignment", slug, {"at": now.isoformat()})
    return assignment


def withdraw_grades(session: Session, slug: str, actor: User | None) -> Assignment:
    """Students see only what is `visible` again; open regrade requests are closed with a note
    for their students (what they asked about is no longer released)."""
    assignment = require_assignment(session, slug)
    # After any answer to a regrade request (or another withdrawal) in flight: a request is
    # then either answered before the withdrawal or closed by it, never answered after it.
    hold_decisions(session, assignment.id)
    session.expire_all()
    if assignment.grades_published_at is not None:
        assignment.grades_published_at = None
        session.flush()
        closed = close_on_withdrawal(session, assignment, actor, utcnow())
        record(session, actor, "grades.withdraw", "assignment", slug,
               {"regrade_requests_closed": closed})
    return assignment


@dataclass(frozen=True)
class WaitingItem:
    """A rubric item with answers still in the review queue."""

    item_id: str
    question: str
    waiting: int


def still_in_review(session: Session, slug: str) -> list[WaitingItem]:
    """What publishing now would release undecided: the review queue's items (of the submission
    that counts for each student), counted per rubric item, most first."""
    counts = waiting_per_item(session, require_assignment(session, slug))
    return [WaitingItem(item_id, question, n)
            for (item_id, question), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]

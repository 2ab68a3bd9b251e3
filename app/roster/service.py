"""Importing a class list (a course's, or one assignment's) and the list an export uses."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.assignments.service import require_assignment
from app.audit import repository as audit
from app.db.locks import hold
from app.db.models import RosterStudent, User
from app.roster import repository
from app.roster.csvfile import ParsedRoster, parse_roster
from app.roster.repository import COURSE

__all__ = ["COURSE", "ImportResult", "import_roster", "roster_for_assignment", "roster_of"]


@dataclass(frozen=True)
class ImportResult:
    scope: str
    students: int
    ignored_columns: list[str]


def _scope(session: Session, target: str) -> str:
    """"course", or an assignment's slug (which must exist)."""
    if target == COURSE:
        return COURSE
    return require_assignment(session, target).slug


def import_roster(
    session: Session, target: str, raw: bytes, actor: User | None = None
) -> ImportResult:
    """Replace the course's (target "course") or an assignment's roster with the CSV's rows.
    The file is read in full first: one bad row stores nothing."""
    scope = _scope(session, target)
    parsed: ParsedRoster = parse_roster(raw)
    hold(session, "roster", scope)  # two imports at once: the later one replaces the first

    count = repository.replace(session, scope, parsed.rows)
    audit.record(session, actor, "roster.import", "roster", scope,
                 {"students": count, "ignored_columns": parsed.ignored_columns[:20]})
    return ImportResult(scope, count, parsed.ignored_columns)


def roster_of(session: Session, target: str) -> list[RosterStudent]:
    return repository.for_scope(session, _scope(session, target))


def roster_for_assignment(session: Session, slug: str) -> dict[str, RosterStudent]:
    """Student id -> roster row: the assignment's own list when it has one, else the course's."""
    scope = slug if repository.has_scope(session, slug) else COURSE
    return {r.student_id: r for r in repository.for_scope(session, scope)}

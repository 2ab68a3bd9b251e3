"""Staff set the handout edition graded: for the whole assignment, or for one student.

The edition graded is stored with each submission (`Submission.handout`, read by grading and by
every regrade); the upload's own declaration beside it (`declared_handout`). Setting or clearing
an edition re-decides the stored submissions it touches; their grades change at the next
regrade, which the caller starts (HTTP) or names (CLI).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.assignments.service import current_rubric
from app.audit import repository as audit
from app.db.models import StudentEdition, User
from app.editions import repository
from app.editions.policy import Edition, decide, declared_risk
from app.errors import InvalidInput, UnknownEdition
from app.sanitize import clean
from graders.documents.edition import clean_edition, match_edition

MAX_STUDENT = 200


@dataclass(frozen=True)
class EditionChange:
    assignment: str
    student: str | None  # None: the assignment's fixed edition
    handout: str | None  # None: cleared
    # Stored submissions now graded under another edition: their grades move at the next regrade.
    resubmitted: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class StudentHandout:
    student: str
    handout: str


@dataclass(frozen=True)
class Editions:
    assignment: str
    handouts: list[str]  # the editions the current rubric grades
    fixed: str | None
    students: list[StudentHandout]
    warning: str | None  # the edition is left to students' declarations while editions differ


@dataclass(frozen=True)
class StaffEditions:
    """What staff set for an assignment, read once for a batch of uploads."""

    fixed: str | None
    students: Mapping[str, str]

    def decide(self, student: str | None, declared: str | None) -> Edition:
        return decide(self.fixed, None if student is None else self.students.get(student),
                      declared)


def staff_editions(session: Session, assignment_id: int,
                   students: Iterable[str | None]) -> StaffEditions:
    """Staff's editions for uploads of these students (in the uploads' own transaction)."""
    fixed, own = repository.staff_editions(session, assignment_id,
                                           {s for s in students if s is not None})
    return StaffEditions(fixed, own)


def staff_decision(session: Session, assignment_id: int, student: str | None,
                   declared: str | None) -> Edition:
    """The edition one upload is graded under (in the upload's own transaction)."""
    return staff_editions(session, assignment_id, [student]).decide(student, declared)


def _edition(handouts: tuple[str, ...], value: str) -> str:
    try:
        text = clean_edition(value, "handout")
    except ValueError as exc:
        raise InvalidInput(f"The {exc}.", field="handout") from None
    found = match_edition(handouts, text)
    if found is None:
        raise UnknownEdition(
            f"Handout {clean(text, 40)!r} is not an edition of this assignment"
            + (f" (its editions: {', '.join(handouts)})." if handouts else " (it has none)."),
            allowed=list(handouts),
        )
    return found


def _student(value: str) -> str:
    text = value.strip()
    if not text or len(text) > MAX_STUDENT or not text.isprintable():
        raise InvalidInput(f"A student id is 1 to {MAX_STUDENT} printable characters.",
                           field="student")
    return text


def set_edition(session: Session, slug: str, student: str | None, handout: str | None,
                actor: User | None = None) -> EditionChange:
    """Fix (or clear, `handout` None) the assignment's edition, or one student's; the stored
    submissions it governs are re-decided now (the change, audited, names them)."""
    current = current_rubric(session, slug)
    assignment = current.assignment
    value = None if handout is None else _edition(current.loaded.rubric.handouts, handout)
    who = None if student is None else _student(student)
    repository.lock_assignment(session, assignment.id)
    if who is None:
        assignment.handout = value
    else:
        row = repository.student_edition(session, assignment.id, who)
        if value is None and row is not None:
            repository.delete(session, row)
        elif value is not None and row is None:
            session.add(StudentEdition(assignment_id=assignment.id, student=who, handout=value,
                                       set_by=None if actor is None else actor.id))
        elif row is not None and value is not None:
            row.handout, row.set_by = value, None if actor is None else actor.id
    session.flush()
    moved = _redecide(session, assignment.id, who)
    audit.record(session, actor, "edition.set" if value else "edition.clear", "assignment",
                 assignment.slug, {"student": who, "handout": value, "submissions": len(moved)})
    return EditionChange(assignment.slug, who, value, moved)


def _redecide(session: Session, assignment_id: int, student: str | None) -> list[int]:
    """Store the edition each affected submission is now graded under; the ids that changed."""
    fixed = repository.staff_editions(session, assignment_id, ())[0]
    own = {r.student: r.handout for r in repository.students(session, assignment_id)}
    moved: dict[str | None, list[int]] = defaultdict(list)
    for sid, who, declared, graded in repository.declarations(session, assignment_id, student):
        now = decide(fixed, None if who is None else own.get(who), declared).graded
        if now != graded:
            moved[now].append(sid)
    for handout, ids in moved.items():
        repository.regrade_as(session, ids, handout)
    return sorted(i for ids in moved.values() for i in ids)


def editions_of(session: Session, slug: str) -> Editions:
    current = current_rubric(session, slug)
    rubric = current.loaded.rubric
    rows = repository.students(session, current.assignment.id)
    return Editions(
        assignment=current.assignment.slug,
        handouts=list(rubric.handouts),
        fixed=current.assignment.handout,
        students=[StudentHandout(r.student, r.handout) for r in rows],
        warning=declared_risk(rubric, current.assignment.handout, [r.student for r in rows]),
    )

"""Staff's editions and the submissions graded under them (flush, never commit)."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.db.models import Assignment, StudentEdition, Submission

CHUNK = 500  # students per IN list


def student_edition(session: Session, assignment_id: int, student: str) -> StudentEdition | None:
    return session.scalar(
        select(StudentEdition).where(StudentEdition.assignment_id == assignment_id,
                                     StudentEdition.student == student)
    )


def staff_editions(session: Session, assignment_id: int, students: Collection[str]) -> tuple[
        str | None, dict[str, str]]:
    """(the assignment's fixed edition, student -> their own edition for these students), in
    the caller's transaction: an upload reads them where it writes its rows."""
    # FOR SHARE (PostgreSQL; SQLite's write lock already orders them): a change of editions
    # (lock_assignment) waits for this upload's commit, then re-decides its row too; or this
    # upload waits for the change and reads it.
    fixed = session.scalar(select(Assignment.handout).where(Assignment.id == assignment_id)
                           .with_for_update(read=True))
    own: dict[str, str] = {}
    names = sorted(students)
    for start in range(0, len(names), CHUNK):
        rows = session.execute(
            select(StudentEdition.student, StudentEdition.handout).where(
                StudentEdition.assignment_id == assignment_id,
                StudentEdition.student.in_(names[start:start + CHUNK])))
        own.update((student, handout) for student, handout in rows)
    return fixed, own


def lock_assignment(session: Session, assignment_id: int) -> None:
    """Until the transaction ends, uploads to the assignment wait (they read its row FOR SHARE):
    the submissions re-decided now include every upload committed before."""
    session.execute(select(Assignment.id).where(Assignment.id == assignment_id).with_for_update())


def students(session: Session, assignment_id: int) -> list[StudentEdition]:
    return list(session.scalars(
        select(StudentEdition).where(StudentEdition.assignment_id == assignment_id)
        .order_by(StudentEdition.student)
    ))


def delete(session: Session, row: StudentEdition) -> None:
    session.delete(row)
    session.flush()


def declarations(session: Session, assignment_id: int, student: str | None) -> list[
        tuple[int, str | None, str | None, str | None]]:
    """(id, student, declared, graded) of the assignment's submissions (one student's, or all)."""
    query = select(Submission.id, Submission.student, Submission.declared_handout,
                   Submission.handout).where(Submission.assignment_id == assignment_id)
    if student is not None:
        query = query.where(Submission.student == student)
    return [(r[0], r[1], r[2], r[3]) for r in session.execute(query)]


def regrade_as(session: Session, ids: list[int], handout: str | None) -> None:
    """The edition these submissions are graded under from now on (their next grading)."""
    if ids:
        session.execute(update(Submission).where(Submission.id.in_(ids)).values(handout=handout),
                        execution_options={"synchronize_session": False})
        session.flush()

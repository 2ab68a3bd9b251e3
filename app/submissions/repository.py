"""Queries on submissions and their overrides. Flushes, never commits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, func, insert, or_, select, update
from sqlalchemy.orm import Session

from app.db.models import Assignment, Override, RubricVersion, Submission, SubmissionStatus, User


def add(session: Session, submission: Submission) -> Submission:
    session.add(submission)
    session.flush()
    return submission


def insert_many(session: Session, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Insert submission rows in one statement; their ids in the order of `rows`."""
    # Core, not the unit of work: uploads arrive in batches and the ORM costs several times more
    # per row in the process that also answers HTTP.
    if not rows:
        return []
    statement = insert(Submission).returning(Submission.id, sort_by_parameter_order=True)
    return [row.id for row in session.connection().execute(statement, list(rows))]


def current_version_ids(session: Session, slug: str) -> tuple[int, int] | None:
    """(assignment id, current rubric version id) of an assignment, if it has a rubric."""
    row = session.execute(
        select(Assignment.id, RubricVersion.id)
        .join(RubricVersion, RubricVersion.assignment_id == Assignment.id)
        .where(Assignment.slug == slug, RubricVersion.is_current.is_(True))
    ).first()
    return None if row is None else (row[0], row[1])


def get(session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)


def get_many(session: Session, submission_ids: Sequence[int]) -> list[Submission]:
    if not submission_ids:
        return []
    return list(
        session.scalars(
            select(Submission).where(Submission.id.in_(submission_ids)).order_by(Submission.id)
        )
    )


def owned_by(user: User) -> Select[Submission]:
    """A student's own: uploaded with their token, or filed under their name by an instructor."""
    return select(Submission).where(
        or_(Submission.uploader_id == user.id, Submission.student == user.name)
    )


def list_for_assignment(
    session: Session,
    assignment_id: int,
    owner: User | None,
    limit: int,
    offset: int,
) -> list[Submission]:
    query = owned_by(owner) if owner is not None else select(Submission)
    query = (
        query.where(Submission.assignment_id == assignment_id)
        .order_by(Submission.id)
        .limit(limit)
        .offset(offset)
    )
    return list(session.scalars(query))


def ids_for_assignment(session: Session, assignment_id: int) -> list[int]:
    return list(
        session.scalars(
            select(Submission.id)
            .where(Submission.assignment_id == assignment_id)
            .order_by(Submission.id)
        )
    )


def overrides_for(
    session: Session, submission_ids: Sequence[int]
) -> dict[int, dict[str, Override]]:
    found: dict[int, dict[str, Override]] = {}
    if not submission_ids:
        return found
    for override in session.scalars(
        select(Override).where(Override.submission_id.in_(submission_ids))
    ):
        found.setdefault(override.submission_id, {})[override.item_id] = override
    return found


def count_uploaded_by(session: Session, assignment_id: int, uploader_id: int) -> int:
    """How many times this user has uploaded to the assignment themselves."""
    return int(
        session.scalar(
            select(func.count(Submission.id)).where(
                Submission.assignment_id == assignment_id, Submission.uploader_id == uploader_id
            )
        )
        or 0
    )


WAITING = (SubmissionStatus.QUEUED.value, SubmissionStatus.GRADING.value)


def hold_uploaders(session: Session, uploader_ids: Sequence[int]) -> None:
    """Lock these users' rows until the transaction ends, in id order (PostgreSQL; SQLite has
    one writer at a time): two API processes storing one student's uploads at once count each
    other's, so neither passes a per-student limit by checking it before the other stored."""
    if uploader_ids and session.get_bind().dialect.name != "sqlite":
        session.execute(select(User.id).where(User.id.in_(sorted(uploader_ids)))
                        .order_by(User.id).with_for_update())


def count_waiting_by(session: Session, uploader_ids: Sequence[int]) -> dict[int, int]:
    """uploader id -> how many of their own uploads, to any assignment, wait for grading or are
    being graded."""
    if not uploader_ids:
        return {}
    rows = session.execute(
        select(Submission.uploader_id, func.count(Submission.id))
        .where(Submission.uploader_id.in_(sorted(uploader_ids)), Submission.status.in_(WAITING))
        .group_by(Submission.uploader_id)
    )
    return {int(uploader): int(count) for uploader, count in rows if uploader is not None}


def list_owned(session: Session, assignment_id: int, owner: User) -> list[Submission]:
    return list(
        session.scalars(
            owned_by(owner).where(Submission.assignment_id == assignment_id).order_by(Submission.id)
        )
    )


def set_chosen(session: Session, submission: Submission) -> None:
    """Mark this submission as the one that counts, and no other of the same student."""
    session.execute(
        update(Submission)
        .where(
            Submission.assignment_id == submission.assignment_id,
            Submission.student == submission.student,
            Submission.id != submission.id,
        )
        .values(chosen=False)
    )
    submission.chosen = True
    session.flush()


def latest_per_student(session: Session, assignment_id: int) -> list[int]:
    """The latest submission of each student (a submission filed under nobody is its own)."""
    rows = session.execute(
        select(Submission.id, Submission.student)
        .where(Submission.assignment_id == assignment_id)
        .order_by(Submission.id)
    ).all()
    latest: dict[str, int] = {}
    for submission_id, student in rows:
        latest[student or f"submission-{submission_id}"] = submission_id
    return sorted(latest.values())

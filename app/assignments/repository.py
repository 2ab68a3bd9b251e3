"""Queries on assignments and their rubric versions. Flushes, never commits."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from app.db.models import Assignment, RubricVersion


def get_by_slug(session: Session, slug: str) -> Assignment | None:
    return session.scalar(select(Assignment).where(Assignment.slug == slug))


def list_all(session: Session) -> list[Assignment]:
    return list(session.scalars(select(Assignment).order_by(Assignment.slug)))


def current_version(session: Session, assignment_id: int) -> RubricVersion | None:
    return session.scalar(
        select(RubricVersion).where(
            RubricVersion.assignment_id == assignment_id, RubricVersion.is_current.is_(True)
        )
    )


def last_synced_version(session: Session, assignment_id: int) -> RubricVersion | None:
    """The version the rubric directory sync loaded last (see `service.sync_rubric_dir`)."""
    return session.scalar(
        select(RubricVersion)
        .where(RubricVersion.assignment_id == assignment_id, RubricVersion.synced_at.is_not(None))
        .order_by(RubricVersion.synced_at.desc(), RubricVersion.id.desc())
        .limit(1)
    )


def versions(session: Session, assignment_id: int) -> list[RubricVersion]:
    return list(
        session.scalars(
            select(RubricVersion)
            .where(RubricVersion.assignment_id == assignment_id)
            .order_by(RubricVersion.id)
        )
    )


def get_version(session: Session, version_id: int) -> RubricVersion | None:
    return session.get(RubricVersion, version_id)


def add_assignment(session: Session, slug: str, title: str) -> Assignment:
    assignment = Assignment(slug=slug, title=title)
    session.add(assignment)
    session.flush()
    return assignment


def find_version(session: Session, assignment_id: int, content_hash: str) -> RubricVersion | None:
    return session.scalar(
        select(RubricVersion).where(
            RubricVersion.assignment_id == assignment_id,
            RubricVersion.content_hash == content_hash,
        )
    )


def make_current(session: Session, version: RubricVersion) -> None:
    session.execute(
        update(RubricVersion)
        .where(RubricVersion.assignment_id == version.assignment_id, RubricVersion.id != version.id)
        .values(is_current=False)
    )
    version.is_current = True
    session.flush()


def add_version(
    session: Session, assignment: Assignment, label: str, content_hash: str, text: str,
    source: str, battery_files: bytes | None = None,
) -> RubricVersion:
    version = RubricVersion(
        assignment_id=assignment.id,
        label=label,
        content_hash=content_hash,
        source_text=text,
        source_name=source,
        battery_files=battery_files,
        is_current=False,
    )
    session.add(version)
    session.flush()
    return version

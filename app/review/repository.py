"""Review-queue and override queries. Flushes, never commits."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import ColumnElement, Row, and_, delete, func, select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, ItemScore, Override, Submission

CHUNK = 500  # submission ids per IN (...): well under every backend's parameter limit


def _waiting(assignment_id: int, chunk: Sequence[int]) -> list[ColumnElement[bool]]:
    """An unsure item of a current run of one of these submissions, with no decision yet."""
    decided = select(Override.id).where(
        and_(Override.submission_id == Submission.id, Override.item_id == ItemScore.item_id)
    )
    return [
        Submission.assignment_id == assignment_id,
        Submission.id.in_(chunk),
        GradingRun.is_current.is_(True),
        ItemScore.status == "needs_review",
        ~decided.exists(),
    ]


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def queue(
    session: Session, assignment_id: int, submission_ids: Sequence[int], limit: int
) -> list[Row[ItemScore, GradingRun, Submission]]:
    """Items the machine was unsure of, with no instructor decision yet, oldest first, of the
    given submissions only (the ones that count)."""
    found: list[Row[ItemScore, GradingRun, Submission]] = []
    # Per chunk of ids (a bounded IN list), each chunk's oldest `limit`: the oldest `limit` of
    # all of them are among these.
    for chunk in _chunks(submission_ids):
        query = (
            select(ItemScore, GradingRun, Submission)
            .join(GradingRun, ItemScore.run_id == GradingRun.id)
            .join(Submission, GradingRun.submission_id == Submission.id)
            .where(*_waiting(assignment_id, chunk))
            .order_by(Submission.created_at, Submission.id, ItemScore.position)
            .limit(limit)
        )
        found.extend(session.execute(query).all())
    found.sort(key=lambda row: (row[2].created_at, row[2].id, row[0].position))
    return found[:limit]


def waiting_count(session: Session, assignment_id: int, submission_ids: Sequence[int]) -> int:
    """How many items `queue` would list without a limit."""
    total = 0
    for chunk in _chunks(submission_ids):
        total += session.scalar(
            select(func.count(ItemScore.id))
            .join(GradingRun, ItemScore.run_id == GradingRun.id)
            .join(Submission, GradingRun.submission_id == Submission.id)
            .where(*_waiting(assignment_id, chunk))
        ) or 0
    return total


def get_override(session: Session, submission_id: int, item_id: str) -> Override | None:
    return session.scalar(
        select(Override).where(Override.submission_id == submission_id, Override.item_id == item_id)
    )


def add_override(session: Session, override: Override) -> Override:
    session.add(override)
    session.flush()
    return override


def delete_override(session: Session, submission_id: int, item_id: str) -> int:
    result = session.execute(
        delete(Override).where(Override.submission_id == submission_id, Override.item_id == item_id)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def overridden_items(
    session: Session, assignment_id: int
) -> list[Row[Override, ItemScore, GradingRun]]:
    """Every override with the current machine score of its item (for exemplars)."""
    query = (
        select(Override, ItemScore, GradingRun)
        .join(Submission, Override.submission_id == Submission.id)
        .join(
            GradingRun,
            and_(GradingRun.submission_id == Submission.id, GradingRun.is_current.is_(True)),
        )
        .join(
            ItemScore,
            and_(ItemScore.run_id == GradingRun.id, ItemScore.item_id == Override.item_id),
        )
        .where(Submission.assignment_id == assignment_id)
        .order_by(Override.item_id, Override.id)
    )
    return list(session.execute(query).all())


def waiting_per_item(
    session: Session, assignment_id: int, submission_ids: Sequence[int]
) -> dict[tuple[str, str], int]:
    """(item id, question id) -> how many of its items `queue` would list without a limit."""
    counts: dict[tuple[str, str], int] = {}
    for chunk in _chunks(submission_ids):
        rows = session.execute(
            select(ItemScore.item_id, ItemScore.question_id, func.count(ItemScore.id))
            .join(GradingRun, ItemScore.run_id == GradingRun.id)
            .join(Submission, GradingRun.submission_id == Submission.id)
            .where(*_waiting(assignment_id, chunk))
            .group_by(ItemScore.item_id, ItemScore.question_id)
        ).all()
        for item_id, question_id, n in rows:
            counts[(item_id, question_id)] = counts.get((item_id, question_id), 0) + n
    return counts

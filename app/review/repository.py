"""Review-queue and override queries. Flushes, never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Row, and_, delete, select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, ItemScore, Override, Submission

CHUNK = 500  # submission ids per IN (...): well under every backend's parameter limit


def queue(
    session: Session, assignment_id: int, submission_ids: Sequence[int], limit: int
) -> list[Row[ItemScore, GradingRun, Submission]]:
    """Items the machine was unsure of, with no instructor decision yet, oldest first, of the
    given submissions only (the ones that count)."""
    decided = select(Override.id).where(
        and_(Override.submission_id == Submission.id, Override.item_id == ItemScore.item_id)
    )
    order = (Submission.created_at, Submission.id, ItemScore.position)
    found: list[Row[ItemScore, GradingRun, Submission]] = []
    # Per chunk of ids (a bounded IN list), each chunk's oldest `limit`: the oldest `limit` of
    # all of them are among these.
    for start in range(0, len(submission_ids), CHUNK):
        chunk = submission_ids[start : start + CHUNK]
        query = (
            select(ItemScore, GradingRun, Submission)
            .join(GradingRun, ItemScore.run_id == GradingRun.id)
            .join(Submission, GradingRun.submission_id == Submission.id)
            .where(
                Submission.assignment_id == assignment_id,
                Submission.id.in_(chunk),
                GradingRun.is_current.is_(True),
                ItemScore.status == "needs_review",
                ~decided.exists(),
            )
            .order_by(*order)
            .limit(limit)
        )
        found.extend(session.execute(query).all())
    found.sort(key=lambda row: (row[2].created_at, row[2].id, row[0].position))
    return found[:limit]


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

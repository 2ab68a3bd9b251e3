"""Answer-group queries: the counted submissions' scores of one item, overrides, pending counts.
Reads only."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sqlalchemy import Row, and_, func, select
from sqlalchemy.orm import Session

from app.db.models import GradingRun, ItemScore, Override, Submission

CHUNK = 500  # ids per IN (...): well under every backend's parameter limit


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def item_rows(
    session: Session, submission_ids: Sequence[int], item_id: str
) -> list[Row[ItemScore, GradingRun, Submission]]:
    """The item's machine score, run and submission, for each submission with a current run."""
    out: list[Row[ItemScore, GradingRun, Submission]] = []
    for chunk in _chunks(submission_ids):
        out.extend(session.execute(
            select(ItemScore, GradingRun, Submission)
            .join(GradingRun, ItemScore.run_id == GradingRun.id)
            .join(Submission, GradingRun.submission_id == Submission.id)
            .where(Submission.id.in_(chunk), GradingRun.is_current.is_(True),
                   ItemScore.item_id == item_id)
        ).all())
    return out


def overrides(session: Session, submission_ids: Sequence[int], item_id: str) -> dict[int, Override]:
    found: dict[int, Override] = {}
    for chunk in _chunks(submission_ids):
        for override in session.scalars(
            select(Override).where(Override.submission_id.in_(chunk), Override.item_id == item_id)
        ):
            found[override.submission_id] = override
    return found


def pending_by_item(session: Session, submission_ids: Sequence[int]) -> dict[str, int]:
    """Item id -> how many of these submissions' current scores need review, undecided."""
    decided = select(Override.id).where(
        and_(Override.submission_id == GradingRun.submission_id,
             Override.item_id == ItemScore.item_id)
    )
    counts: dict[str, int] = {}
    for chunk in _chunks(submission_ids):
        for item_id, count in session.execute(
            select(ItemScore.item_id, func.count())
            .join(GradingRun, ItemScore.run_id == GradingRun.id)
            .where(GradingRun.submission_id.in_(chunk), GradingRun.is_current.is_(True),
                   ItemScore.status == "needs_review", ~decided.exists())
            .group_by(ItemScore.item_id)
        ):
            counts[item_id] = counts.get(item_id, 0) + int(count)
    return counts


def submissions(session: Session, submission_ids: Sequence[int]) -> list[Submission]:
    """The submissions themselves (held by the caller, later lookups by id hit the session)."""
    out: list[Submission] = []
    for chunk in _chunks(submission_ids):
        out.extend(session.scalars(select(Submission).where(Submission.id.in_(chunk))))
    return out

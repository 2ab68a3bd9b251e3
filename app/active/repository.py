"""Active-grading queries: the held-back checks of one item. Flushes, never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models import ActiveCheck

CHUNK = 500  # ids per IN (...)


def checks(session: Session, submission_ids: Sequence[int], item_id: str) -> dict[int, ActiveCheck]:
    found: dict[int, ActiveCheck] = {}
    for start in range(0, len(submission_ids), CHUNK):
        chunk = submission_ids[start : start + CHUNK]
        for check in session.scalars(select(ActiveCheck).where(
                ActiveCheck.submission_id.in_(chunk), ActiveCheck.item_id == item_id)):
            found[check.submission_id] = check
    return found


def add_check(session: Session, check: ActiveCheck) -> ActiveCheck:
    session.add(check)
    session.flush()
    return check

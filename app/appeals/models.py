"""A student's regrade request on one item of a submission, with the staff answer."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db.base import Base, utcnow


class RequestStatus(StrEnum):
    OPEN = "open"  # waiting for staff
    ANSWERED = "answered"  # staff replied (points kept or changed)
    CLOSED = "closed"  # closed unanswered when the grades were withdrawn


class RegradeRequest(Base):
    """One request: the student's comment, and once answered the staff reply and the points
    before and after. The points themselves change only through an override (app.review), so
    they survive regrades and reach the exports like every other human decision."""

    __tablename__ = "regrade_requests"
    __table_args__ = (
        Index("ix_regrade_requests_submission_item", "submission_id", "item_id"),
        Index("ix_regrade_requests_requester", "requester_id"),
        # At most one open request per item: a second one while the first waits is refused,
        # by the database too (two posts at once).
        Index(
            "uq_regrade_requests_open_item",
            "submission_id",
            "item_id",
            unique=True,
            sqlite_where=text("status = 'open'"),
            postgresql_where=text("status = 'open'"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    submission_id: Mapped[int] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(String(100))
    requester_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(20), default=RequestStatus.OPEN.value)
    comment: Mapped[str] = mapped_column(Text)  # the student's, cleaned and bounded
    # The points the student saw when asking (None: none were shown).
    points_before: Mapped[Decimal | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The staff answer, shown to the student.
    reply: Mapped[str | None] = mapped_column(Text, default=None)
    answered_by: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), default=None
    )
    answered_at: Mapped[datetime | None] = mapped_column(default=None)
    points_after: Mapped[Decimal | None] = mapped_column(default=None)
    # Why it was closed unanswered, in the student's words (a withdrawal of the grades).
    closed_note: Mapped[str | None] = mapped_column(Text, default=None)
    closed_at: Mapped[datetime | None] = mapped_column(default=None)

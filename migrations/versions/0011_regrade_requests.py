"""Regrade requests: a student's request on one released item and the staff answer
(app/appeals). At most one open request per item (a partial unique index).

New table only (nothing existing is altered).

Revision ID: 0011_regrade_requests
Revises: 0010_active_checks
Create Date: 2026-11-28 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_regrade_requests"
down_revision: str | None = "0010_active_checks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

POINTS = sa.Numeric(precision=10, scale=2)
OPEN = sa.text("status = 'open'")


def _user(column: str) -> sa.Column[int]:
    return sa.Column(
        column,
        sa.Integer(),
        sa.ForeignKey("users.id", ondelete="SET NULL",
                      name=f"fk_regrade_requests_{column}_users"),
        nullable=True,
    )


def upgrade() -> None:
    op.create_table(
        "regrade_requests",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer(),
            sa.ForeignKey("submissions.id", ondelete="CASCADE",
                          name="fk_regrade_requests_submission_id_submissions"),
            nullable=False,
        ),
        sa.Column("item_id", sa.String(length=100), nullable=False),
        _user("requester_id"),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("comment", sa.Text(), nullable=False),
        sa.Column("points_before", POINTS, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reply", sa.Text(), nullable=True),
        _user("answered_by"),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("points_after", POINTS, nullable=True),
        sa.Column("closed_note", sa.Text(), nullable=True),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_regrade_requests"),
    )
    op.create_index("ix_regrade_requests_submission_item", "regrade_requests",
                    ["submission_id", "item_id"])
    op.create_index("ix_regrade_requests_requester", "regrade_requests", ["requester_id"])
    op.create_index("uq_regrade_requests_open_item", "regrade_requests",
                    ["submission_id", "item_id"], unique=True,
                    sqlite_where=OPEN, postgresql_where=OPEN)


def downgrade() -> None:
    op.drop_index("uq_regrade_requests_open_item", table_name="regrade_requests")
    op.drop_index("ix_regrade_requests_requester", table_name="regrade_requests")
    op.drop_index("ix_regrade_requests_submission_item", table_name="regrade_requests")
    op.drop_table("regrade_requests")

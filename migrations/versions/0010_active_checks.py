"""Active grading: each decision taken through it keeps what the machine had suggested for
that answer just before (a held-out check of the item's error estimate).

New table only (nothing existing is altered).

Revision ID: 0010_active_checks
Revises: 0009_submission_handout
Create Date: 2026-11-28 16:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_active_checks"
down_revision: str | None = "0009_submission_handout"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "active_checks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "submission_id",
            sa.Integer(),
            sa.ForeignKey(
                "submissions.id",
                ondelete="CASCADE",
                name="fk_active_checks_submission_id_submissions",
            ),
            nullable=False,
        ),
        sa.Column("item_id", sa.String(length=100), nullable=False),
        sa.Column("machine_points", sa.Numeric(precision=10, scale=2), nullable=False),
        sa.Column("error_probability", sa.Float(), nullable=False),
        sa.Column("reason", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_active_checks"),
        sa.UniqueConstraint("submission_id", "item_id",
                            name="uq_active_checks_submission_id"),
    )


def downgrade() -> None:
    op.drop_table("active_checks")

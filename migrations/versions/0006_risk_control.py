"""Risk control: per-question error targets and the calibration snapshot grading receives.

New tables only (nothing existing is altered, so no batch copy of any table).

Revision ID: 0006_risk_control
Revises: 0005_roster
Create Date: 2026-11-22 17:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_risk_control"
down_revision: str | None = "0005_roster"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "risk_targets",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "assignment_id",
            sa.Integer(),
            sa.ForeignKey(
                "assignments.id",
                ondelete="CASCADE",
                name="fk_risk_targets_assignment_id_assignments",
            ),
            nullable=False,
        ),
        sa.Column("question_id", sa.String(length=100), nullable=False),
        sa.Column("target", sa.Float(), nullable=False),
        sa.Column(
            "user_id",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_risk_targets_user_id_users"),
            nullable=True,
        ),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_risk_targets"),
        sa.UniqueConstraint("assignment_id", "question_id", name="uq_risk_targets_assignment_id"),
    )
    op.create_table(
        "calibration_snapshots",
        sa.Column(
            "assignment_id",
            sa.Integer(),
            sa.ForeignKey(
                "assignments.id",
                ondelete="CASCADE",
                name="fk_calibration_snapshots_assignment_id_assignments",
            ),
            nullable=False,
        ),
        sa.Column("rubric_hash", sa.String(length=64), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("assignment_id", name="pk_calibration_snapshots"),
    )


def downgrade() -> None:
    op.drop_table("calibration_snapshots")
    op.drop_table("risk_targets")

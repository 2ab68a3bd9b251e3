"""Visibility and release: assignment schedule (opens, due, late policy, submission limit, which
submission counts, grades published), the instructor-chosen submission, student-facing item
feedback and grading time.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 14:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Added in place (ALTER TABLE ... ADD COLUMN): existing rows take the server defaults.
    with op.batch_alter_table("assignments", recreate="never") as batch:
        batch.add_column(sa.Column("opens_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("due_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("late_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column(
                "late_penalty_percent",
                sa.Numeric(precision=10, scale=2),
                nullable=False,
                server_default="0",
            )
        )
        batch.add_column(sa.Column("max_submissions", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("counts", sa.String(length=20), nullable=False, server_default="latest")
        )
        batch.add_column(
            sa.Column("grades_published_at", sa.DateTime(timezone=True), nullable=True)
        )
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.add_column(
            sa.Column("chosen", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("grading_runs", recreate="never") as batch:
        batch.add_column(sa.Column("execution_time", sa.Double(), nullable=True))
    with op.batch_alter_table("item_scores", recreate="never") as batch:
        batch.add_column(sa.Column("student_feedback", sa.Text(), nullable=True))


def downgrade() -> None:
    # Never a copy-and-swap of the table on SQLite: dropping the old `assignments` with foreign
    # keys on would cascade to every submission. SQLite (3.35+) drops a plain column in place.
    with op.batch_alter_table("item_scores", recreate="never") as batch:
        batch.drop_column("student_feedback")
    with op.batch_alter_table("grading_runs", recreate="never") as batch:
        batch.drop_column("execution_time")
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.drop_column("chosen")
    with op.batch_alter_table("assignments", recreate="never") as batch:
        for column in (
            "grades_published_at",
            "counts",
            "max_submissions",
            "late_penalty_percent",
            "late_until",
            "due_at",
            "opens_at",
        ):
            batch.drop_column(column)

"""Roster: the class list with the identifiers an LMS knows each student by (SIS user id, SIS
login, section, Canvas user id), per course or per assignment.

Revision ID: 0005_roster
Revises: 0004
Create Date: 2026-11-22 17:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_roster"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A new table: nothing existing is copied or recreated.
    op.create_table(
        "roster_students",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("scope", sa.String(length=100), nullable=False),
        sa.Column("student_id", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("sis_user_id", sa.String(length=200), nullable=False),
        sa.Column("sis_login_id", sa.String(length=200), nullable=False),
        sa.Column("section", sa.String(length=200), nullable=False),
        sa.Column("canvas_user_id", sa.String(length=50), nullable=False),
        sa.Column("imported_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roster_students")),
        sa.UniqueConstraint(
            "scope", "student_id", name=op.f("uq_roster_students_scope")
        ),
    )
    op.create_index(
        op.f("ix_roster_students_scope"), "roster_students", ["scope"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_roster_students_scope"), table_name="roster_students")
    op.drop_table("roster_students")

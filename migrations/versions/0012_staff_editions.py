"""Staff decide the handout edition (app/editions): an assignment's fixed edition, a student's
edition per assignment, and what each upload itself declared.

`submissions.handout` becomes the edition graded; `submissions.declared_handout` keeps the
upload's own declaration, so that a student's declaration never decides the grade once staff
have set an edition, and clearing staff's edition returns to it. Existing rows were graded as
declared: their declaration is their `handout`.

Revision ID: 0012_staff_editions
Revises: 0011_regrade_requests
Create Date: 2026-11-29 15:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_staff_editions"
down_revision: str | None = "0011_regrade_requests"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable columns need no table copy on SQLite (ALTER TABLE ADD COLUMN).
    with op.batch_alter_table("assignments", recreate="never") as batch:
        batch.add_column(sa.Column("handout", sa.String(length=40), nullable=True))
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.add_column(sa.Column("declared_handout", sa.String(length=40), nullable=True))
    op.execute("UPDATE submissions SET declared_handout = handout")
    op.create_table(
        "student_editions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column(
            "assignment_id",
            sa.Integer(),
            sa.ForeignKey("assignments.id", ondelete="CASCADE",
                          name="fk_student_editions_assignment_id_assignments"),
            nullable=False,
        ),
        sa.Column("student", sa.String(length=200), nullable=False),
        sa.Column("handout", sa.String(length=40), nullable=False),
        sa.Column(
            "set_by",
            sa.Integer(),
            sa.ForeignKey("users.id", ondelete="SET NULL",
                          name="fk_student_editions_set_by_users"),
            nullable=True,
        ),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_student_editions"),
        sa.UniqueConstraint("assignment_id", "student",
                            name="uq_student_editions_assignment_id_student"),
    )


def downgrade() -> None:
    # The graded edition (`handout`) stays: a downgraded server grades it as declared.
    op.drop_table("student_editions")
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.drop_column("declared_handout")
    with op.batch_alter_table("assignments", recreate="never") as batch:
        batch.drop_column("handout")

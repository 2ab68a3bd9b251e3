"""A rubric version keeps the files its code batteries read (`rubric_versions.battery_files`):
grading builds the rubric from them, never from the folder it was loaded from.

Versions loaded before have none and keep finding their batteries beside the file they were
loaded from, as before; loading the rubric again stores them (a new version).

Revision ID: 0013_rubric_battery_files
Revises: 0012_staff_editions
Create Date: 2026-11-29 18:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_rubric_battery_files"
down_revision: str | None = "0012_staff_editions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column needs no table copy on SQLite (ALTER TABLE ADD COLUMN).
    with op.batch_alter_table("rubric_versions", recreate="never") as batch:
        batch.add_column(sa.Column("battery_files", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    # Its versions then find their batteries beside the file they were loaded from again.
    with op.batch_alter_table("rubric_versions", recreate="never") as batch:
        batch.drop_column("battery_files")

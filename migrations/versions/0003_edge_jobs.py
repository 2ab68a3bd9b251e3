"""Regrade jobs as leases: a heartbeat (is the runner alive?) and the error that stopped one.

Altered in place (recreate="never"): copying regrade_jobs on SQLite would cascade to the
grading runs that reference it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 15:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("regrade_jobs", recreate="never") as batch:
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("error", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("regrade_jobs", recreate="never") as batch:
        batch.drop_column("error")
        batch.drop_column("heartbeat_at")

"""Reliability: grading leases and attempts, upload idempotency keys, rubric sync record.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 14:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.add_column(
            sa.Column("attempts", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("claimed_by", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("idempotency_key", sa.String(length=200), nullable=True))
        batch.create_index("ix_submissions_status_lease", ["status", "lease_until"])
        batch.create_index(
            "ix_submissions_uploader_idempotency", ["uploader_id", "idempotency_key"], unique=True
        )
    with op.batch_alter_table("rubric_versions", recreate="never") as batch:
        batch.add_column(sa.Column("synced_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rubric_versions", recreate="never") as batch:
        batch.drop_column("synced_at")
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.drop_index("ix_submissions_uploader_idempotency")
        batch.drop_index("ix_submissions_status_lease")
        batch.drop_column("idempotency_key")
        batch.drop_column("claimed_by")
        batch.drop_column("lease_until")
        batch.drop_column("attempts")

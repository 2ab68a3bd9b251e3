"""Run keys: what a stored grading run's results were computed from (issue #16).

Two nullable columns on grading_runs: the located submission's digest and the result-cache keys
of the run's groups (JSON), so that a regrade can tell, without reading the upload, which
results a rubric edit leaves as they were. Existing runs keep NULL (a regrade grades them as
before and records their keys).

Revision ID: 0007_run_keys
Revises: 0006_risk_control
Create Date: 2026-11-22 20:15:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_run_keys"
down_revision: str | None = "0006_risk_control"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Adding nullable columns needs no table copy on SQLite (ALTER TABLE ADD COLUMN).
    with op.batch_alter_table("grading_runs", recreate="never") as batch:
        batch.add_column(sa.Column("located_digest", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("result_keys", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("grading_runs", recreate="never") as batch:
        batch.drop_column("result_keys")
        batch.drop_column("located_digest")

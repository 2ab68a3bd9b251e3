"""An index on item_scores (run_id, status): a regrade re-scoring runs in place reads of each
run only its item count, the rows it recomputes and the rows whose status decides the run's
(app.grading.repository.run_scores); without the index the last meant every row of every run.

Revision ID: 0008_item_status_index
Revises: 0007_run_keys
Create Date: 2026-11-23 07:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008_item_status_index"
down_revision: str | None = "0007_run_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_item_scores_run_status", "item_scores", ["run_id", "status"])


def downgrade() -> None:
    op.drop_index("ix_item_scores_run_status", table_name="item_scores")

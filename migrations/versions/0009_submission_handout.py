"""The handout edition a submission declares (issue #28): one nullable column on submissions.

The edition an upload names (the API's `handout` field, `gradeformer grade --handout`) or its
document declares (a JSON `handout` key, a notebook's `metadata.gradeformer.handout`), as the
rubric writes it; graded with it and kept by regrades. Existing submissions keep NULL: no edition
declared, graded as before.

Revision ID: 0009_submission_handout
Revises: 0008_item_status_index
Create Date: 2026-11-28 16:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_submission_handout"
down_revision: str | None = "0008_item_status_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A nullable column needs no table copy on SQLite (ALTER TABLE ADD COLUMN).
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.add_column(sa.Column("handout", sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions", recreate="never") as batch:
        batch.drop_column("handout")

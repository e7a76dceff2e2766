"""A move's first answer is kept for idempotent replays without an HTTP status: every answer kept was a
201 (a refused move is never kept), so the status is the API's to give, not the store's to hold.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("idempotency") as batch:
        batch.drop_column("status")


def downgrade() -> None:
    with op.batch_alter_table("idempotency") as batch:
        batch.add_column(sa.Column("status", sa.Integer, nullable=False, server_default="201"))

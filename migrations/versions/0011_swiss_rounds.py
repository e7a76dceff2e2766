"""Swiss tournaments: the rounds a tournament has made, whether it makes more, and its byes
(service.tournaments). A round is added by one conditional update of ``current_round``: the
revision check that makes each round exactly once, whichever process gets there first.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("current_round", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("open", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("byes", Json, nullable=False, server_default=sa.text("'[]'")))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("byes")
        batch.drop_column("open")
        batch.drop_column("current_round")

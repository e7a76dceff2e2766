"""A challenge commits to its game's server seed when it is made, and keeps the entropy each account adds
with its challenge or acceptance: a challenge's game mixes its players' entropy into its shuffles, as a game
whose seats are taken one by one does.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.add_column(sa.Column("server_seed", sa.String(64), nullable=True))  # (null: drawn when its game starts)
        batch.add_column(sa.Column("entropy", Json, nullable=True))  # (by accepted account; null: none added)


def downgrade() -> None:
    with op.batch_alter_table("challenges") as batch:
        batch.drop_column("entropy")
        batch.drop_column("server_seed")

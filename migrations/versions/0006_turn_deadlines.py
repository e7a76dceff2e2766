"""Turn clocks: games.deadline, when the turn a clocked game waits for times out, indexed.

The sweeper reads only the games whose deadline has passed, through a partial
index that holds the clocked games waiting for a turn and nothing else.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

WAITING = sa.text("deadline IS NOT NULL")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_games_deadline", "games", ["deadline"], sqlite_where=WAITING, postgresql_where=WAITING)


def downgrade() -> None:
    op.drop_index("ix_games_deadline", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("deadline")

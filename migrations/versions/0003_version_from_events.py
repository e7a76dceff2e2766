"""A game's version is its newest event's: drop games.version and games.updated_at.

An append used to bump both columns on the games row as its optimistic version
check; that third page written per commit cost a fifth of an SQLite append. The
check now reads the newest version of the game's events under the append's lock,
backed by UNIQUE(game_id, version), and the listing reads both from the events.
Going down fills the columns back in from the events.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("updated_at")
        batch.drop_column("version")


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))
        batch.add_column(sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE games SET"
        " version = coalesce((SELECT max(version) FROM events WHERE events.game_id = games.id), 0),"
        " updated_at = coalesce((SELECT recorded_at FROM events WHERE events.game_id = games.id"
        " ORDER BY version DESC LIMIT 1), created_at)"
    )
    with op.batch_alter_table("games") as batch:
        batch.alter_column("version", server_default=None)
        batch.alter_column("updated_at", existing_type=sa.DateTime(timezone=True), nullable=False)

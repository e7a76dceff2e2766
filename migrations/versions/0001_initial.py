"""The initial schema: games, events, seats, idempotency.

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
STAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
        sa.Column("updated_at", STAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
    )
    op.create_index("ix_games_created_at_id", "games", ["created_at", "id"])
    op.create_index("ix_games_status_created_at_id", "games", ["status", "created_at", "id"])
    op.create_index("ix_games_game_created_at_id", "games", ["game", "created_at", "id"])
    op.create_table(
        "events",
        sa.Column("position", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True,
                  nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("data", JSON, nullable=False),
        sa.Column("recorded_at", STAMP, nullable=False),
        sa.PrimaryKeyConstraint("position", name="pk_events"),
        sa.UniqueConstraint("game_id", "version", name="uq_events_game_id_version"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_events_game_id_games"),
    )
    op.create_table(
        "seats",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_seats"),
        sa.UniqueConstraint("game_id", "seat", name="uq_seats_game_id_seat"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_seats_game_id_games"),
    )
    op.create_table(
        "idempotency",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("body", JSON, nullable=False),
        sa.Column("created_at", STAMP, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", "key", name="pk_idempotency"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_idempotency_game_id_games"),
    )


def downgrade() -> None:
    op.drop_table("idempotency")
    op.drop_table("seats")
    op.drop_table("events")
    op.drop_index("ix_games_game_created_at_id", table_name="games")
    op.drop_index("ix_games_status_created_at_id", table_name="games")
    op.drop_index("ix_games_created_at_id", table_name="games")
    op.drop_table("games")

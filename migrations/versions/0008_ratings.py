"""Ratings: rated games in the order they finished, and the ratings projection.

- ``rated_finishes``: one row per rated game, written with its last events; ``seq``
  counts them from 1 in the order they committed (the ``finishes`` counter's row lock
  orders them), the order in which the projection, and a rebuild, apply them.
- ``ladder_counters``: ``finishes`` (the last seq given) and ``ratings`` (the last seq the
  projection applied, written with the ratings it changed: each game applied once).
- ``ratings``, ``rating_history``: the projection (``cardhall ratings rebuild`` remakes both).
- ``pool_entries``: the accounts waiting in each game's pool, and what games they accept.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "rated_finishes",
        sa.Column("seq", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("seq", name="pk_rated_finishes"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_rated_finishes_game_id_games"),
        sa.UniqueConstraint("game_id", name="uq_rated_finishes_game_id"),
    )
    op.create_table(
        "ladder_counters",
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column("value", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_ladder_counters"),
    )
    op.create_table(
        "ratings",
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float(53), nullable=False),
        sa.Column("sigma", sa.Float(53), nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("last_played", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_game_id", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("game", "account", name="pk_ratings"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_ratings_account_accounts"),
    )
    op.create_table(
        "rating_history",
        sa.Column("seq", sa.Integer, autoincrement=False, nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float(53), nullable=False),
        sa.Column("sigma", sa.Float(53), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("seq", "account", name="pk_rating_history"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_rating_history_account_accounts"),
    )
    op.create_index("ix_rating_history_account_game_seq", "rating_history", ["account", "game", "seq"])
    op.create_table(
        "pool_entries",
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("bot", sa.Boolean, nullable=False),
        sa.Column("players", Json, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("mixed", sa.Boolean, nullable=False),
        sa.Column("concurrency", sa.Integer, nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game", "account", name="pk_pool_entries"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_pool_entries_account_accounts"),
    )


def downgrade() -> None:
    for table in ("pool_entries", "rating_history", "ratings", "ladder_counters", "rated_finishes"):
        op.drop_table(table)

"""Accounts: named players with API keys, the games they sit in, challenges, and each account's stream.

- ``accounts``: one row per account; ``name_key`` is the name folded to lower case, so
  names are unique without regard to case.
- ``api_keys``: a key's public prefix, the SHA-256 of the whole key (never the key), its
  scopes and, once revoked, when.
- ``account_seats``: which account sits in which seat of which game (the key moves for it).
- ``challenges``: an offer of a game to named accounts or to anyone, and who accepted.
- ``account_events``: each account's stream, stored, so a bot that reconnects (after a
  restart of the server too) catches up from the event it last saw: ``seq`` counts each
  account's events from 1 (the stream's event ids), ``position`` orders all of them (what
  a process polls to hear of other processes' events).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")
Position = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("name_key", sa.String(32), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("description", sa.String(500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name_key", name="pk_accounts"),
    )
    op.create_table(
        "api_keys",
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("scopes", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("prefix", name="pk_api_keys"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_api_keys_account_accounts"),
    )
    op.create_index("ix_api_keys_account", "api_keys", ["account"])
    op.create_table(
        "account_seats",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_account_seats"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_account_seats_game_id_games"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_account_seats_account_accounts"),
    )
    op.create_index("ix_account_seats_account_game_id", "account_seats", ["account", "game_id"])
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("challenger", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("options", Json, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("invited", Json, nullable=True),
        sa.Column("accepted", Json, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.Column("game_id", sa.String(64), nullable=True),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_challenges"),
    )
    op.create_index("ix_challenges_status_expires_at", "challenges", ["status", "expires_at"])
    op.create_table(
        "account_events",
        sa.Column("position", Position, autoincrement=True, nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("data", Json, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("position", name="pk_account_events"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_account_events_account_accounts"),
        sa.UniqueConstraint("account", "seq", name="uq_account_events_account_seq"),
    )


def downgrade() -> None:
    for table in ("account_events", "challenges", "account_seats", "api_keys", "accounts"):
        op.drop_table(table)

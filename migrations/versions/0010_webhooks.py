"""Webhooks: bot accounts' webhooks, signing secrets, calls, subscriptions and their outbox (service.webhooks).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")
When = sa.DateTime(timezone=True)


def _account(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name=f"fk_{table}_account_accounts")


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("timeout_ms", sa.Integer, nullable=False),
        sa.Column("concurrency", sa.Integer, nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("offline_since", When, nullable=True),
        sa.Column("retry_at", When, nullable=True),
        sa.Column("last_latency_ms", sa.Integer, nullable=True),
        sa.Column("last_late", sa.Boolean, nullable=False),
        _account("webhooks"),
        sa.PrimaryKeyConstraint("account", name="pk_webhooks"),
    )
    op.create_table(
        "webhook_secrets",
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("secret", sa.String(80), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("expires_at", When, nullable=True),
        _account("webhook_secrets"),
        sa.PrimaryKeyConstraint("account", "purpose", "secret", name="pk_webhook_secrets"),
    )
    op.create_table(
        "webhook_calls",
        sa.Column("game_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=False),
        sa.Column("lease_until", When, nullable=False),
        sa.Column("calls", sa.Integer, nullable=False),
        sa.Column("outcome", sa.String(16), nullable=True),
        sa.Column("latency_ms", sa.Integer, nullable=True),
        sa.Column("answered_at", When, nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_webhook_calls_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", "version", "seat", "kind", name="pk_webhook_calls"),
    )
    op.create_index("ix_webhook_calls_account", "webhook_calls", ["account"])
    op.create_table(
        "subscriptions",
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("url", sa.String(2000), nullable=False),
        sa.Column("events", Json, nullable=False),
        sa.Column("created_at", When, nullable=False),
        _account("subscriptions"),
        sa.PrimaryKeyConstraint("account", name="pk_subscriptions"),
    )
    op.create_table(
        "webhook_outbox",
        sa.Column("id", sa.String(40), nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("payload", Json, nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", When, nullable=True),
        sa.Column("delivered_at", When, nullable=True),
        sa.Column("last_error", sa.String(200), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_webhook_outbox"),
    )
    op.create_index("ix_webhook_outbox_next_attempt_at", "webhook_outbox", ["next_attempt_at"])
    op.create_table(
        "webhook_positions",
        sa.Column("name", sa.String(16), nullable=False),
        sa.Column("position", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_webhook_positions"),
    )


def downgrade() -> None:
    for table in ("webhook_positions", "webhook_outbox", "subscriptions", "webhook_calls", "webhook_secrets",
                  "webhooks"):
        op.drop_table(table)

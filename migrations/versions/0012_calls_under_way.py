"""The calls of a webhook bot still under way, indexed: a claim counts them against the bot's
concurrency (persistence.webhooks.WebhookWrites.claim), which read every call the account was ever
made through the index on ``account`` alone, so that each claim took longer with every turn the bot
had played.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

UNDER_WAY = sa.text("outcome IS NULL")


def upgrade() -> None:
    op.create_index("ix_webhook_calls_account_lease_until", "webhook_calls", ["account", "lease_until"],
                    sqlite_where=UNDER_WAY, postgresql_where=UNDER_WAY)


def downgrade() -> None:
    op.drop_index("ix_webhook_calls_account_lease_until", table_name="webhook_calls")

"""Deployment secrets: the key seeded shuffles are drawn under, made once per database.

A seeded game's shuffles are HMAC-keyed with this secret (service.chance), so the
same seed replays the same game on this deployment while nobody who lacks the
secret can search seeds against what a game shows. The value is drawn here, from
the system's cryptographic source, and never leaves the server.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    table = op.create_table(
        "deployment_secrets",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("value", sa.String(128), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_deployment_secrets"),
    )
    op.bulk_insert(table, [{"name": "shuffle", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    op.drop_table("deployment_secrets")

"""Tournaments are listed newest first, and an account's tournaments found, without reading every tournament:
an index on the tournaments' creation time and id (the listing's keyset order), and ``tournament_accounts``,
each account of each tournament (its name key) beside the tournament's creation time, indexed in that order.

Going up, the tournaments made before are entered, each of their accounts once.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")

TOURNAMENTS = sa.table("tournaments", sa.column("id", sa.String), sa.column("spec", Json),
                       sa.column("created_at", sa.DateTime(timezone=True)))


def upgrade() -> None:
    op.create_index("ix_tournaments_created_at_id", "tournaments", ["created_at", "id"])
    members = op.create_table(
        "tournament_accounts",
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"],
                                name="fk_tournament_accounts_tournament_id_tournaments"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_tournament_accounts_account_accounts"),
        sa.PrimaryKeyConstraint("tournament_id", "account", name="pk_tournament_accounts"),
    )
    op.create_index("ix_tournament_accounts_account_created_at_tournament_id", "tournament_accounts",
                    ["account", "created_at", "tournament_id"])
    rows = [{"tournament_id": tournament.id, "account": account, "created_at": tournament.created_at}
            for tournament in op.get_bind().execute(sa.select(TOURNAMENTS)).all()
            for account in sorted({name.lower() for name in tournament.spec["accounts"]})]
    if rows:
        op.bulk_insert(members, rows)


def downgrade() -> None:
    op.drop_index("ix_tournament_accounts_account_created_at_tournament_id", "tournament_accounts")
    op.drop_table("tournament_accounts")
    op.drop_index("ix_tournaments_created_at_id", "tournaments")

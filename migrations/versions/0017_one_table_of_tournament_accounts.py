"""One table keeps a tournament's accounts: ``tournament_accounts`` (0016) takes in ``tournament_entries`` (0015),
which held a subset of its rows under the same key, so that making a tournament writes its accounts once and an
operator keeps one table. Each row says whether another account entered it (``entered``: it is not the maker)
and whether that entry still counts as running (``running``, never on the maker's row), indexed by account for
the count of running entries (service.tournaments.MAX_RUNNING) beside the listing's index.

Going up, the rows of ``tournament_entries`` are marked entered with their ``running``, the others (the makers')
neither, and ``tournament_entries`` is dropped; going down, it is made again from the rows marked entered.
(Every row of ``tournament_entries`` has its row in ``tournament_accounts``: both are written in one
transaction, and 0015 and 0016 filled them from the same tournaments' accounts.)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

ACCOUNTS = sa.table("tournament_accounts", sa.column("tournament_id", sa.String), sa.column("account", sa.String),
                    sa.column("entered", sa.Boolean), sa.column("running", sa.Boolean))
ENTRIES = sa.table("tournament_entries", sa.column("tournament_id", sa.String), sa.column("account", sa.String),
                   sa.column("running", sa.Boolean))


def upgrade() -> None:
    with op.batch_alter_table("tournament_accounts") as batch:
        batch.add_column(sa.Column("entered", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("running", sa.Boolean(), nullable=False, server_default=sa.false()))
    entry = sa.select(ENTRIES.c.running).where(ENTRIES.c.tournament_id == ACCOUNTS.c.tournament_id,
                                               ENTRIES.c.account == ACCOUNTS.c.account)
    op.execute(ACCOUNTS.update().where(entry.exists()).values(entered=True, running=entry.scalar_subquery()))
    op.create_index("ix_tournament_accounts_account_running", "tournament_accounts", ["account", "running"])
    op.drop_index("ix_tournament_entries_account_running", "tournament_entries")
    op.drop_table("tournament_entries")


def downgrade() -> None:
    entries = op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.String(64), nullable=False),
        sa.Column("account", sa.String(32), nullable=False),
        sa.Column("running", sa.Boolean, nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"],
                                name="fk_tournament_entries_tournament_id_tournaments"),
        sa.ForeignKeyConstraint(["account"], ["accounts.name_key"], name="fk_tournament_entries_account_accounts"),
        sa.PrimaryKeyConstraint("tournament_id", "account", name="pk_tournament_entries"),
    )
    op.create_index("ix_tournament_entries_account_running", "tournament_entries", ["account", "running"])
    op.execute(entries.insert().from_select(["tournament_id", "account", "running"], sa.select(
        ACCOUNTS.c.tournament_id, ACCOUNTS.c.account, ACCOUNTS.c.running).where(ACCOUNTS.c.entered)))
    op.drop_index("ix_tournament_accounts_account_running", "tournament_accounts")
    with op.batch_alter_table("tournament_accounts") as batch:
        batch.drop_column("running")
        batch.drop_column("entered")

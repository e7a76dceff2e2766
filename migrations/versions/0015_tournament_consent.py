"""A bot account says who may enter it in a tournament another account makes (``accounts.entered_by``), and
each tournament keeps the accounts another account entered in it (``tournament_entries``), so that making
one counts those accounts' running tournaments without reading every tournament (service.tournaments).

Going up, the tournaments made before are entered, each marked running while it has rounds to make or a
game whose seats are not finished, as service.tournaments would find it.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

Json = sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")

TOURNAMENTS = sa.table("tournaments", sa.column("id", sa.String), sa.column("creator", sa.String),
                       sa.column("spec", Json), sa.column("games", Json), sa.column("open", sa.Boolean))
SEATS = sa.table("account_seats", sa.column("game_id", sa.String), sa.column("finished", sa.Boolean))


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("entered_by", Json, nullable=True))  # (null: anyone, as before)
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
    rows = _entries(op.get_bind())
    if rows:
        op.bulk_insert(entries, rows)


def _entries(bind: sa.Connection) -> list[dict[str, object]]:
    """An entry for each account of each tournament that its maker is not, marked running as it stands."""
    unfinished = set(bind.execute(sa.select(SEATS.c.game_id).distinct().where(sa.not_(SEATS.c.finished))).scalars())
    rows = []
    for tournament in bind.execute(sa.select(TOURNAMENTS)).all():
        running = bool(tournament.open) or any(entry["game_id"] in unfinished for entry in tournament.games)
        entered = {name.lower() for name in tournament.spec["accounts"]} - {tournament.creator.lower()}
        rows += [{"tournament_id": tournament.id, "account": account, "running": running} for account in sorted(entered)]
    return rows


def downgrade() -> None:
    op.drop_index("ix_tournament_entries_account_running", "tournament_entries")
    op.drop_table("tournament_entries")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("entered_by")

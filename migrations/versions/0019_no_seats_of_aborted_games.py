"""A game aborted before it began (aborted while it waited for players, or expired) keeps no account seats: nobody
played it, and an account's page counted it among the games it played. Its seats are forgotten when it is aborted
(service.accounts.record_status); going up, those of the games aborted before are; going down, nothing comes back
(the release before counted them as played, which they never were).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

SEATS = sa.table("account_seats", sa.column("game_id", sa.String))
GAMES = sa.table("games", sa.column("id", sa.String), sa.column("status", sa.String))


def upgrade() -> None:
    op.execute(SEATS.delete().where(SEATS.c.game_id.in_(sa.select(GAMES.c.id).where(GAMES.c.status == "aborted"))))


def downgrade() -> None:
    pass

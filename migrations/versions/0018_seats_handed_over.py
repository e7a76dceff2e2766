"""An account's seat handed to a house bot (resigned, abandoned) is marked so (``account_seats.handed_over``): its
account plays that game no more, and it stops counting among the games the account plays (a pool's concurrency,
its page's current games) when it leaves, not when the game ends.

Going up, the seats of the games under way that the log shows handed over (a ``SeatResigned`` or ``SeatAbandoned``
event of the seat) are marked: only those, so that it reads the logs of the games not over, not every log (a finished
game's seat counts as played, and not as current, either way); going down, the column is dropped.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

SEATS = sa.table("account_seats", sa.column("game_id", sa.String), sa.column("seat", sa.Integer),
                 sa.column("finished", sa.Boolean), sa.column("handed_over", sa.Boolean))
EVENTS = sa.table("events", sa.column("game_id", sa.String), sa.column("seat", sa.Integer), sa.column("type", sa.String))


def upgrade() -> None:
    with op.batch_alter_table("account_seats") as batch:
        batch.add_column(sa.Column("handed_over", sa.Boolean(), nullable=False, server_default=sa.false()))
    handed = sa.select(EVENTS.c.game_id).where(EVENTS.c.game_id == SEATS.c.game_id, EVENTS.c.seat == SEATS.c.seat,
                                               EVENTS.c.type.in_(["SeatResigned", "SeatAbandoned"]))
    op.execute(SEATS.update().where(sa.not_(SEATS.c.finished), handed.exists()).values(handed_over=True))


def downgrade() -> None:
    with op.batch_alter_table("account_seats") as batch:
        batch.drop_column("handed_over")

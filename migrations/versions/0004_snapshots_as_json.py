"""Snapshots are plain JSON data now: delete the pickles written before.

A pickle in the database meant that write access to it was code execution on
every server. The code no longer loads pickles (service.snapshots), and every
old one bears another fingerprint anyway; deleting them leaves none behind.
A snapshot is only a cache: the next writes store new ones. Going down deletes
the JSON ones (older code would ignore them too, by their fingerprint).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DELETE FROM snapshots")


def downgrade() -> None:
    op.execute("DELETE FROM snapshots")

"""Cursors for the games listing, shared by every backend.

A cursor is a keyset position, ``MICROS~ID``: the creation time (microseconds
since the epoch, UTC) and id of the last game of a page; the next page holds the
games before it in newest-first order. Clients treat it as opaque; any string of
that form is a valid position, so a cursor never expires.
"""

from __future__ import annotations

import datetime as dt
import re

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
PATTERN = r"^[0-9]{1,17}~[A-Za-z0-9_-]{1,64}$"
_CURSOR = re.compile(PATTERN)


def encode_cursor(created_at: dt.datetime, game_id: str) -> str:
    """The cursor pointing after the game (created_at, id) in newest-first order."""
    if created_at.tzinfo is None:
        created_at = created_at.replace(tzinfo=dt.UTC)
    micros = (created_at - EPOCH) // dt.timedelta(microseconds=1)
    return f"{micros}~{game_id}"


def decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    """The (created_at, id) a cursor points after; ValueError if it is not of the cursor's form."""
    if not _CURSOR.match(cursor):
        raise ValueError(f"not a valid cursor: {cursor!r}")
    micros, game_id = cursor.split("~", 1)
    return EPOCH + dt.timedelta(microseconds=int(micros)), game_id

"""Opaque cursors for the games listing, shared by every backend."""

from __future__ import annotations

import base64
import datetime as dt


def encode_cursor(created_at: dt.datetime, game_id: str) -> str:
    """An opaque cursor pointing after the game (created_at, id) in newest-first order."""
    raw = f"{created_at.isoformat()}|{game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    """The (created_at, id) a cursor points after; ValueError if it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, game_id = raw.split("|", 1)
        return dt.datetime.fromisoformat(stamp), game_id
    except Exception as error:  # any malformed cursor is the caller's mistake
        raise ValueError(f"not a valid cursor: {cursor!r}") from error

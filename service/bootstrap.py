"""Wiring: a game service over the store a database URL names."""

from __future__ import annotations

import persistence
from persistence.engine import DEFAULT_URL
from service.games import GameService


def database_url(url: str | None = None) -> str:
    """The URL given, else ``cardhall.db`` in the working directory."""
    return url or DEFAULT_URL


def open_service(url: str | None = None, *, migrate: bool = True, max_wait: float = 30.0,
                 shuffle_secret: str | None = None, pool_size: int | None = None, max_overflow: int = 0,
                 sqlite_synchronous: str = "full") -> GameService:
    """A game service on the database at ``url``, its schema migrated first unless told not to.

    Seeded shuffles are keyed with ``shuffle_secret`` when the operator gives one (every server of
    a deployment must then give the same), else with the secret kept in the database. The pool's
    size and overflow and SQLite's durability are the operator's too (``persistence.DatabaseOptions``).
    """
    persistence.configure(persistence.DatabaseOptions(pool_size, max_overflow, sqlite_synchronous))
    url = database_url(url)
    if migrate:
        persistence.upgrade(url)
    return GameService(persistence.open_store(url), max_wait=max_wait, shuffle_secret=shuffle_secret or None)

"""Wiring: a game service over the store a database URL names."""

from __future__ import annotations

import os

import persistence
import persistence.ratelimits
from persistence.engine import DEFAULT_URL
from service.games import GameService


def database_url(url: str | None = None) -> str:
    """The URL given, else ``CARDHALL_DATABASE_URL``, else ``cardhall.db`` in the working directory."""
    return url or os.environ.get("CARDHALL_DATABASE_URL") or DEFAULT_URL


def open_service(url: str | None = None, *, migrate: bool = True, max_wait: float = 30.0,
                 shuffle_secret: str | None = None) -> GameService:
    """A game service on the database at ``url``, its schema migrated first unless told not to.

    Seeded shuffles are keyed with ``shuffle_secret`` when the operator gives one (every server of
    a deployment must then give the same), else with the secret kept in the database.
    """
    url = database_url(url)
    if migrate:
        persistence.upgrade(url)
    return GameService(persistence.open_store(url), max_wait=max_wait, shuffle_secret=shuffle_secret or None)

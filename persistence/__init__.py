"""Persistence: the event store port and its backends (SQLite, PostgreSQL, memory), each in a module of its own.

Beside each store, its announcements (``store.announcements``, the port
:class:`persistence.port.Announcements`): what the process hears of appends as they commit.

``open_store(url)`` picks the backend from the URL:

- ``memory://`` — in this process's memory (tests, simulations);
- ``sqlite:///path/cardhall.db`` or a plain path — an SQLite file (the default,
  ``cardhall.db`` in the working directory);
- ``postgresql+psycopg://user:password@host/db`` (``postgresql://`` is accepted) — PostgreSQL;
- None — the default SQLite file.

How the engines are made (pools, SQLite's durability) is the process's, set once at its start:
``configure(DatabaseOptions(...))``.

SQL stores need their schema: call ``upgrade(url)`` first (the server does at start).
"""

from __future__ import annotations

from persistence.engine import DatabaseOptions, configure, normalise_url
from persistence.migrate import upgrade
from persistence.port import EventStore

__all__ = ["DatabaseOptions", "configure", "open_store", "upgrade"]


def open_store(url: str | None = None) -> EventStore:
    """The event store at ``url`` (see the module docstring)."""
    url = normalise_url(url)
    if url.startswith("memory:"):
        from persistence.memory import MemoryEventStore

        return MemoryEventStore()
    if url.startswith("sqlite"):
        from persistence.sqlite import SqliteEventStore

        return SqliteEventStore(url)
    from persistence.postgres import PostgresEventStore

    return PostgresEventStore(url)

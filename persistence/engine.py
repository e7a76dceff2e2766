"""Database URLs and SQLAlchemy engines, configured the same way for the store and for migrations.

Each backend makes its own engine: :func:`persistence.sqlite.sqlite_engine` (WAL, busy timeout,
durability, ``BEGIN IMMEDIATE``), :func:`persistence.postgres.postgres_engine` (a pool without
pre-ping). Here: the URL, the options the process's settings give (:class:`DatabaseOptions`:
``CARDHALL_DB_POOL_SIZE``, default 4 on PostgreSQL and 32 on SQLite; ``CARDHALL_DB_MAX_OVERFLOW``,
default 0; SQLite's ``synchronous``), and how JSON is written. The options are the process's, set
once where it starts (:func:`configure`); nothing here reads the environment.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import sqlalchemy as sa

DEFAULT_URL = "sqlite:///cardhall.db"
#: The execution option of a connection that writes (SQLite's engine begins it with ``BEGIN IMMEDIATE``).
WRITE = "cardhall_write"
#: How JSON columns are written: compact (no spaces after separators), Unicode as it is.
#: Smaller rows, and a quicker encode, than json.dumps's defaults; reads are unaffected.
JSON_SERIALIZER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


@dataclasses.dataclass(frozen=True)
class DatabaseOptions:
    """How this process's engines are made (a server's settings give them: docs/deploy.md, "Settings")."""

    #: Connections each engine's pool keeps (None: 4 on PostgreSQL, 32 on SQLite).
    pool_size: int | None = None
    #: Connections past the pool, each closed when handed back.
    max_overflow: int = 0
    #: SQLite's ``synchronous``: ``full`` or ``normal``.
    sqlite_synchronous: str = "full"


_options = DatabaseOptions()


def configure(options: DatabaseOptions) -> None:
    """Make this process's engines from now on with ``options``."""
    global _options
    if options.sqlite_synchronous.strip().upper() not in ("FULL", "NORMAL"):
        raise ValueError(f"SQLite's synchronous setting must be full or normal, not {options.sqlite_synchronous!r}")
    _options = options


def sqlite_synchronous() -> str:
    """The SQLite ``synchronous`` setting (FULL or NORMAL): FULL unless configured otherwise."""
    return _options.sqlite_synchronous.strip().upper()


def normalise_url(url: str | None) -> str:
    """The store URL to use: ``url``, else ``cardhall.db`` here.

    A plain path means an SQLite file; ``postgres://`` and ``postgresql://`` mean psycopg 3.
    """
    url = url or DEFAULT_URL
    if "://" not in url:
        return f"sqlite:///{url}"
    scheme, rest = url.split("://", 1)
    if scheme in ("postgres", "postgresql"):
        return f"postgresql+psycopg://{rest}"
    return url


def create_engine(url: str, *, foreign_keys: bool = True, autocommit: bool = False) -> sa.Engine:
    """An engine for ``url`` (already normalised) with Cardhall's settings.

    ``autocommit`` (PostgreSQL; the store's engine): connections open in autocommit and
    are handed back as they are, unreset: every read is one statement, and a write switches
    its connection out of autocommit while it lasts (``PostgresEventStore.transaction``). Else
    SQLAlchemy manages transactions as usual (migrations).
    """
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        from persistence.sqlite import sqlite_engine

        return sqlite_engine(parsed, foreign_keys=foreign_keys, autocommit=autocommit)
    if parsed.get_backend_name() == "postgresql":
        from persistence.postgres import postgres_engine

        return postgres_engine(parsed, autocommit=autocommit)
    raise ValueError(f"unsupported database URL: {parsed.render_as_string()}")




def pool_options(size: int) -> dict[str, Any]:
    """A pool of ``size`` connections unless the options say otherwise, and the overflow they give."""
    return {
        "pool_size": size if _options.pool_size is None else _options.pool_size,
        "max_overflow": _options.max_overflow,
        "pool_timeout": 30,
    }

"""Database URLs and SQLAlchemy engines, configured the same way for the store and for migrations.

SQLite (one file, one host):

- ``journal_mode=WAL``: readers never block the writer and the writer never
  blocks readers;
- ``busy_timeout`` 30 s: a writer waiting for the write lock queues instead of
  failing with "database is locked";
- ``synchronous=FULL`` (:class:`DatabaseOptions`, which the server's settings give:
  ``cardhall serve --sqlite-synchronous``, ``CARDHALL_SQLITE_SYNCHRONOUS``): every commit reaches the disk before it is
  acknowledged, so not even a power loss or an OS crash loses an acknowledged
  move. ``normal`` is the operator's other choice: in WAL mode a commit is then
  durable against a crash of the process and atomic always, but a power loss or
  OS crash can drop the last transactions acknowledged — and the versions they
  had are then given again to other events, so what followers saw as immutable
  changes. It commits faster (docs/performance.md has the measured cost);
- ``foreign_keys=ON``;
- pysqlite's own transaction handling is switched off: writing transactions
  issue ``BEGIN IMMEDIATE`` (the store's, :mod:`persistence.sqlite`, on the driver;
  the engine, on connections with the ``cardhall_write`` execution option, for
  migrations), so writers take the write lock up front and queue on the busy
  timeout instead of failing half-way on a lock upgrade. Reads issue no ``BEGIN``: each is one statement, which SQLite runs
  atomically on one snapshot, and a ``BEGIN`` would cost as much as the read.

PostgreSQL (``postgresql+psycopg://``): a pool (no pre-ping, see ``_postgres_engine``), sized by
:class:`DatabaseOptions` (``CARDHALL_DB_POOL_SIZE``, default 4, SQLite 32; ``CARDHALL_DB_MAX_OVERFLOW``, default 0).

The options are the process's, set once where it starts (:func:`configure`); nothing here reads
the environment.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

DEFAULT_URL = "sqlite:///cardhall.db"
BUSY_TIMEOUT_SECONDS = 30.0
WRITE = "cardhall_write"
# A connection per server thread (``cardhall serve --threads`` defaults to 32): SQLite
# connections cost no server slot, and a pool smaller than the threads closes each
# connection opened beyond it on return, so every request past it opened a file anew.
SQLITE_POOL_SIZE = 32
#: The page size of a new SQLite file. A commit writes every page it touched, whole, to the
#: WAL; an append touches two (the events table's and its (game_id, version) index's), so
#: halving SQLite's default 4 KiB halves the bytes an append writes (docs/performance.md).
SQLITE_PAGE_SIZE = 2048
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
        return _sqlite_engine(parsed, foreign_keys=foreign_keys, autocommit=autocommit)
    if parsed.get_backend_name() == "postgresql":
        return _postgres_engine(parsed, autocommit=autocommit)
    raise ValueError(f"unsupported database URL: {parsed.render_as_string()}")


# PostgreSQL: at most 4 connections a worker, all kept once opened, and no overflow:
# SQLAlchemy closes an overflow connection when it is handed back, so with overflow a busy
# worker opened and closed PostgreSQL sessions without end. Far fewer than the 32 threads,
# which are there for waiting requests (they hold no connection): the requests past the
# pool's size wait their turn inside the worker, asleep, rather than as PostgreSQL backends
# contending for the database's cores and its locks (PostgreSQL's rule of thumb: about twice
# its cores in active connections). docs/performance.md has the measurements.
POSTGRES_POOL_SIZE = 4


def _pool_options(size: int = POSTGRES_POOL_SIZE) -> dict[str, Any]:
    return {
        "pool_size": size if _options.pool_size is None else _options.pool_size,
        "max_overflow": _options.max_overflow,
        "pool_timeout": 30,
    }


def _postgres_engine(url: sa.URL, *, autocommit: bool) -> sa.Engine:
    # No pool_pre_ping: it costs a round trip per checkout. A dead connection fails its
    # statement instead, which makes SQLAlchemy discard every connection of the pool opened
    # before it; reads then try once more (SqlEventStore._read), a write answers 503.
    if autocommit:  # (a connection's checkout and return then cost no round trip, nor any psycopg call)
        return sa.create_engine(url, pool_recycle=1800, isolation_level="AUTOCOMMIT", pool_reset_on_return=None,
                                json_serializer=JSON_SERIALIZER, **_pool_options())
    return sa.create_engine(url, pool_recycle=1800, json_serializer=JSON_SERIALIZER, **_pool_options())


def _create_private(path: str) -> None:
    """Create the SQLite file ``path``, if there is none, readable and writable by its owner alone: it
    holds every hidden card and the shuffle secret. (SQLite gives its WAL and shared-memory files the
    mode of the database's; an existing file keeps the mode its owner gave it.)"""
    if path.startswith("file:"):  # (a URI filename: SQLite's to open)
        return
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def _sqlite_engine(url: sa.URL, *, foreign_keys: bool, autocommit: bool) -> sa.Engine:
    if url.database in (None, "", ":memory:"):
        raise ValueError("an SQLite store needs a file (use memory:// for an in-memory store)")
    _create_private(url.database)
    # The store's engine (``autocommit``), as on PostgreSQL: SQLAlchemy neither begins nor resets a
    # connection (no rollback on its return to the pool), which was a third of a read's cost.
    unmanaged = {"isolation_level": "AUTOCOMMIT", "pool_reset_on_return": None} if autocommit else {}
    engine = sa.create_engine(
        url,
        connect_args={"timeout": BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
        poolclass=sa.QueuePool,
        json_serializer=JSON_SERIALIZER,
        **unmanaged,
        **_pool_options(SQLITE_POOL_SIZE),
    )

    @event.listens_for(engine, "connect")
    def configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we issue BEGIN ourselves, below
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        cursor.execute(f"PRAGMA page_size = {SQLITE_PAGE_SIZE}")  # (a new file's; an existing file keeps its own)
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute(f"PRAGMA synchronous = {sqlite_synchronous()}")
        cursor.execute(f"PRAGMA foreign_keys = {'ON' if foreign_keys else 'OFF'}")
        cursor.close()

    if not autocommit:  # (the store begins its writes itself: persistence.sqlite)
        @event.listens_for(engine, "begin")
        def begin(connection: sa.Connection) -> None:
            if connection.get_execution_options().get(WRITE, False):
                connection.connection.driver_connection.execute("BEGIN IMMEDIATE")

    return engine

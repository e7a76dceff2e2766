"""Rate-limit counters in an SQLite file, shared by every worker process on one host.

The ``limits`` library (behind flask-limiter) keeps its counters in memory —
one process's own — or in Redis, Memcached or MongoDB. A server with several
gunicorn workers and none of those needs counters every worker sees: this
storage (``cardhall+sqlite:///path/ratelimits.db``) keeps them in a small SQLite
file of their own, never the event store's database. One statement counts a hit;
counters need no durability (``synchronous=OFF``: a crash forgets them, which
only lets a client start afresh) and expired ones are swept now and then, so the
file stays small. Fixed windows only (flask-limiter's default strategy).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from limits.storage import Storage

SWEEP_EVERY = 1000  # hits between sweeps of expired counters

_SCHEMA = "CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, count INTEGER NOT NULL, expires REAL NOT NULL)"
# A window that expired starts again at this hit; a live one counts on.
_HIT = ("INSERT INTO counters (key, count, expires) VALUES (:key, :amount, :now + :expiry) "
        "ON CONFLICT (key) DO UPDATE SET "
        "count = CASE WHEN expires <= :now THEN excluded.count ELSE count + excluded.count END, "
        "expires = CASE WHEN expires <= :now THEN excluded.expires ELSE expires END "
        "RETURNING count")


class SqliteFileStorage(Storage):
    """``limits`` storage over an SQLite file; one connection per thread."""

    STORAGE_SCHEME = ["cardhall+sqlite"]  # noqa: RUF012  (the library's own declaration)

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: float | str | bool) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.path = Path(uri.split("://", 1)[1])  # (cardhall+sqlite:///tmp/x.db: the absolute path /tmp/x.db)
        self._local = threading.local()
        self._hits = 0
        self._execute(_SCHEMA)

    @property
    def base_exceptions(self) -> type[Exception]:
        return sqlite3.Error

    def _connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=5.0, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = OFF")
            self._local.connection = connection
        return connection

    def _execute(self, sql: str, parameters: dict[str, object] | tuple[object, ...] = ()) -> list[tuple]:
        return self._connection().execute(sql, parameters).fetchall()

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        self._hits += 1
        if self._hits % SWEEP_EVERY == 0:
            self._execute("DELETE FROM counters WHERE expires <= ?", (time.time(),))
        rows = self._execute(_HIT, {"key": key, "amount": amount, "now": time.time(), "expiry": expiry})
        return int(rows[0][0])

    def get(self, key: str) -> int:
        rows = self._execute("SELECT count FROM counters WHERE key = ? AND expires > ?", (key, time.time()))
        return int(rows[0][0]) if rows else 0

    def get_expiry(self, key: str) -> float:
        rows = self._execute("SELECT expires FROM counters WHERE key = ?", (key,))
        return float(rows[0][0]) if rows else time.time()

    def check(self) -> bool:
        try:
            self._execute("SELECT 1")
        except sqlite3.Error:
            return False
        return True

    def reset(self) -> int | None:
        return self._connection().execute("DELETE FROM counters").rowcount

    def clear(self, key: str) -> None:
        self._execute("DELETE FROM counters WHERE key = ?", (key,))

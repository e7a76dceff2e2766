"""The PostgreSQL event store: any number of processes on any number of hosts.

**Writing.** The pool's connections are in autocommit, so a read is one statement
with no ``BEGIN`` (see :mod:`persistence.engine`); a writing transaction switches
its connection to ``READ COMMITTED`` for as long as it lasts. No lock spans games:
appends to different games run side by side.

**The append** is one statement in SQL (:data:`APPEND_SQL`): it inserts every
event only if the game's newest version is the expected one, and sends the
NOTIFY that tells every process of it. Its check reads the snapshot the statement
began with; an append after the same version committed since, or still in
flight, is caught by ``UNIQUE(game_id, version)`` instead (the insert waits for
the other transaction, then fails), which the store reports as the same
VersionConflict. Of any two appends after one version, one is refused.

**Waiting.** Appends committed in this process wake its waiters at once; every
process keeps one LISTEN connection (:class:`PostgresListener`) that hears every
process's NOTIFY, delivered at commit, and wakes its waiters, who re-read the store.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy.dialects import postgresql

from persistence.engine import JSON_SERIALIZER
from persistence.notify import CHANNEL, PostgresListener
from persistence.port import NewEvent, Transaction
from persistence.sqlstore import SqlEventStore, SqlTransaction, upserts

#: SQLSTATE classes of errors that mean the database is out of reach, not that a statement is
#: wrong: connection exceptions, operator intervention (shutdown, restart), insufficient
#: resources (too many connections, disk full).
OUTAGE_STATES = ("08", "57P", "53")

#: Every event of an append, after the expected version if that is the game's newest, and the
#: NOTIFY ``game_id:version`` (sent once per row with the same payload, which PostgreSQL delivers
#: once, at commit; no row inserted, none sent). One text for any number of events, so psycopg
#: prepares it once per connection.
APPEND_SQL = (
    "WITH new AS (INSERT INTO events (game_id, version, type, seat, data, recorded_at) "
    "SELECT %(game_id)s::varchar, %(expected)s::integer + e.number, e.type, e.seat, e.data, %(recorded_at)s::timestamptz "
    "FROM unnest(%(types)s::varchar[], %(seats)s::integer[], %(data)s::jsonb[]) "
    "WITH ORDINALITY AS e(type, seat, data, number) "
    "WHERE (SELECT coalesce((SELECT version FROM events WHERE game_id = %(game_id)s::varchar ORDER BY version DESC LIMIT 1), 0) "
    "FROM games WHERE id = %(game_id)s::varchar) = %(expected)s::integer "
    "RETURNING version) "
    "SELECT pg_notify(%(channel)s, %(announcement)s) FROM new"
)


class PostgresTransaction(SqlTransaction):
    """A writing transaction on a pooled connection."""

    NEW_GAME, PUT_SNAPSHOT = upserts(postgresql.insert)

    def insert(self, game_id: str, expected: int, new_events: Sequence[NewEvent], recorded_at: dt.datetime) -> bool:
        rows = self.connection.exec_driver_sql(APPEND_SQL, {
            "game_id": game_id, "expected": expected, "recorded_at": recorded_at,
            "types": [event.type for event in new_events], "seats": [event.seat for event in new_events],
            "data": [JSON_SERIALIZER(event.data) for event in new_events],
            "channel": CHANNEL, "announcement": f"{game_id}:{expected + len(new_events)}",
        }).all()
        return len(rows) == len(new_events)


class PostgresEventStore(SqlEventStore):
    """The event store in a PostgreSQL database."""

    RECHECK_SECONDS = 5.0

    def _new_waker(self) -> PostgresListener:
        return PostgresListener(self._board, self._listen_connection)

    def is_outage(self, driver_error: BaseException) -> bool:
        """A connection-class error. A missing table is a ProgrammingError: a bug or a deployment
        mistake, which answering "unavailable, retry" would hide."""
        state = getattr(driver_error, "sqlstate", None)
        if state is None:  # psycopg raises errors of its own, without a state, when a connection fails or is closed
            return any(base.__name__ in ("OperationalError", "InterfaceError") for base in type(driver_error).__mro__)
        return state.startswith(OUTAGE_STATES)

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        with self.outages(), self.engine.connect() as connection:
            connection.execution_options(isolation_level="READ COMMITTED")  # (back to autocommit when returned)
            with connection.begin():
                work = PostgresTransaction(connection)
                yield work
        self.announce(work)

    def latest_heard(self, game_id: str) -> int | None:
        """What this process's LISTEN connection (started here if need be) has heard, while it
        listens; it hears every commit of every process."""
        self._waker.start()
        return self._board.heard(game_id) if self._waker.ready.is_set() else None

    def _listen_connection(self) -> Any:
        """A dedicated autocommit psycopg connection, outside the pool, for LISTEN."""
        import psycopg

        args, kwargs = self.engine.dialect.create_connect_args(self.engine.url)
        return psycopg.connect(*args, **kwargs, autocommit=True)

"""The SQL event store: SQLite (embedded default) and PostgreSQL, with SQLAlchemy 2 Core.

Every lookup is indexed: an append inserts the new events only if the game's
newest version is the expected one (one probe of the ``(game_id, version)`` index,
which ``UNIQUE`` also backs), and writes nothing else; a game's version and last
change are its newest event's. Reads use ``(game_id, version)`` or the global
``position``. A move costs the same at event 10 and at event 2,000.

**Ordering.** Writing transactions are serialised, so commit order equals
position order and a follower reading ``read_all(after_position=last_seen)``
never skips an event committed late under an earlier position. SQLite has one
writer at a time (``BEGIN IMMEDIATE``, see :mod:`persistence.engine`).
PostgreSQL appends take a transaction-level advisory lock before positions are
drawn from the sequence, held until commit (the eventsourcing library takes
``LOCK TABLE ... IN EXCLUSIVE MODE`` to the same end; the advisory lock
serialises exactly the same appends, blocks no reader, and unlike the table
lock never queues appends behind an anti-wraparound autovacuum). A rolled-back append
leaves a gap in positions: readers ask for ``position > last_seen``, never for
the next number, so gaps never stall them.

**Waiting** (:meth:`SqlEventStore.wait`, for long-poll and SSE). Appends
committed in this process wake this process's waiters at once.

- PostgreSQL: an append sends ``pg_notify('cardhall_events', 'game_id:version')``,
  delivered at commit; one listener thread per process LISTENs and wakes the
  waiters, who re-read the store. Works across any number of processes and hosts.
- SQLite: one host only (the database is a local file; never put it on a
  network file system). Several processes on that host may share the file:
  writers queue on the write lock (busy timeout 30 s) and readers are never
  blocked (WAL). Another process's append is seen by a waiter within the poll
  interval (50 ms), one small indexed query per interval per process, and only
  while someone waits.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import functools
import json
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, ClassVar, NamedTuple, NoReturn, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from persistence.cursor import decode_cursor, encode_cursor
from persistence.engine import JSON_SERIALIZER, create_engine, normalise_url
from persistence.migrate import head_revision
from persistence.notify import CHANNEL, Announcements, PostgresListener, SqlitePoller
from persistence.port import (
    EventStore,
    GameExists,
    GamePage,
    GameRecord,
    IdempotencyRecord,
    NewEvent,
    Snapshot,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    Transaction,
    UnknownGame,
    VersionConflict,
)
from persistence.schema import (
    UtcDateTime,
    as_utc,
    deployment_secrets,
    events,
    games,
    idempotency,
    seats,
    snapshots,
)

_T = TypeVar("_T")

# An append's statement text depends on its count of events. A game of house bots appends
# up to ~2,000 at once, and a text was kept for every count ever seen (~165 MB a worker):
# only the texts of small appends (nearly all of them) are kept, and only they are prepared
# by psycopg (which keeps up to 100 per connection); a big one is built afresh, in far less
# time than its rows take to write.
PREPARED_ROWS = 16
STATEMENT_TEXTS = 4 * PREPARED_ROWS  # (each count with and without the status and snapshot it may carry)
# The advisory lock every append takes (any constant no other code uses; "append" in ASCII).
APPEND_LOCK_KEY = 0x617070656E64
SQLITE_POLL_SECONDS = 0.05
# Announcements are only a hint; how often a waiter re-reads the store anyway.
RECHECK_SECONDS = {"sqlite": 1.0, "postgresql": 5.0}

# A game's version is its newest event's: appends write the events alone (see SqlTransaction.append).
_NEWEST_VERSION = (sa.select(events.c.version).where(events.c.game_id == games.c.id)  # (not max(): see _VERSION_SQL)
                   .order_by(events.c.version.desc()).limit(1).scalar_subquery())
_NEWEST_EVENT_AT = (sa.select(events.c.recorded_at).where(events.c.game_id == games.c.id)
                    .order_by(events.c.version.desc()).limit(1).scalar_subquery())
# The listing's rows: the games row, its version and the time of its newest event (else its creation).
GAME_ROWS = sa.select(
    games.c.id, games.c.game, games.c.players, games.c.status,
    sa.func.coalesce(_NEWEST_VERSION, 0).label("version"), games.c.created_at,
    sa.type_coerce(sa.func.coalesce(_NEWEST_EVENT_AT, games.c.created_at), UtcDateTime).label("updated_at"),
)

# The sweeper's read: clocked games by deadline (the deadline's partial index), with their versions.
DUE_GAMES = sa.select(games.c.id, sa.func.coalesce(_NEWEST_VERSION, 0).label("version")).order_by(games.c.deadline)

# The hot reads, built once (building a statement costs more than SQLAlchemy's cached compile).
SNAPSHOT_OF_GAME = sa.select(snapshots.c.version, snapshots.c.fingerprint, snapshots.c.blob).where(
    snapshots.c.game_id == sa.bindparam("game_id"))
_SCHEMA_REVISION = sa.text("SELECT version_num FROM alembic_version")
SET_DEADLINE = games.update().where(games.c.id == sa.bindparam("game_id")).values(deadline=sa.bindparam("deadline"))
SEAT_OF_TOKEN = sa.select(seats.c.game_id, seats.c.seat).where(seats.c.token_hash == sa.bindparam("token_hash"))


def _game_events(game_id: str, after: int, limit: int | None) -> sa.Select[Any]:
    query = events.select().where(events.c.game_id == game_id, events.c.version > after)
    return query.order_by(events.c.version).limit(limit)


def _snapshot(connection: sa.Connection, game_id: str) -> Snapshot | None:
    row = connection.execute(SNAPSHOT_OF_GAME, {"game_id": game_id}).first()
    return None if row is None else Snapshot(row.version, row.fingerprint, bytes(row.blob))


_SQLITE_COLUMNS = "SELECT position, game_id, version, type, seat, data, recorded_at FROM events"
_SQLITE_GAME_EVENTS = _SQLITE_COLUMNS + " WHERE game_id = ? AND version > ? ORDER BY version LIMIT ?"
_SQLITE_ALL_EVENTS = _SQLITE_COLUMNS + " WHERE position > ? ORDER BY position LIMIT ?"
# A game's version, on the driver's cursor (parameters: the game's id twice): no row for an
# unknown game, 0 for one without events. Every read of a version and every append's check is this.
# The newest row, not max(): PostgreSQL keeps a prepared statement's generic plan, and the one
# it makes for max() while the table is still small (a new database) aggregates every index
# entry of the game, each with a heap fetch until the table is vacuumed: a read cost 2.7 ms
# at 20,000 events against 0.13 ms for this form, whose every plan reads one index entry.
_VERSION_SQL = ("SELECT coalesce((SELECT version FROM events WHERE game_id = ? ORDER BY version DESC LIMIT 1), 0) "
                "FROM games WHERE id = ?")
_DRIVER_VERSION_OF_GAME = {"sqlite": _VERSION_SQL, "postgresql": _VERSION_SQL.replace("?", "%s")}


def _version_of(connection: sa.Connection, game_id: str) -> int | None:
    """The game's version as ``connection`` sees it; None if no game."""
    driver = connection.connection.driver_connection
    row = driver.execute(_DRIVER_VERSION_OF_GAME[connection.dialect.name], (game_id, game_id)).fetchone()
    return None if row is None else row[0]


def _stored_events(connection: sa.Connection, query: sa.Select[Any]) -> list[StoredEvent]:
    return [StoredEvent(**row._mapping) for row in connection.execute(query)]


class _DriverAppend:
    """An append's statements, on the driver's own cursor.

    An append writes the events alone: the games row is not touched, so a commit
    writes the events table's page and its ``(game_id, version)`` index's page, not a
    third (bumping a version column on the games row cost a fifth of an append on
    SQLite). The version check reads the newest version under the append's lock, and
    ``UNIQUE(game_id, version)`` backs it. Appends were CPU-bound (SQLite in WAL with
    synchronous=NORMAL does not wait for the disk; FULL, the default now, waits once per
    commit), and SQLAlchemy Core's per-statement work cost several times the statements themselves. Values are bound with the
    columns' own SQLAlchemy processors, so the rows are stored exactly as Core would
    store them.
    """

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection
        self.cursor = connection.connection.driver_connection.cursor()
        self.time, self.json = _binders(connection.dialect)

    #: Whether the game's status and snapshot can be written by the append's own statement.
    carries = False

    def insert(self, game_id: str, expected: int, new_events: Sequence[NewEvent],
               recorded_at: dt.datetime, bound_at: Any, begin: bool, commit: bool,
               carried: Mapping[str, tuple[Any, ...]] | None = None) -> list[int] | None:
        """Insert the events after version ``expected``: their positions, in order; None, inserting
        nothing, if the game is not at version ``expected`` (or is unknown). ``begin``: the
        transaction is still to be begun, with these statements; ``commit``: committed after them.
        ``carried`` (only if ``carries``): the game's ``status`` and ``snapshot`` writes, made
        with the events and only if they are inserted."""
        raise NotImplementedError


class _PostgresAppend(_DriverAppend):
    """PostgreSQL: one statement takes the append lock, inserts every event with the version
    check in its ``WHERE`` and sends the NOTIFY in its ``SELECT``.

    The lock is a materialised CTE that the insert's one-time filter waits on, so no
    position is drawn from the sequence before it is held, and it is held until the
    transaction ends: commit order is position order. A final append alone in its
    transaction, as a move's usually is, is that one statement on the autocommit
    connection: no ``BEGIN``, no ``COMMIT``, one round trip, and the lock is held only while
    PostgreSQL runs it (a pipeline of ``BEGIN``, lock, insert and ``COMMIT`` was also one
    round trip but cost psycopg two to three times the client CPU: four statements to
    send and four results to take). An append that opens a longer transaction sends its
    ``BEGIN`` in the same round trip (psycopg's pipeline mode).

    The version check reads the snapshot its statement began with, which may predate the
    wait for the lock: an append that committed during that wait is caught by
    ``UNIQUE(game_id, version)`` instead (an IntegrityError, the same VersionConflict). The
    NOTIFY is sent once per row with the same payload, which PostgreSQL delivers once, at
    commit; no row inserted, none sent.
    """

    ROW = "(%s::varchar, %s::integer, %s::varchar, %s::integer, %s::jsonb, %s::timestamptz)"
    #: Writes an append may carry, each made only if the events were inserted.
    CARRIED: ClassVar[dict[str, str]] = {
        "status": "status AS (UPDATE games SET status = %s::varchar WHERE id = %s AND EXISTS (SELECT FROM new))",
        "snapshot": ("snapshot AS (INSERT INTO snapshots (game_id, version, fingerprint, blob, created_at) "
                     "SELECT %s::varchar, %s::integer, %s::varchar, %s::bytea, %s::timestamptz "
                     "WHERE EXISTS (SELECT FROM new) ON CONFLICT (game_id) DO UPDATE SET version = excluded.version, "
                     "fingerprint = excluded.fingerprint, blob = excluded.blob, created_at = excluded.created_at)"),
    }
    carries = True

    def __init__(self, connection: sa.Connection) -> None:
        super().__init__(connection)
        self.driver = connection.connection.driver_connection
        self.conflicts = connection.dialect.loaded_dbapi.IntegrityError

    @staticmethod
    def insert_sql(rows: int, carried: tuple[str, ...] = ()) -> str:
        """The append statement for ``rows`` events: kept for small counts, built afresh for big ones."""
        if rows <= PREPARED_ROWS:
            return _PostgresAppend._kept_insert_sql(rows, carried)
        return _PostgresAppend._built_insert_sql(rows, carried)

    @staticmethod
    @functools.lru_cache(maxsize=STATEMENT_TEXTS)
    def _kept_insert_sql(rows: int, carried: tuple[str, ...] = ()) -> str:
        return _PostgresAppend._built_insert_sql(rows, carried)

    @staticmethod
    def _built_insert_sql(rows: int, carried: tuple[str, ...] = ()) -> str:
        values = ", ".join([_PostgresAppend.ROW] * rows)
        also = "".join(f", {_PostgresAppend.CARRIED[name]}" for name in carried)
        return ("WITH locked AS MATERIALIZED (SELECT pg_advisory_xact_lock(%s)), "
                "new AS (INSERT INTO events (game_id, version, type, seat, data, recorded_at) "
                f"SELECT * FROM (VALUES {values}) AS v "
                f"WHERE EXISTS (SELECT FROM locked) AND ({_DRIVER_VERSION_OF_GAME['postgresql']}) = %s "
                f"RETURNING position, version){also} "
                "SELECT position, pg_notify(%s, %s) FROM new ORDER BY version")

    def insert(self, game_id: str, expected: int, new_events: Sequence[NewEvent],
               recorded_at: dt.datetime, bound_at: Any, begin: bool, commit: bool,
               carried: Mapping[str, tuple[Any, ...]] | None = None) -> list[int] | None:
        parameters: list[Any] = [APPEND_LOCK_KEY]
        for offset, event in enumerate(new_events, start=1):
            parameters += (game_id, expected + offset, event.type, event.seat, JSON_SERIALIZER(event.data), recorded_at)
        parameters += (game_id, game_id, expected)
        names = tuple(name for name in self.CARRIED if carried and name in carried)
        for name in names:
            parameters += carried[name]  # type: ignore[index]
        parameters += (CHANNEL, f"{game_id}:{expected + len(new_events)}")
        sql = self.insert_sql(len(new_events), names)
        prepare = None if len(new_events) <= PREPARED_ROWS else False  # (None: psycopg decides, as for any statement)
        try:
            if begin and not commit:
                with self.driver.pipeline():
                    self.driver.execute("BEGIN")
                    self.cursor.execute(sql, parameters, prepare=prepare)
            else:  # (begin and commit: the statement is its own transaction, in autocommit)
                self.cursor.execute(sql, parameters, prepare=prepare)
        except self.conflicts as error:  # UNIQUE(game_id, version): a writer got there first
            raise sa.exc.IntegrityError(sql, None, error) from error
        positions = [row[0] for row in self.cursor.fetchall()]
        return positions or None


class _SqliteAppend(_DriverAppend):
    """SQLite: the inserts on the cursor too, each position its row id; the first carries the
    version check in its ``WHERE``, the rest follow it under the same write lock."""

    COLUMNS = "INSERT INTO events (game_id, version, type, seat, data, recorded_at) "
    CHECKED_INSERT_SQL = COLUMNS + f"SELECT ?, ?, ?, ?, ?, ? WHERE ({_VERSION_SQL}) = ?"
    INSERT_SQL = COLUMNS + "VALUES (?, ?, ?, ?, ?, ?)"

    def insert(self, game_id: str, expected: int, new_events: Sequence[NewEvent],
               recorded_at: dt.datetime, bound_at: Any, begin: bool, commit: bool,
               carried: Mapping[str, tuple[Any, ...]] | None = None) -> list[int] | None:
        cursor, encode, positions = self.cursor, self.json, []
        for offset, event in enumerate(new_events, start=1):
            values = (game_id, expected + offset, event.type, event.seat, encode(event.data), bound_at)
            try:
                if offset == 1:
                    cursor.execute(self.CHECKED_INSERT_SQL, (*values, game_id, game_id, expected))
                    if cursor.rowcount != 1:
                        return None
                else:
                    cursor.execute(self.INSERT_SQL, values)
            except sqlite3.IntegrityError as error:
                raise sa.exc.IntegrityError(self.INSERT_SQL, None, error) from error
            positions.append(cursor.lastrowid)
        return positions


@functools.cache
def _snapshot_upsert(dialect: str) -> sa.Insert:
    """Insert or replace a game's snapshot, its values bound per call (building this statement
    cost more than running it: half of a snapshot write)."""
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(snapshots)
    return insert.on_conflict_do_update(
        index_elements=[snapshots.c.game_id],
        set_={name: insert.excluded[name] for name in ("version", "fingerprint", "blob", "created_at")},
    )


@functools.cache
def _binders(dialect: sa.Dialect) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """How SQLAlchemy binds a time and a JSON value on this dialect."""
    return (events.c.recorded_at.type.bind_processor(dialect),  # type: ignore[return-value]
            events.c.data.type.bind_processor(dialect))


class SqlTransaction(Transaction):
    """One writing transaction on one connection, appending through ``write``.

    ``begin``, if given, begins the transaction on the database: it is called before the
    first statement, unless that is an append, which begins it in its own round trip.
    Without it the transaction is begun already.

    Where the append can carry them (PostgreSQL), a game's status and snapshot written
    before anything was sent are held back and written by the append of that game, in its
    own statement and only if it inserts: a move that ends a game, or is due a snapshot, is
    then one statement like any other (it was four round trips: ``BEGIN``, the update, the
    append, ``COMMIT``). Any other statement, or the end of the transaction, first writes
    what is held. A refused append raises, and the transaction is then to be abandoned,
    as every caller does.
    """

    def __init__(self, connection: sa.Connection, write: _DriverAppend,
                 begin: Callable[[], None] | None = None) -> None:
        self._connection = connection
        self._begin = begin
        self.begun = begin is None
        self.committed = False  # by a final append (see Transaction.append)
        self.write = write
        self.dialect = connection.dialect.name
        self.appended: dict[str, int] = {}
        self.held: dict[str, tuple[Any, ...]] = {}  # status and snapshot, for the next append
        self.held_for: str | None = None  # (the game they are of)

    @property
    def connection(self) -> sa.Connection:
        """The connection, its transaction begun (and what was held back written)."""
        if self.committed:
            raise RuntimeError("this transaction was committed with a final append")
        if not self.begun:
            assert self._begin is not None
            self._begin()
            self.begun = True
            self.flush()
        return self._connection

    def flush(self) -> None:
        """Write what was held back for an append, in its own statements."""
        held, self.held, self.held_for = self.held, {}, None
        if "status" in held:
            self._set_status(*held["status"])
        if "snapshot" in held:
            self._put_snapshot(*held["snapshot"])

    def _hold(self, game_id: str) -> bool:
        """Whether a write of ``game_id``'s status or snapshot can wait for its append."""
        self._flush_other(game_id)
        if not self.write.carries or self.begun or self.committed:
            return False
        self.held_for = game_id
        return True

    def _flush_other(self, game_id: str) -> None:
        """Write what is held for another game than ``game_id``, first, in order."""
        if self.held_for not in (None, game_id):
            self.connection  # noqa: B018 (begins the transaction, which writes what is held)

    def create_game(self, game_id: str, game: str, players: int, created_at: dt.datetime) -> None:
        row = {"id": game_id, "game": game, "players": players, "status": "waiting", "created_at": created_at}
        insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        # ON CONFLICT keeps a PostgreSQL transaction usable after a clash.
        inserted = self.connection.execute(insert(games).values(row).on_conflict_do_nothing().returning(games.c.id))
        if inserted.first() is None:
            raise GameExists(game_id)

    def append(
        self, game_id: str, expected_version: int, new_events: Sequence[NewEvent], recorded_at: dt.datetime,
        *, final: bool = False,
    ) -> list[StoredEvent]:
        if self.committed:
            raise RuntimeError("this transaction was committed with a final append")
        if not new_events:
            if self.last_version(game_id) != expected_version:
                self._refuse(game_id, expected_version)
            return []
        self._flush_other(game_id)
        carried, self.held, self.held_for = self.held, {}, None
        write, begin = self.write, not self.begun
        # The only statement of its transaction: it may commit it too, in the same round trip (on
        # PostgreSQL it is then its own transaction, in autocommit; an append refused by its
        # version check has inserted nothing, so that commits nothing).
        commit = final and begin  # (an SQLite transaction is begun at once: never here)
        try:
            positions = write.insert(game_id, expected_version, new_events, recorded_at, write.time(recorded_at),
                                     begin, commit, carried)
        except sa.exc.IntegrityError as error:  # UNIQUE(game_id, version): a writer got there first
            raise VersionConflict(game_id, expected_version, None) from error
        finally:
            self.begun = True  # (if the round trip failed, the rollback finds nothing to undo)
        self.committed = commit
        if positions is None:
            self._refuse(game_id, expected_version)
        self._notify(game_id, expected_version + len(new_events))
        at = as_utc(recorded_at)
        return [StoredEvent(game_id, expected_version + offset, event.type, event.seat, event.data, at, position)
                for offset, (event, position) in enumerate(zip(new_events, positions, strict=True), start=1)]

    def _refuse(self, game_id: str, expected_version: int) -> NoReturn:
        # (after a final append's commit, the connection is back in autocommit: a plain read)
        actual = _version_of(self._connection if self.committed else self.connection, game_id)
        if actual is None:
            raise UnknownGame(game_id)
        raise VersionConflict(game_id, expected_version, actual)

    def _notify(self, game_id: str, version: int) -> None:
        """Announce the append in this process at commit (PostgreSQL's NOTIFY went with the insert)."""
        self.appended[game_id] = version

    def last_version(self, game_id: str) -> int | None:
        return _version_of(self.connection, game_id)

    def read(self, game_id: str, after: int = 0) -> list[StoredEvent]:
        return _stored_events(self.connection, _game_events(game_id, after, None))

    def set_status(self, game_id: str, status: str) -> None:
        if self._hold(game_id):
            self.held["status"] = (status, game_id)
        else:
            self._set_status(status, game_id)

    def _set_status(self, status: str, game_id: str) -> None:
        result = self.connection.execute(games.update().where(games.c.id == game_id).values(status=status))
        if result.rowcount != 1:
            raise UnknownGame(game_id)

    def set_deadline(self, game_id: str, deadline: dt.datetime | None) -> None:
        # Its own statement, before the append (never carried by it): every writer of a clocked
        # game then locks the game's row before the append lock, as a carried status would not.
        result = self.connection.execute(SET_DEADLINE, {"game_id": game_id, "deadline": deadline})
        if result.rowcount != 1:
            raise UnknownGame(game_id)

    def add_token(self, game_id: str, seat: int, token_hash: str) -> None:
        self.connection.execute(seats.insert().values(token_hash=token_hash, game_id=game_id, seat=seat))

    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        row = self.connection.execute(
            sa.select(idempotency.c.request_hash, idempotency.c.status, idempotency.c.body).where(
                idempotency.c.game_id == game_id, idempotency.c.seat == seat, idempotency.c.key == key
            )
        ).first()
        return None if row is None else IdempotencyRecord(row.request_hash, row.status, row.body)

    def put_idempotency(self, game_id: str, seat: int, key: str, record: IdempotencyRecord) -> None:
        self.connection.execute(idempotency.insert().values(
            game_id=game_id, seat=seat, key=key, request_hash=record.request_hash, status=record.status,
            body=record.body, created_at=dt.datetime.now(dt.UTC),
        ))

    def put_snapshot(self, game_id: str, version: int, fingerprint: str, blob: bytes) -> None:
        row = (game_id, version, fingerprint, bytes(blob), dt.datetime.now(dt.UTC))
        if self._hold(game_id):
            self.held["snapshot"] = row
        else:
            self._put_snapshot(*row)

    def _put_snapshot(self, game_id: str, version: int, fingerprint: str, blob: bytes,
                      created_at: dt.datetime) -> None:
        row = {"game_id": game_id, "version": version, "fingerprint": fingerprint, "blob": blob,
               "created_at": created_at}
        self.connection.execute(_snapshot_upsert(self.dialect), row)

    def latest_snapshot(self, game_id: str) -> Snapshot | None:
        return _snapshot(self.connection, game_id)


class _SqliteWriter(NamedTuple):
    """A process's SQLite write connection, its pysqlite connection and its append statements."""

    connection: sa.Connection
    driver: sqlite3.Connection
    append: _SqliteAppend


class _SqliteWrite:
    """SQLite: a writing transaction on its process's one write connection, begun and ended on
    pysqlite itself (a class, not a generator: it wraps every append).

    Writers are serialised (``SqliteWriters``), so a process keeps one connection open for
    them all rather than checking one out of the pool and resetting it for every write.
    ``BEGIN IMMEDIATE`` takes the write lock up front (see :mod:`persistence.engine`). An
    append runs on the driver's cursor alone, so this is all its transaction costs:
    SQLAlchemy's ``begin()``/``commit()`` and their event dispatch were a third of an append.
    Statements run through Core (creating a game, a status, a snapshot) open SQLAlchemy's
    own bookkeeping transaction, which issues no SQL on this connection (it lacks the
    ``cardhall_write`` option) and is closed after the COMMIT or ROLLBACK.
    """

    __slots__ = ("store", "work", "writer")

    def __init__(self, store: SqlEventStore) -> None:
        self.store = store

    def __enter__(self) -> SqlTransaction:
        store = self.store
        with store._outages:
            store._writing.__enter__()
            try:
                writer = self.writer = store._sqlite_writer()
                writer.driver.execute("BEGIN IMMEDIATE")
            except BaseException:
                store._writing.__exit__(None, None, None)
                raise
        self.work = SqlTransaction(writer.connection, writer.append)
        return self.work

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: Any) -> None:
        store, writer = self.store, self.writer
        try:
            with store._outages:
                if error is not None:
                    store._sqlite_rollback(writer, error)
                else:
                    self._commit(writer)
        finally:
            store._writing.__exit__(None, None, None)
        if error is not None:
            store._outages.__exit__(kind, error, trace)  # the body's outage is a StoreUnavailable too
            return
        store._announce(self.work)

    def _commit(self, writer: _SqliteWriter) -> None:
        try:
            writer.driver.execute("COMMIT")
        except BaseException as failure:
            self.store._sqlite_rollback(writer, failure)
            raise
        if writer.connection.in_transaction():
            writer.connection.commit()  # nothing left to commit in pysqlite: only SQLAlchemy's bookkeeping


class SqliteWriters:
    """SQLite writers queue here, each woken the moment the writer before it commits.

    Queued on the database's write lock instead (``BEGIN IMMEDIATE``), they would poll
    it through SQLite's busy handler, sleeping up to 100 ms between tries: the lock
    sat idle while they slept. Threads of a process queue on a lock, processes on an
    exclusive ``flock`` of ``<database>-writers``. ``BEGIN IMMEDIATE`` stays the real
    lock: a writer that does not queue here (another program) is still waited for.
    """

    def __init__(self, database: str | None) -> None:
        self.database = database
        self._threads = threading.RLock()
        self._file = open(f"{database}-writers", "a+b")  # noqa: SIM115  (held for the store's life)
        self._depth = 0

    def __enter__(self) -> None:
        self._threads.acquire()
        self._depth += 1
        if self._depth == 1:
            fcntl.flock(self._file, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            fcntl.flock(self._file, fcntl.LOCK_UN)
        self._threads.release()

    def close(self) -> None:
        """Close the lock file."""
        self._file.close()


class SqlEventStore(EventStore):
    """The event store over SQLite or PostgreSQL; the schema must be migrated (:func:`persistence.upgrade`)."""

    def __init__(self, url: str) -> None:
        self.engine = create_engine(normalise_url(url), autocommit=True)
        self.head_revision = head_revision()  # (taken now: a deploy that changes the files does not change this process)
        self.dialect = self.engine.dialect.name
        self._outages = _OutageIsUnavailable(self.engine.dialect)
        self._writing: AbstractContextManager[Any] = (
            SqliteWriters(self.engine.url.database) if self.dialect == "sqlite" else contextlib.nullcontext()
        )
        self._writer: _SqliteWriter | None = None
        self._start_wake_ups()
        # A server that forks workers (gunicorn --preload) must not share the parent's
        # connections or its wake-up thread, which does not survive the fork.
        store = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: _forget_parent(store()))

    def _start_wake_ups(self) -> None:
        self._board = Announcements()
        self._waker: SqlitePoller | PostgresListener = (
            PostgresListener(self._board, self._listen_connection)
            if self.dialect == "postgresql"
            else SqlitePoller(self._board, self.engine, SQLITE_POLL_SECONDS)
        )

    def transaction(self) -> AbstractContextManager[Transaction]:
        return _SqliteWrite(self) if self.dialect == "sqlite" else self._pooled_transaction()

    @contextmanager
    def _pooled_transaction(self) -> Iterator[Transaction]:
        """PostgreSQL: a writing transaction on a pooled connection, begun and ended on psycopg.

        The store's connections are in autocommit (a read is one statement: no BEGIN, no
        ROLLBACK, no isolation level set and reset at every checkout; see ``persistence.engine``),
        so a write sends its own ``BEGIN``: with its first append's statement, in one round
        trip, or before the first other statement; and ``COMMIT`` at the end. A final append
        alone in its transaction (a move's) sends neither: its one statement is its own
        transaction (see ``_PostgresAppend``). Statements run through Core open SQLAlchemy's own
        bookkeeping transaction, which sends nothing in autocommit and is closed after ours.
        """
        with self._outages, self.engine.connect() as connection:
            driver = connection.connection.driver_connection
            work = SqlTransaction(connection, _PostgresAppend(connection), begin=lambda: driver.execute("BEGIN"))
            try:
                yield work
                if work.held:
                    work.flush()  # held back for an append that never came
                if work.begun and not work.committed:
                    driver.execute("COMMIT")
            except BaseException:
                self._postgres_rollback(connection, driver)
                raise
            if connection.in_transaction():
                connection.commit()  # nothing left to commit in psycopg: only SQLAlchemy's bookkeeping
        self._announce(work)

    def _postgres_rollback(self, connection: sa.Connection, driver: Any) -> None:
        """Undo a failed PostgreSQL write. A connection the server dropped is discarded, with every
        other of the pool (they were all opened before it went: a restart or failover)."""
        import psycopg

        try:
            if driver.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                driver.execute("ROLLBACK")
            if connection.in_transaction():
                connection.rollback()
        except (psycopg.Error, sa.exc.DBAPIError):
            pass
        if driver.broken or driver.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            connection.invalidate()
            self.engine.dispose(close=False)

    def _sqlite_writer(self) -> _SqliteWriter:
        writer = self._writer
        if writer is None or writer.connection.closed or writer.connection.invalidated:
            connection = self.engine.connect()
            writer = self._writer = _SqliteWriter(connection, connection.connection.driver_connection,
                                                  _SqliteAppend(connection))
        return writer

    def _sqlite_rollback(self, writer: _SqliteWriter, error: BaseException) -> None:
        """Undo a failed SQLite write; a connection that cannot be rolled back is dropped."""
        try:
            if writer.driver.in_transaction:
                writer.driver.execute("ROLLBACK")
            if writer.connection.in_transaction():
                writer.connection.rollback()
        except (sqlite3.Error, sa.exc.DBAPIError):
            writer.connection.invalidate()
        if (isinstance(error, sa.exc.DBAPIError) and error.connection_invalidated) or writer.connection.invalidated:
            self._writer = None

    def _announce(self, work: SqlTransaction) -> None:
        for game_id, version in work.appended.items():
            self._board.announce(game_id, version)

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        if self.dialect == "sqlite":
            return self._sqlite_events(_SQLITE_GAME_EVENTS, (game_id, after, -1 if limit is None else limit))
        return self._events(_game_events(game_id, after, limit))

    def read_all(self, after_position: int = 0, limit: int = 1000) -> list[StoredEvent]:
        if self.dialect == "sqlite":
            return self._sqlite_events(_SQLITE_ALL_EVENTS, (after_position, limit))
        query = events.select().where(events.c.position > after_position)
        return self._events(query.order_by(events.c.position).limit(limit))

    def last_version(self, game_id: str) -> int | None:
        # Every request for a game asks it: on the driver's cursor, a fraction of Core's cost.
        return self._read(lambda connection: _version_of(connection, game_id))

    def latest_snapshot(self, game_id: str) -> Snapshot | None:
        return self._read(lambda connection: _snapshot(connection, game_id))

    def get_game(self, game_id: str) -> GameRecord | None:
        row = self._read(lambda connection: connection.execute(GAME_ROWS.where(games.c.id == game_id)).first())
        return None if row is None else GameRecord(**row._mapping)

    def list_games(
        self, *, status: str | None = None, game: str | None = None, limit: int = 50, cursor: str | None = None
    ) -> GamePage:
        query = GAME_ROWS.order_by(games.c.created_at.desc(), games.c.id.desc()).limit(limit + 1)
        if status is not None:
            query = query.where(games.c.status == status)
        if game is not None:
            query = query.where(games.c.game == game)
        if cursor is not None:
            created_at, game_id = decode_cursor(cursor)
            query = query.where(sa.or_(
                games.c.created_at < created_at,
                sa.and_(games.c.created_at == created_at, games.c.id < game_id),
            ))
        rows = self._read(lambda connection: [GameRecord(**row._mapping) for row in connection.execute(query)])
        page = rows[:limit]
        more = len(rows) > limit and page
        return GamePage(page, encode_cursor(page[-1].created_at, page[-1].id) if more else None)

    def due_games(self, now: dt.datetime, limit: int = 100) -> list[tuple[str, int]]:
        query = DUE_GAMES.where(games.c.deadline <= now).limit(limit)
        return self._read(lambda connection: [(row.id, row.version) for row in connection.execute(query)])

    def seat_for_token(self, token_hash: str) -> tuple[str, int] | None:
        row = self._read(lambda connection: connection.execute(SEAT_OF_TOKEN, {"token_hash": token_hash}).first())
        return None if row is None else (row.game_id, row.seat)

    def wait(self, game_id: str, after: int, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        self._waker.start()
        # Listening before the first read, so no append slips in between; without a
        # listener (the database is unreachable for now) fall back to polling.
        listening = self._waker.ready.wait(min(timeout, 2.0))
        return self._board.wait(
            game_id, after, max(0.0, deadline - time.monotonic()),
            lambda: self.last_version(game_id) or 0, RECHECK_SECONDS[self.dialect] if listening else 0.5,
        )

    def subscribe(self, game_id: str, callback: Callable[[int | None], None]) -> Callable[[], None]:
        self._waker.start()
        return self._board.subscribe(game_id, callback)

    def pool_use(self) -> tuple[int, int] | None:
        pool = self.engine.pool
        return (pool.checkedout(), pool.size()) if isinstance(pool, sa.pool.QueuePool) else None

    def latest_heard(self, game_id: str) -> int | None:
        """PostgreSQL: what this process's LISTEN connection (started here if need be) has heard,
        while it listens; it hears every commit of every process. SQLite: None (its poller runs
        only while someone waits, and a read costs little)."""
        if self.dialect != "postgresql":
            return None
        self._waker.start()
        return self._board.heard(game_id) if self._waker.ready.is_set() else None

    def shuffle_secret(self) -> str:
        query = sa.select(deployment_secrets.c.value).where(deployment_secrets.c.name == "shuffle")
        value = self._read(lambda connection: connection.execute(query).scalar())
        if value is None:
            raise StoreError("the database has no shuffle secret: run 'cardhall db upgrade'")
        return value

    def ping(self) -> None:
        self._read(lambda connection: connection.execute(sa.text("SELECT 1")))

    def schema_problem(self) -> str | None:
        try:
            revision = self._read(lambda connection: connection.execute(_SCHEMA_REVISION).scalar())
        except sa.exc.DBAPIError as error:  # (never migrated: no alembic_version table)
            return f"the database has no schema revision ({type(error.orig).__name__})"
        if revision != self.head_revision:
            return f"the database schema is at revision {revision}; this code needs {self.head_revision}"
        return None

    def close(self) -> None:
        self._waker.close()
        if self._writer is not None:
            self._writer.connection.close()
            self._writer = None
        self.engine.dispose()
        if isinstance(self._writing, SqliteWriters):
            self._writing.close()

    def _read(self, read: Callable[[sa.Connection], _T]) -> _T:
        """``read`` on a pooled connection. Every read is one statement, atomic by itself, and runs
        without a BEGIN: PostgreSQL's connections are in autocommit, and SQLite issues no BEGIN
        for reads (see persistence.engine).

        The pool does not test a connection before handing it out (a round trip per
        checkout, a fifth of a move's on PostgreSQL). A read that finds its connection
        dead (the server restarted, or dropped it) is run once more: the failure made
        SQLAlchemy discard every connection of the pool opened before it, so the second
        try connects afresh. Reads change nothing, so trying again is always safe; a
        write is never retried here (see ``persistence.engine``).
        """
        with self._outages:
            for attempt in (1, 2):
                dropped = False
                try:
                    with self.engine.connect() as connection:
                        try:
                            return read(connection)
                        except self._outages.driver_errors:  # a read on the driver's own cursor
                            if attempt == 2 or not getattr(connection.connection.driver_connection, "broken", False):
                                raise
                            connection.invalidate()  # (what SQLAlchemy does for its own statements)
                            dropped = True
                except sa.exc.DBAPIError as error:
                    if attempt == 2 or not error.connection_invalidated:
                        raise
                if dropped:
                    self.engine.dispose(close=False)  # every connection opened before went with it
        raise AssertionError("unreachable")

    def _events(self, query: sa.Select[Any]) -> list[StoredEvent]:
        return self._read(lambda connection: _stored_events(connection, query))

    def _sqlite_events(self, sql: str, parameters: tuple[Any, ...]) -> list[StoredEvent]:
        """SQLite: events read on pysqlite's cursor and decoded as SQLAlchemy's JSON and DATETIME
        result processors would (a test holds them equal), at about three times Core's rate:
        a cold load or a long ``/events`` page is mostly this."""
        rows = self._read(lambda connection: connection.connection.driver_connection.execute(sql, parameters)
                          .fetchall())
        loads, parse, utc = json.loads, dt.datetime.fromisoformat, dt.UTC
        return [StoredEvent(game_id, version, type_name, seat, loads(data), parse(at).replace(tzinfo=utc), position)
                for position, game_id, version, type_name, seat, data, at in rows]

    def _listen_connection(self) -> Any:
        """A dedicated autocommit psycopg connection, outside the pool, for LISTEN."""
        import psycopg

        args, kwargs = self.engine.dialect.create_connect_args(self.engine.url)
        return psycopg.connect(*args, **kwargs, autocommit=True)


#: SQLSTATE classes of PostgreSQL errors that mean the database is out of reach, not that a
#: statement is wrong: connection exceptions, operator intervention (shutdown, restart),
#: insufficient resources (too many connections, disk full).
POSTGRES_OUTAGE_STATES = ("08", "57P", "53")
#: SQLite primary result codes that mean the same: busy, locked, I/O error, cannot open the file.
SQLITE_OUTAGE_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR,
                                 sqlite3.SQLITE_CANTOPEN})


def is_outage(driver_error: BaseException) -> bool:
    """Whether a driver error means the database is out of reach (worth a retry), not a bug.

    A missing table is an OperationalError on SQLite and a ProgrammingError on PostgreSQL;
    either way it is a bug or a deployment mistake, and answering it as "unavailable, retry"
    would hide it: only connection-class errors count.
    """
    code = getattr(driver_error, "sqlite_errorcode", None)
    if isinstance(driver_error, sqlite3.Error):
        return code is not None and code & 0xFF in SQLITE_OUTAGE_CODES
    state = getattr(driver_error, "sqlstate", None)
    if state is None:  # psycopg raises errors of its own, without a state, when a connection fails or is closed
        return any(base.__name__ in ("OperationalError", "InterfaceError") for base in type(driver_error).__mro__)
    return state.startswith(POSTGRES_OUTAGE_STATES)


class _OutageIsUnavailable:
    """Turns the database being out of reach (refused or dropped connections, an exhausted pool,
    a lock not granted in time: see :func:`is_outage`) into StoreUnavailable, which the service
    answers with 503. Any other database error stays what it is: a bug, answered 500 and logged.

    The driver's own errors too, from statements run on the driver's cursor (appends,
    ``BEGIN IMMEDIATE``). A plain class, not a generator: it wraps every read and write.
    """

    def __init__(self, dialect: sa.Dialect) -> None:
        self.driver_errors = (dialect.loaded_dbapi.OperationalError, dialect.loaded_dbapi.InterfaceError)

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _trace: Any) -> None:
        if error is None:
            return
        if isinstance(error, sa.exc.DBAPIError) and (error.connection_invalidated or is_outage(error.orig)):
            raise StoreUnavailable(str(error.orig).strip() or type(error.orig).__name__) from error
        if isinstance(error, self.driver_errors) and is_outage(error):
            raise StoreUnavailable(str(error).strip() or type(error).__name__) from error
        if isinstance(error, sa.exc.TimeoutError):
            raise StoreUnavailable(f"no database connection became free in time: {error}") from error


#: Connections a forked child inherited: kept referenced so that nothing closes them in the child.
_PARENTS_CONNECTIONS: list[sa.Connection] = []


def _forget_parent(store: SqlEventStore | None) -> None:
    """In a forked child: drop the parent's pooled connections (unclosed) and wake-up state."""
    if store is not None:
        store.engine.dispose(close=False)
        store._start_wake_ups()
        if isinstance(store._writing, SqliteWriters):
            store._writing = SqliteWriters(store._writing.database)  # never share the parent's lock
        if store._writer is not None:
            _PARENTS_CONNECTIONS.append(store._writer.connection)  # the parent's: never closed (nor used) here
            store._writer = None

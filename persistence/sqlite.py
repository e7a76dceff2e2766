"""The SQLite event store: one file on one host, shared by any number of its processes.

**Writing.** SQLite has one writer at a time, and a commit waits for the disk
(``synchronous=FULL``). A process's writers take turns on its one write connection,
kept open for every write, and are committed in groups
(:meth:`SqliteEventStore.transaction`): the transaction a group shares takes the
database's write lock up front (``BEGIN IMMEDIATE``, see :mod:`persistence.engine`)
once the process's turn comes in :class:`WriterQueue`, and one ``COMMIT`` (one wait
for the disk) ends it for every writer who queued meanwhile.

**The append** is one statement in SQL, run once per event on the driver itself
(SQLAlchemy's work per statement would cost more than the statement): it
inserts the event only if the game's newest version is the one before it. Under
the write lock nothing can come between, so the first row's check is the
append's version check and the others' always pass. Its values are bound with
the columns' own SQLAlchemy processors, so rows are stored exactly as Core would
store them.

**Announcements.** Appends committed in this process are announced at once; another
process's appends are seen by a poll of the events table (:class:`SqlitePoller`),
one small indexed query per interval per process, and only while someone waits.
Readers are never blocked (WAL). Never put the file on a network file system.

**The engine** (:func:`sqlite_engine`, the store's and the migrations'):

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
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import sqlite

from persistence.announcements import Board, Listener
from persistence.engine import JSON_SERIALIZER, WRITE, pool_options, sqlite_synchronous
from persistence.port import NewEvent, StoreUnavailable, Transaction
from persistence.schema import events
from persistence.sqlstore import SqlEventStore, SqlTransaction, upserts

log = logging.getLogger(__name__)
BUSY_TIMEOUT_SECONDS = 30.0
# A connection per server thread (``cardhall serve --threads`` defaults to 32): SQLite
# connections cost no server slot, and a pool smaller than the threads closes each
# connection opened beyond it on return, so every request past it opened a file anew.
SQLITE_POOL_SIZE = 32
#: The page size of a new SQLite file. A commit writes every page it touched, whole, to the
#: WAL; an append touches two (the events table's and its (game_id, version) index's), so
#: halving SQLite's default 4 KiB halves the bytes an append writes (docs/performance.md).
SQLITE_PAGE_SIZE = 2048

POLL_SECONDS = 0.05
#: SQLite primary result codes that mean the database is out of reach: busy, locked, I/O error,
#: cannot open the file.
OUTAGE_CODES = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN})

#: One event after the version before it, if that is the game's newest (parameters: the event's
#: six columns, then its game's id twice and the version before it).
APPEND_SQL = (
    "INSERT INTO events (game_id, version, type, seat, data, recorded_at) SELECT ?, ?, ?, ?, ?, ? "
    "WHERE (SELECT coalesce((SELECT version FROM events WHERE game_id = ? ORDER BY version DESC LIMIT 1), 0) "
    "FROM games WHERE id = ?) = ?"
)


#: How SQLAlchemy binds a ``recorded_at`` on SQLite (naive UTC text).
_BIND_TIME: Callable[[Any], Any] = events.c.recorded_at.type.bind_processor(sqlite.dialect())  # type: ignore[assignment]


class SqliteTransaction(SqlTransaction):
    """A writing transaction on the process's write connection, under the write lock."""

    NEW_GAME, PUT_SNAPSHOT = upserts(sqlite.insert)

    def __init__(self, connection: sa.Connection, driver: sqlite3.Connection) -> None:
        super().__init__(connection)
        self.driver = driver

    def insert(self, game_id: str, expected: int, new_events: Sequence[NewEvent], recorded_at: dt.datetime) -> bool:
        at = _BIND_TIME(recorded_at)
        rows = [(game_id, version, event.type, event.seat, JSON_SERIALIZER(event.data), at, game_id, game_id,
                 version - 1) for version, event in enumerate(new_events, start=expected + 1)]
        try:
            inserted = self.driver.executemany(APPEND_SQL, rows).rowcount
        except sqlite3.Error as error:  # (what SQLAlchemy would have raised, had it run the statement)
            raise sa.exc.DBAPIError.instance(APPEND_SQL, rows, error, sqlite3.Error) from error
        return inserted == len(rows)


class WriterQueue:
    """The processes sharing the file queue here for the write lock, each woken the moment the one
    before it commits (a process's own writers take turns first: :meth:`SqliteEventStore.transaction`).

    Queued on the database's write lock instead (``BEGIN IMMEDIATE``), they would poll
    it through SQLite's busy handler, sleeping up to 100 ms between tries: the lock
    sat idle while they slept. The queue is an exclusive ``flock`` of ``<database>-writers``,
    taken when a process opens a group of writes and given back when it commits, from
    whichever of its threads does. ``BEGIN IMMEDIATE`` stays the real lock: a writer that
    does not queue here (another program) is still waited for.
    """

    def __init__(self, database: str | None) -> None:
        self.database = database
        self._file = open(f"{database}-writers", "a+b")  # noqa: SIM115  (held for the store's life)

    def acquire(self) -> None:
        """Wait for this process's turn."""
        fcntl.flock(self._file, fcntl.LOCK_EX)

    def release(self) -> None:
        """The next process's turn."""
        fcntl.flock(self._file, fcntl.LOCK_UN)

    def close(self) -> None:
        """Close the lock file."""
        self._file.close()


#: Connections a forked child inherited: kept referenced so that nothing closes them in the child.
_PARENTS_CONNECTIONS: list[sa.Connection] = []


class _Group:
    """Writes committed together: the transaction open on the write connection."""

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection
        self.members = 0
        self.broken = False
        self.error: BaseException | None = None
        self.committing = threading.Lock()  # held until the group's commit is over (a Lock: an Event costs ~5 µs a write)
        self.committing.acquire()


class SqliteEventStore(SqlEventStore):
    """The event store in an SQLite file."""

    DRIVER_ERROR = sqlite3.Error
    BEGIN = "BEGIN IMMEDIATE"

    #: The most writes one commit takes: another process's writers wait for at most that many.
    MAX_GROUP = 16

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self._queue = WriterQueue(self.engine.url.database)
        self._writer: sa.Connection | None = None
        self._turn = threading.Lock()  # a writer's turn to run its transaction's statements
        self._counting = threading.Lock()
        self._queued = 0  # writers waiting for their turn
        self._group: _Group | None = None  # the transaction open on the write connection, if any

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """A write, committed together with the writes this process's other writers queued
        meanwhile (group commit): one wait for the disk for them all instead of one each.

        Writers take turns; each runs its statements inside the transaction open on the write
        connection. The first opens it (``BEGIN IMMEDIATE``: alone, a write costs what it did
        without groups); each after it runs in a savepoint of its own, so a write that fails is
        undone alone (the first's failure rolls back the whole, which holds nothing else). The
        writer whose turn ends with nobody queued, or the group full, commits for all.

        Every writer returns (or raises what its write raised) only once its group's commit is
        over: nothing is acknowledged before it is on disk, a failed commit fails every write of
        the group, and a write refused for a version conflict is decided again
        on a store that holds the writes before it."""
        if not self._turn.acquire(blocking=False):  # (alone, a write takes its turn without counting)
            with self._counting:
                self._queued += 1
            self._turn.acquire()
            with self._counting:
                self._queued -= 1
        failure: BaseException | None = None
        try:
            with self.outages():
                opens = self._group is None
                group = self._group or self._open_group()
            driver = group.connection.connection.driver_connection
            work = SqliteTransaction(group.connection, driver)
            undone_alone = False
            try:
                with self.outages():
                    if opens:  # (alone in the transaction: if it fails, the whole is rolled back)
                        yield work
                    else:
                        driver.execute("SAVEPOINT write")
                        try:
                            yield work
                        except BaseException:
                            driver.execute("ROLLBACK TO write")
                            driver.execute("RELEASE write")
                            undone_alone = True
                            raise
                        driver.execute("RELEASE write")
                group.members += 1
            except BaseException as error:  # (raised once the group is committed: a retry must see it)
                failure = error
                group.broken = group.broken or not undone_alone
            if group.broken or self._queued == 0 or group.members >= self.MAX_GROUP:
                self._close_group(group)
        finally:
            self._turn.release()
        with group.committing:  # (until the commit is over; then the next waiter's turn)
            pass
        if group.error is not None and failure is None:
            with self.outages():
                raise group.error
        if failure is not None:
            raise failure
        self.announce(work)

    def _open_group(self) -> _Group:
        self._queue.acquire()
        try:
            if self._writer is None or self._writer.closed or self._writer.invalidated:
                self._writer = self.engine.connect()
            self._writer.connection.driver_connection.execute(self.BEGIN)
        except BaseException:
            self._queue.release()
            raise
        self._group = _Group(self._writer)
        return self._group

    def _close_group(self, group: _Group) -> None:
        """Commit the group (roll it back if it broke), then let the next group or process write."""
        self._group = None
        connection = group.connection
        try:
            if group.broken:  # (a write failed and could not be undone alone: nothing of the group is kept)
                raise StoreUnavailable("the database failed during a write committed with this one; retry")
            connection.connection.driver_connection.execute("COMMIT")
        except BaseException as error:
            group.error = error
            self._roll_back(connection)
        finally:
            if not connection.invalidated and connection.in_transaction():
                connection.commit()  # (only SQLAlchemy's bookkeeping: the driver's transaction is over)
            self._queue.release()
            group.committing.release()

    def _listener(self, board: Board) -> SqlitePoller:
        return SqlitePoller(board, self.engine, POLL_SECONDS)

    def is_outage(self, driver_error: BaseException) -> bool:
        """Busy, locked, an I/O error or a file that cannot be opened. A missing table is a bug or a
        deployment mistake, and answering it as "unavailable, retry" would hide it."""
        code = getattr(driver_error, "sqlite_errorcode", None)
        return code is not None and code & 0xFF in OUTAGE_CODES

    def _roll_back(self, connection: sa.Connection) -> None:
        """Undo a failed write; a connection that cannot be rolled back is dropped."""
        try:
            connection.connection.driver_connection.rollback()
        except sqlite3.Error:
            connection.invalidate()
        if connection.invalidated:
            self._writer = None

    def after_fork(self) -> None:
        super().after_fork()
        self._queue = WriterQueue(self._queue.database)  # never share the parent's locks, nor its open group
        self._turn, self._counting, self._queued, self._group = threading.Lock(), threading.Lock(), 0, None
        if self._writer is not None:
            _PARENTS_CONNECTIONS.append(self._writer)  # the parent's: never closed (nor used) here
            self._writer = None

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        super().close()
        self._queue.close()


def _create_private(path: str) -> None:
    """Create the SQLite file ``path``, if there is none, readable and writable by its owner alone: it
    holds every hidden card and the shuffle secret. (SQLite gives its WAL and shared-memory files the
    mode of the database's; an existing file keeps the mode its owner gave it.)"""
    if path.startswith("file:"):  # (a URI filename: SQLite's to open)
        return
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def sqlite_engine(url: sa.URL, *, foreign_keys: bool, autocommit: bool) -> sa.Engine:
    """The engine of an SQLite file, configured as the module docstring says."""
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
        **pool_options(SQLITE_POOL_SIZE),
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


class SqlitePoller(Listener):
    """Announces other processes' commits by polling the events table while anyone follows a game."""

    name = "cardhall-sqlite-poller"

    def __init__(self, board: Board, engine: sa.Engine, interval: float = 0.05) -> None:
        super().__init__(board)
        self.engine, self.interval = engine, interval

    def _run(self) -> None:
        last = self._poll(None)
        self.ready.set()
        while not self._closed.is_set():
            self.board.idle(timeout=0.25)
            if self.board.has_subscribers() and not self._closed.wait(self.interval):
                last = self._poll(last)

    def _poll(self, last: int | None) -> int | None:
        """Announce each game's newest version past position ``last``; the new last position."""
        try:
            with self.engine.connect() as connection:
                if last is None:
                    return connection.scalar(sa.select(sa.func.max(events.c.position))) or 0
                query = (
                    sa.select(events.c.game_id, sa.func.max(events.c.version), sa.func.max(events.c.position))
                    .where(events.c.position > last)
                    .group_by(events.c.game_id)
                )
                rows = connection.execute(query).all()
        except sa.exc.DBAPIError:
            log.exception("polling the events table failed")
            return last
        for game_id, version, position in rows:
            self.board.announce(game_id, version)
            last = max(last, position)
        return last

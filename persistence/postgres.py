"""The PostgreSQL event store: any number of processes on any number of hosts.

**Writing.** The pool's connections are in autocommit, so a read is one statement
with no ``BEGIN`` (see :mod:`persistence.engine`); a writing transaction sends its
own ``BEGIN`` and ``COMMIT`` (``READ COMMITTED``; see :func:`run`). No lock spans games: appends to
different games run side by side.

**The append** is one statement in SQL (:data:`APPEND_SQL`), on the driver's cursor
(SQLAlchemy's work per statement would cost more than the statement): it inserts every
event only if the game's newest version is the expected one. Its check reads the snapshot the statement
began with; an append after the same version committed since, or still in
flight, is caught by ``UNIQUE(game_id, version)`` instead (the insert waits for
the other transaction, then fails), which the store reports as the same
VersionConflict. Of any two appends after one version, one is refused.

**Announcements.** Appends committed in this process are announced at once; every
process keeps one LISTEN connection (:class:`PostgresListener`) that hears every
process's NOTIFY and announces it; followers re-read the store. The NOTIFY is sent
after the append's COMMIT, in a statement of its own: a transaction that notifies
takes a lock of the whole database from its NOTIFY until its commit is done, flush
to disk included, so a NOTIFY inside the append would make every game's commits
wait in one line again. A NOTIFY lost to a crash between the two costs latency,
never an event: followers re-read the store now and then (:mod:`service.following`).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from persistence.announcements import Board, Listener
from persistence.engine import JSON_SERIALIZER, pool_options
from persistence.interruptions import Interruption
from persistence.port import NewEvent, Transaction
from persistence.sqlstore import SqlEventStore, SqlTransaction, upserts

#: SQLSTATE classes of errors that mean the database is out of reach, not that a statement is
#: wrong: connection exceptions, operator intervention (shutdown, restart), insufficient
#: resources (too many connections, disk full).
OUTAGE_STATES = ("08", "57P", "53")

#: Every event of an append (one JSON array: one parameter, however many events), after the
#: expected version if that is the game's newest. One text for any number of events, so psycopg
#: prepares it once per connection.
APPEND_SQL = (
    "WITH new AS (INSERT INTO events (game_id, version, type, seat, data, recorded_at) "
    "SELECT %(game_id)s::varchar, %(expected)s::integer + e.number, e.event->>'type', (e.event->>'seat')::integer, "
    "e.event->'data', %(recorded_at)s::timestamptz "
    "FROM jsonb_array_elements(%(events)s::jsonb) WITH ORDINALITY AS e(event, number) "
    "WHERE (SELECT coalesce((SELECT version FROM events WHERE game_id = %(game_id)s::varchar "
    "ORDER BY version DESC LIMIT 1), 0) FROM games WHERE id = %(game_id)s::varchar) = %(expected)s::integer "
    "RETURNING version) "
    "SELECT version FROM new"
)
log = logging.getLogger(__name__)
#: The channel of the NOTIFY each append sends, ``game_id:version``.
CHANNEL = "cardhall_events"
# PostgreSQL: at most 4 connections a worker, all kept once opened, and no overflow:
# SQLAlchemy closes an overflow connection when it is handed back, so with overflow a busy
# worker opened and closed PostgreSQL sessions without end. Far fewer than the 32 threads,
# which are there for waiting requests (they hold no connection): the requests past the
# pool's size wait their turn inside the worker, asleep, rather than as PostgreSQL backends
# contending for the database's cores and its locks (PostgreSQL's rule of thumb: about twice
# its cores in active connections). docs/performance.md has the measurements.
POSTGRES_POOL_SIZE = 4


def run(driver: psycopg.Connection, command: bytes) -> None:
    """Run ``command``, statements without parameters or rows (``BEGIN``, ``COMMIT``, ``NOTIFY``),
    with libpq's ``PQexec``, which waits for the server with the GIL released. psycopg's ``execute``
    costs about 70 µs of CPU a statement (a cursor, a query and a result to make), as much as the
    append's own statement; this, a few (docs/performance.md). Errors are psycopg's own."""
    result = driver.pgconn.exec_(command)
    if result.status != psycopg.pq.ExecStatus.COMMAND_OK:
        if driver.pgconn.status != psycopg.pq.ConnStatus.OK:  # (the connection is gone: no SQLSTATE to read)
            raise psycopg.OperationalError(psycopg.pq.error_message(driver.pgconn))
        raise psycopg.errors.error_from_result(result, encoding=driver.info.encoding)


def notify_sql(driver: psycopg.Connection, appended: dict[str, int]) -> bytes:
    """The NOTIFY that tells every process's LISTEN connection the versions games reached (``game_id:version``)."""
    quote = psycopg.pq.Escaping(driver.pgconn).escape_literal
    return b"; ".join(b"NOTIFY %s, %s" % (CHANNEL.encode(), quote(f"{game_id}:{version}".encode()))
                      for game_id, version in appended.items())


class PostgresTransaction(SqlTransaction):
    """A writing transaction on a pooled connection."""

    NEW_GAME, PUT_SNAPSHOT = upserts(postgresql.insert)

    def insert(self, game_id: str, expected: int, new_events: Sequence[NewEvent], recorded_at: dt.datetime) -> bool:
        parameters = {
            "game_id": game_id, "expected": expected, "recorded_at": recorded_at,
            "events": JSON_SERIALIZER([{"type": event.type, "seat": event.seat, "data": event.data}
                                       for event in new_events]),
        }
        cursor = self.connection.connection.driver_connection.cursor()
        try:
            cursor.execute(APPEND_SQL, parameters)
        except psycopg.Error as error:  # (what SQLAlchemy would have raised, had it run the statement)
            raise sa.exc.DBAPIError.instance(APPEND_SQL, parameters, error, psycopg.Error) from error
        return len(cursor.fetchall()) == len(new_events)


class PostgresEventStore(SqlEventStore):
    """The event store in a PostgreSQL database."""

    DRIVER_ERROR = psycopg.Error

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        """``BEGIN`` and ``COMMIT`` on the driver itself (:func:`run`): SQLAlchemy's own transaction
        would cost an append a third more. Statements run through Core open SQLAlchemy's bookkeeping
        transaction, which sends nothing (the connection is in autocommit: see persistence.engine)
        and is closed after the ``COMMIT`` or ``ROLLBACK``."""
        with self.outages(), self.engine.connect() as connection:
            driver = connection.connection.driver_connection
            try:
                run(driver, b"BEGIN")
                work = PostgresTransaction(connection)
                yield work
                self._commit(driver, work)
            except BaseException:
                self._roll_back(connection)
                raise
            finally:
                if connection.in_transaction():
                    connection.commit()  # (nothing left to commit on the driver: only the bookkeeping)
        self.announce(work)

    def _commit(self, driver: psycopg.Connection, work: SqlTransaction) -> None:
        """``COMMIT``, then a NOTIFY for each game appended to (in autocommit: a statement that
        writes nothing, so it waits for no flush to disk). A NOTIFY that fails after the commit is
        logged, not raised: the events are committed and other processes re-read soon."""
        run(driver, b"COMMIT")
        if work.appended:
            try:
                run(driver, notify_sql(driver, work.appended))
            except psycopg.Error as error:
                log.warning("NOTIFY after an append failed: %s", error)

    def _listener(self, board: Board) -> PostgresListener:
        return PostgresListener(board, self._listen_connection)

    def is_outage(self, driver_error: BaseException) -> bool:
        return is_outage(driver_error)

    def _roll_back(self, connection: sa.Connection) -> None:
        """Undo a failed write. A connection the server dropped is discarded, with every other of
        the pool: they were all opened before it went (a restart or failover)."""
        driver = connection.connection.driver_connection
        try:
            if driver.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                run(driver, b"ROLLBACK")
        except psycopg.Error:
            pass
        if driver.broken or driver.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            connection.invalidate()
            self.engine.dispose(close=False)

    def _listen_connection(self) -> Any:
        """A dedicated autocommit psycopg connection, outside the pool, for LISTEN."""
        args, kwargs = self.engine.dialect.create_connect_args(self.engine.url)
        return psycopg.connect(*args, **kwargs, autocommit=True)


def is_outage(driver_error: BaseException) -> bool:
    """A connection-class error. A missing table is a ProgrammingError: a bug or a deployment
    mistake, which answering "unavailable, retry" would hide."""
    state = getattr(driver_error, "sqlstate", None)
    if state is None:  # psycopg raises errors of its own, without a state, when a connection fails or is closed
        return any(base.__name__ in ("OperationalError", "InterfaceError") for base in type(driver_error).__mro__)
    return state.startswith(OUTAGE_STATES)


def postgres_engine(url: sa.URL, *, autocommit: bool) -> sa.Engine:
    """The engine of a PostgreSQL database: a pool of psycopg connections (in autocommit for the store)."""
    # No pool_pre_ping: it costs a round trip per checkout. A dead connection fails its
    # statement instead, which makes SQLAlchemy discard every connection of the pool opened
    # before it; reads then try once more (SqlEventStore._read), a write answers 503.
    if autocommit:  # (a connection's checkout and return then cost no round trip, nor any psycopg call)
        return sa.create_engine(url, pool_recycle=1800, isolation_level="AUTOCOMMIT", pool_reset_on_return=None,
                                json_serializer=JSON_SERIALIZER, **pool_options(POSTGRES_POOL_SIZE))
    return sa.create_engine(url, pool_recycle=1800, json_serializer=JSON_SERIALIZER, **pool_options(POSTGRES_POOL_SIZE))


class PostgresListener(Listener):
    """One LISTEN connection per process; each NOTIFY ``game_id:version`` is announced."""

    name = "cardhall-pg-listener"
    #: Seconds between two tries to connect again.
    RETRY_SECONDS = 1.0

    def __init__(self, board: Board, connect: Callable[[], Any]) -> None:
        super().__init__(board)
        self.connect = connect
        self.interruption = Interruption(log, "the LISTEN connection")

    def _run(self) -> None:
        while not self._closed.is_set():
            try:
                self._listen()
            except Exception as error:  # the server went away: reconnect, and make everyone re-read
                if is_outage(error):  # (a restart of the database: its first failure said, in a line)
                    self.interruption.failed(error)
                else:
                    log.exception("the LISTEN connection failed; reconnecting")
            self.ready.clear()
            self.board.announce_all()
            self._closed.wait(self.RETRY_SECONDS)

    def _listen(self) -> None:
        with self.connect() as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            self.interruption.worked()
            self.ready.set()
            self.board.announce_all()
            while not self._closed.is_set():
                for notice in connection.notifies(timeout=0.25):  # so close() is quick
                    game_id, _, version = notice.payload.rpartition(":")
                    self.board.announce(game_id, int(version))

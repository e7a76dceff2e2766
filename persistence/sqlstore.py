"""What the SQL backends share: the Core statements, a transaction's writes and the store's reads.

:mod:`persistence.sqlite` and :mod:`persistence.postgres` each add what differs: how a
writing transaction begins and ends, the one statement that appends (with the version
check in it), what counts as the database being out of reach, and how other processes'
appends are heard of.

A game's version and last change are its newest event's: an append writes the events
alone, and ``UNIQUE(game_id, version)`` lets at most one append follow each version.
Every lookup is indexed, so a move costs the same at event 10 and at event 2,000.
"""

from __future__ import annotations

import abc
import datetime as dt
import os
import weakref
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import Any, NoReturn, TypeVar

import sqlalchemy as sa

from persistence.announcements import Board, Listener
from persistence.cursor import decode_cursor, encode_cursor
from persistence.engine import create_engine, normalise_url
from persistence.migrate import head_revision
from persistence.port import (
    EventStore,
    GameExists,
    GamePage,
    GameRecord,
    IdempotencyRecord,
    NewEvent,
    NewGame,
    Snapshot,
    StoredEvent,
    StoreError,
    StoreUnavailable,
    Transaction,
    UnknownGame,
    VersionConflict,
    as_utc,
)
from persistence.schema import UtcDateTime, deployment_secrets, events, games, idempotency, seats, snapshots

_T = TypeVar("_T")

# The newest row, not max(): PostgreSQL keeps a prepared statement's generic plan, and the one it
# makes for max() on a young table aggregates every index entry of the game; this form reads one.
_NEWEST_VERSION = (sa.select(events.c.version).where(events.c.game_id == games.c.id)
                   .order_by(events.c.version.desc()).limit(1).scalar_subquery())
_NEWEST_EVENT_AT = (sa.select(events.c.recorded_at).where(events.c.game_id == games.c.id)
                    .order_by(events.c.version.desc()).limit(1).scalar_subquery())
#: A game's version: no row for an unknown game, 0 for one without events.
VERSION_OF_GAME = sa.select(sa.func.coalesce(_NEWEST_VERSION, 0)).where(games.c.id == sa.bindparam("game_id"))
#: The versions of several games (those that are games), and how many one statement asks for.
VERSIONS_OF_GAMES = sa.select(games.c.id, sa.func.coalesce(_NEWEST_VERSION, 0)).where(
    games.c.id.in_(sa.bindparam("ids", expanding=True)))
VERSIONS_AT_ONCE = 500
#: The listing's rows: the games row, its version and the time of its newest event (else its creation).
GAME_ROWS = sa.select(
    games.c.id, games.c.game, games.c.players, games.c.status,
    sa.func.coalesce(_NEWEST_VERSION, 0).label("version"), games.c.created_at,
    sa.type_coerce(sa.func.coalesce(_NEWEST_EVENT_AT, games.c.created_at), UtcDateTime).label("updated_at"),
)
#: The sweeper's read: clocked games by deadline (the deadline's partial index), with their versions.
DUE_GAMES = sa.select(games.c.id, sa.func.coalesce(_NEWEST_VERSION, 0).label("version")).order_by(games.c.deadline)
_EVENT_COLUMNS = (events.c.game_id, events.c.version, events.c.type, events.c.seat, events.c.data, events.c.recorded_at)
_GAME_EVENTS = (sa.select(*_EVENT_COLUMNS)
                .where(events.c.game_id == sa.bindparam("game_id"), events.c.version > sa.bindparam("after"))
                .order_by(events.c.version))
_GAME_EVENTS_PAGE = _GAME_EVENTS.limit(sa.bindparam("limit"))
_SNAPSHOT_OF_GAME = sa.select(snapshots.c.version, snapshots.c.fingerprint, snapshots.c.blob).where(
    snapshots.c.game_id == sa.bindparam("game_id"))
_SEAT_OF_TOKEN = sa.select(seats.c.game_id, seats.c.seat).where(seats.c.token_hash == sa.bindparam("token_hash"))
_SET_STATUS = games.update().where(games.c.id == sa.bindparam("game_id")).values(status=sa.bindparam("status"))
_SET_DEADLINE = games.update().where(games.c.id == sa.bindparam("game_id")).values(deadline=sa.bindparam("deadline"))
_IDEMPOTENCY = sa.select(idempotency.c.request_hash, idempotency.c.body).where(
    idempotency.c.game_id == sa.bindparam("game_id"), idempotency.c.seat == sa.bindparam("seat"),
    idempotency.c.key == sa.bindparam("key"))
_SHUFFLE_SECRET = sa.select(deployment_secrets.c.value).where(deployment_secrets.c.name == "shuffle")
_SCHEMA_REVISION = sa.text("SELECT version_num FROM alembic_version")


def upserts(insert: Callable[[sa.Table], Any]) -> tuple[sa.Insert, sa.Insert]:
    """A dialect's inserts of a new game (nothing if the id is taken) and of a game's snapshot (replacing it)."""
    new_game = insert(games).on_conflict_do_nothing().returning(games.c.id)
    snapshot = insert(snapshots)
    snapshot = snapshot.on_conflict_do_update(
        index_elements=[snapshots.c.game_id],
        set_={name: snapshot.excluded[name] for name in ("version", "fingerprint", "blob", "created_at")},
    )
    return new_game, snapshot


def _version_of(connection: sa.Connection, game_id: str) -> int | None:
    return connection.execute(VERSION_OF_GAME, {"game_id": game_id}).scalar()


def _versions_of(connection: sa.Connection, chunk: list[str]) -> list[tuple[str, int]]:
    return [(game_id, version) for game_id, version in connection.execute(VERSIONS_OF_GAMES, {"ids": chunk})]


def _events_of(connection: sa.Connection, game_id: str, after: int, limit: int | None) -> list[StoredEvent]:
    query = _GAME_EVENTS if limit is None else _GAME_EVENTS_PAGE
    rows = connection.execute(query, {"game_id": game_id, "after": after, "limit": limit})
    return [StoredEvent(*row) for row in rows.all()]


def _snapshot_of(connection: sa.Connection, game_id: str) -> Snapshot | None:
    row = connection.execute(_SNAPSHOT_OF_GAME, {"game_id": game_id}).first()
    return None if row is None else Snapshot(row.version, row.fingerprint, bytes(row.blob))


class SqlTransaction(Transaction):
    """One writing transaction on one connection; a backend supplies the append's statement."""

    #: The dialect's inserts of a game and of a snapshot (see :func:`upserts`).
    NEW_GAME: sa.Insert
    PUT_SNAPSHOT: sa.Insert

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection
        self.appended: dict[str, int] = {}  # each game's newest version, announced after the commit

    @abc.abstractmethod
    def insert(self, game_id: str, expected: int, new_events: Sequence[NewEvent], recorded_at: dt.datetime) -> bool:
        """Insert the events after version ``expected`` if the game is at it; whether it was. A
        concurrent append after the same version makes it raise IntegrityError instead."""

    def create_game(self, game_id: str, game: str, players: int, created_at: dt.datetime) -> None:
        row = {"id": game_id, "game": game, "players": players, "status": "waiting", "created_at": created_at}
        if self.connection.execute(self.NEW_GAME, row).first() is None:
            raise GameExists(game_id)

    def append(
        self, game_id: str, expected_version: int, new_events: Sequence[NewEvent], recorded_at: dt.datetime
    ) -> list[StoredEvent]:
        if not new_events:
            if self.last_version(game_id) != expected_version:
                self._refuse(game_id, expected_version)
            return []
        try:
            inserted = self.insert(game_id, expected_version, new_events, recorded_at)
        except sa.exc.IntegrityError as error:  # UNIQUE(game_id, version): a writer got there first
            raise VersionConflict(game_id, expected_version, None) from error
        if not inserted:
            self._refuse(game_id, expected_version)
        self.appended[game_id] = expected_version + len(new_events)
        at = as_utc(recorded_at)
        return [StoredEvent(game_id, expected_version + offset, event.type, event.seat, event.data, at)
                for offset, event in enumerate(new_events, start=1)]

    def create_games(self, new_games: Sequence[NewGame]) -> None:
        """Every game in one multi-row insert, then every first event in another: the games are new, so no
        version is checked (a taken id fails the first insert's key, and the transaction with it)."""
        if not new_games:
            return
        self.connection.execute(games.insert(), [
            {"id": new.id, "game": new.game, "players": new.players, "status": new.status,
             "created_at": new.created_at, "deadline": new.deadline} for new in new_games])
        self.connection.execute(events.insert(), [
            {"game_id": new.id, "version": version, "type": event.type, "seat": event.seat, "data": event.data,
             "recorded_at": new.created_at}
            for new in new_games for version, event in enumerate(new.events, start=1)])
        self.appended.update({new.id: len(new.events) for new in new_games})

    def _refuse(self, game_id: str, expected_version: int) -> NoReturn:
        actual = self.last_version(game_id)
        if actual is None:
            raise UnknownGame(game_id)
        raise VersionConflict(game_id, expected_version, actual)

    def last_version(self, game_id: str) -> int | None:
        return _version_of(self.connection, game_id)

    def set_status(self, game_id: str, status: str) -> None:
        self._update_game(_SET_STATUS, {"game_id": game_id, "status": status})

    def set_deadline(self, game_id: str, deadline: dt.datetime | None) -> None:
        self._update_game(_SET_DEADLINE, {"game_id": game_id, "deadline": deadline})

    def _update_game(self, statement: sa.Update, values: dict[str, Any]) -> None:
        if self.connection.execute(statement, values).rowcount != 1:
            raise UnknownGame(values["game_id"])

    def add_token(self, game_id: str, seat: int, token_hash: str) -> None:
        self.connection.execute(seats.insert(), {"token_hash": token_hash, "game_id": game_id, "seat": seat})

    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        row = self.connection.execute(_IDEMPOTENCY, {"game_id": game_id, "seat": seat, "key": key}).first()
        return None if row is None else IdempotencyRecord(*row)

    def put_idempotency(self, game_id: str, seat: int, key: str, record: IdempotencyRecord) -> None:
        self.connection.execute(idempotency.insert(), {
            "game_id": game_id, "seat": seat, "key": key, "request_hash": record.request_hash,
            "body": record.body, "created_at": dt.datetime.now(dt.UTC)})

    def put_snapshot(self, game_id: str, version: int, fingerprint: str, blob: bytes) -> None:
        self.connection.execute(self.PUT_SNAPSHOT, {
            "game_id": game_id, "version": version, "fingerprint": fingerprint, "blob": bytes(blob),
            "created_at": dt.datetime.now(dt.UTC)})



class SqlEventStore(EventStore):
    """The reads both SQL backends share; the schema must be migrated (:func:`persistence.upgrade`)."""

    #: The base of the driver's errors.
    DRIVER_ERROR: type[Exception]

    def __init__(self, url: str) -> None:
        self.engine = create_engine(normalise_url(url), autocommit=True)
        self._outages = _Outages(self)
        self.head_revision = head_revision()  # (taken now: a deploy that changes the files does not change this process)
        self.announcements = Board(self._listener)
        # A server that forks workers (gunicorn --preload) must not share the parent's
        # connections or its wake-up thread, which does not survive the fork.
        store = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: _forget_parent(store()))

    @abc.abstractmethod
    def _roll_back(self, connection: sa.Connection) -> None:
        """Undo a failed write, and drop the connection if it broke."""

    @abc.abstractmethod
    def is_outage(self, driver_error: BaseException) -> bool:
        """Whether a driver error means the database is out of reach (worth a retry), not a bug."""

    @abc.abstractmethod
    def _listener(self, board: Board) -> Listener:
        """The thread that announces other processes' appends on ``board``."""

    def after_fork(self) -> None:
        """In a forked child: drop the parent's pooled connections (unclosed) and listener thread."""
        self.engine.dispose(close=False)
        self.announcements = Board(self._listener)

    def outages(self) -> AbstractContextManager[None]:
        """The database being out of reach (refused or dropped connections, an exhausted pool, a
        lock not granted in time) raised as StoreUnavailable, which the service answers with 503.
        Any other database error stays what it is: a bug, answered 500 and logged."""
        return self._outages

    def announce(self, work: SqlTransaction) -> None:
        """Announce in this process what a committed transaction appended."""
        for game_id, version in work.appended.items():
            self.announcements.announce(game_id, version)

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        return self._read(lambda connection: _events_of(connection, game_id, after, limit))

    def last_version(self, game_id: str) -> int | None:
        return self._read(lambda connection: _version_of(connection, game_id))

    def last_versions(self, game_ids: Collection[str]) -> dict[str, int]:
        """In one statement for each ``VERSIONS_AT_ONCE`` games."""
        asked = list(game_ids)
        versions: dict[str, int] = {}
        for start in range(0, len(asked), VERSIONS_AT_ONCE):
            chunk = asked[start:start + VERSIONS_AT_ONCE]
            versions.update(self._read(partial(_versions_of, chunk=chunk)))
        return versions

    def latest_snapshot(self, game_id: str) -> Snapshot | None:
        return self._read(lambda connection: _snapshot_of(connection, game_id))

    def get_game(self, game_id: str) -> GameRecord | None:
        row = self._read(lambda connection: connection.execute(GAME_ROWS.where(games.c.id == game_id)).first())
        return None if row is None else GameRecord(*row)

    def list_games(
        self, *, status: str | Collection[str] | None = None, game: str | None = None, limit: int = 50,
        cursor: str | None = None
    ) -> GamePage:
        query = GAME_ROWS.order_by(games.c.created_at.desc(), games.c.id.desc()).limit(limit + 1)
        if isinstance(status, str):
            query = query.where(games.c.status == status)
        elif status is not None:
            query = query.where(games.c.status.in_(status))
        if game is not None:
            query = query.where(games.c.game == game)
        if cursor is not None:
            created_at, game_id = decode_cursor(cursor)
            query = query.where(sa.or_(
                games.c.created_at < created_at,
                sa.and_(games.c.created_at == created_at, games.c.id < game_id),
            ))
        rows = self._read(lambda connection: [GameRecord(*row) for row in connection.execute(query)])
        page = rows[:limit]
        more = len(rows) > limit and page
        return GamePage(page, encode_cursor(page[-1].created_at, page[-1].id) if more else None)

    def due_games(self, now: dt.datetime, limit: int = 100) -> list[tuple[str, int]]:
        query = DUE_GAMES.where(games.c.deadline <= now).limit(limit)
        return self._read(lambda connection: [(row.id, row.version) for row in connection.execute(query)])

    def seat_for_token(self, token_hash: str) -> tuple[str, int] | None:
        row = self._read(lambda connection: connection.execute(_SEAT_OF_TOKEN, {"token_hash": token_hash}).first())
        return None if row is None else (row.game_id, row.seat)

    def pool_use(self) -> tuple[int, int] | None:
        pool = self.engine.pool
        return (pool.checkedout(), pool.size()) if isinstance(pool, sa.pool.QueuePool) else None

    def shuffle_secret(self) -> str:
        value = self._read(lambda connection: connection.execute(_SHUFFLE_SECRET).scalar())
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
        self.announcements.close()
        self.engine.dispose()

    def _read(self, read: Callable[[sa.Connection], _T]) -> _T:
        """``read`` on a pooled connection, as one statement without a BEGIN (see persistence.engine).

        The pool does not test a connection before handing it out (a round trip per checkout).
        A read that finds its connection dead (the server restarted, or dropped it) is run once
        more: the failure made SQLAlchemy discard every connection of the pool opened before
        it, so the second try connects afresh. Reads change nothing, so trying again is always
        safe; a write is never retried here.
        """
        with self.outages():
            try:
                with self.engine.connect() as connection:
                    return read(connection)
            except sa.exc.DBAPIError as error:
                if not error.connection_invalidated:
                    raise
            with self.engine.connect() as connection:
                return read(connection)


class _Outages:
    """A store's :meth:`SqlEventStore.outages`: a plain context manager, not a generator's, for it
    wraps every append and every read (a generator's cost a few per cent of a one-event append)."""

    def __init__(self, store: SqlEventStore) -> None:
        self.store = store

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _trace: Any) -> None:
        if isinstance(error, sa.exc.DBAPIError):
            if error.connection_invalidated or self.store.is_outage(error.orig):
                raise StoreUnavailable(str(error.orig).strip() or type(error.orig).__name__) from error
        elif isinstance(error, self.store.DRIVER_ERROR):  # (BEGIN and COMMIT, sent on the driver)
            if self.store.is_outage(error):
                raise StoreUnavailable(str(error).strip() or type(error).__name__) from error
        elif isinstance(error, sa.exc.TimeoutError):
            raise StoreUnavailable(f"no database connection became free in time: {error}") from error


def _forget_parent(store: SqlEventStore | None) -> None:
    if store is not None:
        store.after_fork()

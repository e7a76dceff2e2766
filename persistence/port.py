"""The event store port: the small interface every backend implements.

The log of events is the only truth. Besides it a backend keeps a games table
(a listing projection: type, status, created_at; its version is its newest event's), the seats' token
hashes, the idempotency records and at most one snapshot per game (a derived
cache of its state, see :class:`Snapshot`). All writes happen in a :class:`Transaction`
obtained from :meth:`EventStore.transaction`. A game's events are ordered by their
version alone: an append names the version it expects, and of two appends after the
same version one is refused (:class:`VersionConflict`). Nothing orders the events of
different games, so appends to different games need not wait for each other.
"""

from __future__ import annotations

import abc
import dataclasses
import datetime as dt
import threading
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager
from typing import Any, TypeVar


def as_utc(moment: dt.datetime) -> dt.datetime:
    """``moment`` in UTC; a naive time is taken to be UTC already. Every store records times so."""
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


class StoreError(Exception):
    """Base of the errors a store raises on purpose."""


class VersionConflict(StoreError):
    """The game's version is not the expected one: someone appended first."""

    def __init__(self, game_id: str, expected: int, actual: int | None) -> None:
        super().__init__(f"game {game_id}: expected version {expected}, found {actual}")
        self.game_id, self.expected, self.actual = game_id, expected, actual


class GameExists(StoreError):
    """A game with this id exists already."""


class UnknownGame(StoreError):
    """No game with this id."""


class StoreUnavailable(StoreError):
    """The database cannot be reached now."""


@dataclasses.dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: its type, acting seat and JSON data."""

    type: str
    seat: int | None
    data: dict[str, Any]


@dataclasses.dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as stored: ``version`` counts from 1 per game."""

    game_id: str
    version: int
    type: str
    seat: int | None
    data: dict[str, Any]
    recorded_at: dt.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class NewGame:
    """A game made with its first events (versions from 1), its listing's status and deadline set."""

    id: str
    game: str
    players: int
    created_at: dt.datetime
    events: Sequence[NewEvent]
    status: str
    deadline: dt.datetime | None


@dataclasses.dataclass(frozen=True, slots=True)
class GameRecord:
    """A row of the games listing projection."""

    id: str
    game: str
    players: int
    status: str
    version: int
    created_at: dt.datetime
    updated_at: dt.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class IdempotencyRecord:
    """The first answer given to a move sent with an ``Idempotency-Key``."""

    request_hash: str
    body: dict[str, Any]


@dataclasses.dataclass(frozen=True, slots=True)
class Snapshot:
    """A game's state after ``version`` events, serialised by the code whose ``fingerprint`` it bears.

    A derived cache beside the log, never the truth: whoever reads one checks the
    fingerprint and may always ignore it and replay the log instead.
    """

    version: int
    fingerprint: str
    blob: bytes


@dataclasses.dataclass(frozen=True, slots=True)
class GamePage:
    """One page of the games listing; ``next_cursor`` is None on the last page."""

    games: list[GameRecord]
    next_cursor: str | None


class Transaction(abc.ABC):
    """One writing transaction: everything in it commits together or not at all."""

    @abc.abstractmethod
    def create_game(self, game_id: str, game: str, players: int, created_at: dt.datetime) -> None:
        """Add a game to the listing (status ``waiting``, version 0); GameExists if taken."""

    @abc.abstractmethod
    def append(
        self, game_id: str, expected_version: int, events: Sequence[NewEvent], recorded_at: dt.datetime
    ) -> list[StoredEvent]:
        """Append events after ``expected_version``; VersionConflict if the game moved on (or is
        ahead), UnknownGame if there is none. After a refusal the transaction is to be abandoned."""

    @abc.abstractmethod
    def last_version(self, game_id: str) -> int | None:
        """The game's version as this transaction sees it (its own appends included); None if no game."""

    @abc.abstractmethod
    def set_status(self, game_id: str, status: str) -> None:
        """Update the listing's status of a game; UnknownGame if there is none."""

    @abc.abstractmethod
    def set_deadline(self, game_id: str, deadline: dt.datetime | None) -> None:
        """Record when the turn a clocked game waits for times out (None: it waits for no turn), for
        :meth:`EventStore.due_games`; UnknownGame if there is no such game."""

    @abc.abstractmethod
    def add_token(self, game_id: str, seat: int, token_hash: str) -> None:
        """Store the hash of the token that acts for ``seat``."""

    @abc.abstractmethod
    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        """The answer recorded for this key, if any."""

    @abc.abstractmethod
    def put_idempotency(self, game_id: str, seat: int, key: str, record: IdempotencyRecord) -> None:
        """Record the answer given for this key."""

    @abc.abstractmethod
    def put_snapshot(self, game_id: str, version: int, fingerprint: str, blob: bytes) -> None:
        """Keep ``blob`` as the game's snapshot at ``version``, replacing any earlier one (one per game)."""

    def create_games(self, new_games: Sequence[NewGame]) -> None:
        """Make each game with its first events, status and deadline (a pairing round's games); GameExists,
        or an IntegrityError on a backend that writes them at once, if an id is taken. A backend may
        write them all in a few statements; this is the one game at a time of the operations above."""
        for new in new_games:
            self.create_game(new.id, new.game, new.players, new.created_at)
            self.append(new.id, 0, new.events, new.created_at)
            self.set_status(new.id, new.status)
            self.set_deadline(new.id, new.deadline)


class Announcements(abc.ABC):
    """What this process hears of the appends to the store beside which it is kept (``EventStore.announcements``):
    its own at commit, other processes' as its backend tells it. A hint, never the truth: an append checks the
    version itself, and a follower confirms what it heard with a read."""

    @abc.abstractmethod
    def subscribe(self, game_id: str, callback: Callable[[int | None], None]) -> Callable[[], None]:
        """Have ``callback(version)`` called (from any thread) as the game's appends are heard of, and
        ``callback(None)`` when some may have been missed (re-read the store); the function that stops it."""

    @abc.abstractmethod
    def latest(self, game_id: str) -> int | None:
        """The game's newest version heard of while this process hears every process's appends; None when
        it cannot tell (it has heard nothing of the game, or does not hear other processes yet)."""


class EventStore(abc.ABC):
    """The store port; ``announcements`` is what the process hears of its appends."""

    announcements: Announcements

    @abc.abstractmethod
    def transaction(self) -> AbstractContextManager[Transaction]:
        """A writing transaction; commits on exit, rolls back on error."""

    @abc.abstractmethod
    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """A game's events with version > ``after``, in order, at most ``limit``."""

    @abc.abstractmethod
    def last_version(self, game_id: str) -> int | None:
        """The game's current version, or None if there is no such game."""

    def last_versions(self, game_ids: Collection[str]) -> dict[str, int]:
        """The current versions of those of ``game_ids`` that are games (a backend may read them at once)."""
        return {game_id: version for game_id in game_ids if (version := self.last_version(game_id)) is not None}

    @abc.abstractmethod
    def latest_snapshot(self, game_id: str) -> Snapshot | None:
        """The game's snapshot (see :class:`Snapshot`), if any."""

    @abc.abstractmethod
    def get_game(self, game_id: str) -> GameRecord | None:
        """A game's listing row."""

    @abc.abstractmethod
    def list_games(
        self, *, status: str | Collection[str] | None = None, game: str | None = None, limit: int = 50,
        cursor: str | None = None
    ) -> GamePage:
        """Games newest first, filtered (``status``: one, or any of several), paged by an opaque cursor."""

    @abc.abstractmethod
    def due_games(self, now: dt.datetime, limit: int = 100) -> list[tuple[str, int]]:
        """The games whose deadline is at or before ``now``, earliest first, each with the version it
        was set at: ``(game id, version)``. Indexed: it never reads the games that are not due."""

    @abc.abstractmethod
    def seat_for_token(self, token_hash: str) -> tuple[str, int] | None:
        """The (game id, seat) a token hash acts for."""

    def pool_use(self) -> tuple[int, int] | None:
        """Database connections in use and the pool's size, for a store with a pool."""
        return None

    @abc.abstractmethod
    def shuffle_secret(self) -> str:
        """The deployment's key for seeded shuffles, made once and kept with the data; never shown."""

    @abc.abstractmethod
    def ping(self) -> None:
        """Raise StoreUnavailable if the database cannot be reached."""

    def schema_problem(self) -> str | None:
        """Why the database's schema is not the one this code needs (not migrated to the head
        revision), or None when it is. A store without a schema has none."""
        return None

    def close(self) -> None:  # noqa: B027  (optional: a store with nothing to release keeps this)
        """Release connections."""


C = TypeVar("C")
_COMPANIONS_MADE = threading.Lock()


def companion(store: EventStore, kind: str, make: Callable[[], C]) -> C:
    """The one ``kind`` of store that shares ``store``'s database (its accounts, its ladder), made by ``make()`` the
    first time. It is kept on the store, so it lives as long as the store and no longer: a map of stores to their
    companions (weakly keyed) held each store for ever through its companion, which refers to it."""
    with _COMPANIONS_MADE:
        companions: dict[str, Any] = store.__dict__.setdefault("_companions", {})
        if kind not in companions:
            companions[kind] = make()
        return companions[kind]

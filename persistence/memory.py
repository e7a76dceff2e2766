"""An in-memory event store: the port's reference backend, for tests and simulations."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import secrets
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager

from persistence.announcements import Board
from persistence.cursor import decode_cursor, encode_cursor
from persistence.port import (
    EventStore,
    GameExists,
    GamePage,
    GameRecord,
    IdempotencyRecord,
    NewEvent,
    Snapshot,
    StoredEvent,
    Transaction,
    UnknownGame,
    VersionConflict,
    as_utc,
)


class _MemoryState:
    def __init__(self) -> None:
        self.events: dict[str, list[StoredEvent]] = {}
        self.games: dict[str, GameRecord] = {}
        self.tokens: dict[str, tuple[str, int]] = {}
        self.idempotency: dict[tuple[str, int, str], IdempotencyRecord] = {}
        self.snapshots: dict[str, Snapshot] = {}
        self.deadlines: dict[str, dt.datetime] = {}


class MemoryTransaction(Transaction):
    """Writes to a private copy; the store swaps it in on commit."""

    def __init__(self, state: _MemoryState) -> None:
        self.state = state
        self.appended: dict[str, int] = {}  # each game's newest version, announced after the commit

    def create_game(self, game_id: str, game: str, players: int, created_at: dt.datetime) -> None:
        if game_id in self.state.games:
            raise GameExists(game_id)
        created_at = as_utc(created_at)
        self.state.games[game_id] = GameRecord(game_id, game, players, "waiting", 0, created_at, created_at)
        self.state.events[game_id] = []

    def append(
        self, game_id: str, expected_version: int, events: Sequence[NewEvent], recorded_at: dt.datetime
    ) -> list[StoredEvent]:
        recorded_at = as_utc(recorded_at)
        log = self.state.events.get(game_id)
        if log is None:
            raise UnknownGame(game_id)
        if len(log) != expected_version:
            raise VersionConflict(game_id, expected_version, len(log))
        stored = [StoredEvent(game_id, expected_version + offset, event.type, event.seat,
                              copy.deepcopy(event.data), recorded_at)
                  for offset, event in enumerate(events, start=1)]
        if stored:  # a game's version and last change are its newest event's
            log = self.state.events[game_id] = log + stored  # a new list: the committed one stays as it was
            record = self.state.games[game_id]
            self.state.games[game_id] = dataclasses.replace(record, version=len(log), updated_at=recorded_at)
            self.appended[game_id] = len(log)
        return stored

    def last_version(self, game_id: str) -> int | None:
        log = self.state.events.get(game_id)
        return None if log is None else len(log)

    def set_status(self, game_id: str, status: str) -> None:
        if game_id not in self.state.games:
            raise UnknownGame(game_id)
        self.state.games[game_id] = dataclasses.replace(self.state.games[game_id], status=status)

    def set_deadline(self, game_id: str, deadline: dt.datetime | None) -> None:
        if game_id not in self.state.games:
            raise UnknownGame(game_id)
        if deadline is None:
            self.state.deadlines.pop(game_id, None)
        else:
            self.state.deadlines[game_id] = as_utc(deadline)

    def add_token(self, game_id: str, seat: int, token_hash: str) -> None:
        self.state.tokens[token_hash] = (game_id, seat)

    def get_idempotency(self, game_id: str, seat: int, key: str) -> IdempotencyRecord | None:
        return self.state.idempotency.get((game_id, seat, key))

    def put_idempotency(self, game_id: str, seat: int, key: str, record: IdempotencyRecord) -> None:
        self.state.idempotency[(game_id, seat, key)] = record

    def put_snapshot(self, game_id: str, version: int, fingerprint: str, blob: bytes) -> None:
        if game_id not in self.state.games:
            raise UnknownGame(game_id)
        self.state.snapshots[game_id] = Snapshot(version, fingerprint, bytes(blob))



class MemoryEventStore(EventStore):
    """Everything in one process's memory; transactions are serialised by a lock."""

    def __init__(self) -> None:
        self._state = _MemoryState()
        self._lock = threading.RLock()
        self.announcements = Board()  # (every append is this process's: it hears them all)
        self._shuffle_secret = secrets.token_hex(32)  # lives as long as the games it keys

    @contextmanager
    def transaction(self) -> Iterator[Transaction]:
        with self._lock:
            working = copy.copy(self._state)
            working.events = dict(self._state.events)  # append replaces a game's list, never extends it
            working.games = dict(self._state.games)
            working.tokens = dict(self._state.tokens)
            working.idempotency = dict(self._state.idempotency)
            working.snapshots = dict(self._state.snapshots)
            working.deadlines = dict(self._state.deadlines)
            work = MemoryTransaction(working)
            yield work
            self._state = working
        for game_id, version in work.appended.items():
            self.announcements.announce(game_id, version)

    def read(self, game_id: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        log = self._state.events.get(game_id, [])
        end = None if limit is None else after + limit
        return log[after:end]

    def last_version(self, game_id: str) -> int | None:
        log = self._state.events.get(game_id)
        return None if log is None else len(log)

    def latest_snapshot(self, game_id: str) -> Snapshot | None:
        return self._state.snapshots.get(game_id)

    def get_game(self, game_id: str) -> GameRecord | None:
        return self._state.games.get(game_id)

    def list_games(
        self, *, status: str | Collection[str] | None = None, game: str | None = None, limit: int = 50,
        cursor: str | None = None
    ) -> GamePage:
        rows = sorted(self._state.games.values(), key=lambda r: (r.created_at, r.id), reverse=True)
        statuses = (status,) if isinstance(status, str) else status
        rows = [r for r in rows if (statuses is None or r.status in statuses) and (game is None or r.game == game)]
        if cursor is not None:
            after = decode_cursor(cursor)
            rows = [r for r in rows if (r.created_at, r.id) < after]
        page = rows[:limit]
        more = len(rows) > limit
        return GamePage(page, encode_cursor(page[-1].created_at, page[-1].id) if more and page else None)

    def seat_for_token(self, token_hash: str) -> tuple[str, int] | None:
        return self._state.tokens.get(token_hash)

    def due_games(self, now: dt.datetime, limit: int = 100) -> list[tuple[str, int]]:
        state, now = self._state, as_utc(now)
        due = sorted((deadline, game_id) for game_id, deadline in state.deadlines.items() if deadline <= now)
        return [(game_id, len(state.events[game_id])) for _, game_id in due[:limit]]

    def shuffle_secret(self) -> str:
        return self._shuffle_secret

    def ping(self) -> None:
        return None

"""The ladder's store: rated games in the order they finished, the ratings projection, and pools.

A port of its own beside the event store, on the same database, written inside event
store transactions (:meth:`LadderStore.within`): a rated game's finish is recorded with
its last events (:meth:`LadderWrites.finish`), and the projection's ratings, their history
and how far it has applied (the ``ratings`` counter) commit together, so each finished
game is applied exactly once however many processes apply, and wherever one stops.
"""

from __future__ import annotations

import abc
import copy
import dataclasses
import datetime as dt
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import sqlalchemy as sa

from persistence.port import EventStore, Transaction, as_utc
from persistence.schema import ladder_counters, pool_entries, rated_finishes, rating_history, ratings, tournaments

FINISHES, APPLIED = "finishes", "ratings"  # the counters: the last finish recorded, the last one applied
POOLS = "pools"  # the row a pairing round locks: one round at a time, in every process


@dataclasses.dataclass(frozen=True, slots=True)
class Finish:
    """A rated game that finished: the ``seq``-th, counted from 1 in the order they committed."""

    seq: int
    game_id: str
    game: str
    finished_at: dt.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Rating:
    """An account's rating in a game (``account``: its name key; ``name``: as given)."""

    game: str
    account: str
    name: str
    mu: float
    sigma: float
    games: int
    wins: int
    last_played: dt.datetime
    last_game_id: str


@dataclasses.dataclass(frozen=True, slots=True)
class RatingChange:
    """An account's rating after the ``seq``-th rated finish, where it took ``place`` (1: a winner)."""

    seq: int
    account: str
    game: str
    game_id: str
    place: int
    mu: float
    sigma: float
    at: dt.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class PoolEntry:
    """An account waiting in ``game``'s pool (``account``: its name key; ``name``: as given)."""

    game: str
    account: str
    name: str
    bot: bool
    players: tuple[int, ...]
    rated: bool
    mixed: bool
    concurrency: int
    joined_at: dt.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as asked for (``spec``) and the games made for it."""

    id: str
    creator: str
    game: str
    spec: dict[str, Any]
    games: list[dict[str, Any]]
    created_at: dt.datetime


class LadderWrites(abc.ABC):
    """The ladder's writes in one event store transaction."""

    @abc.abstractmethod
    def finish(self, game_id: str, game: str, at: dt.datetime) -> int:
        """Record that a rated game finished; its seq (the finishes commit in seq order)."""

    @abc.abstractmethod
    def applied(self) -> int:
        """The last finish the projection applied (0: none), held until the transaction ends."""

    @abc.abstractmethod
    def ratings(self, game: str, accounts: Sequence[str]) -> dict[str, Rating]:
        """The accounts' ratings in ``game`` (those that have one)."""

    @abc.abstractmethod
    def apply(self, seq: int, changed: Sequence[Rating], history: Sequence[RatingChange]) -> None:
        """Store the ratings the ``seq``-th finish changed, their history, and ``seq`` as applied."""

    @abc.abstractmethod
    def reset(self) -> None:
        """Forget every rating and change: nothing applied (for a rebuild)."""

    @abc.abstractmethod
    def pool(self, game: str) -> list[PoolEntry]:
        """The entries of ``game``'s pool, pairing rounds locked out until the transaction ends."""

    @abc.abstractmethod
    def join_pool(self, entry: PoolEntry) -> None:
        """Add the entry, or replace the account's entry in that pool."""

    @abc.abstractmethod
    def leave_pool(self, game: str, account: str) -> bool:
        """Take the account out of the pool; whether it was in it."""

    @abc.abstractmethod
    def add_tournament(self, tournament: Tournament) -> None: ...


class LadderStore(abc.ABC):
    """Reads of finishes and ratings; writes go through :meth:`within`."""

    @abc.abstractmethod
    def within(self, tx: Transaction) -> AbstractContextManager[LadderWrites]: ...

    @abc.abstractmethod
    def applied(self) -> int:
        """The last finish the projection applied (0: none)."""

    @abc.abstractmethod
    def finishes_after(self, seq: int, limit: int) -> list[Finish]:
        """The rated finishes after ``seq``, in order."""

    @abc.abstractmethod
    def leaderboard(self, game: str, min_games: int, offset: int, limit: int) -> list[Rating]:
        """Ratings in ``game`` of accounts with at least ``min_games`` rated games, by ordinal (μ − 3σ)
        from the highest, then by name key."""

    @abc.abstractmethod
    def ratings_of(self, account: str) -> list[Rating]:
        """The account's ratings in every game it played rated."""

    @abc.abstractmethod
    def history(self, account: str, game: str, limit: int) -> list[RatingChange]:
        """The account's last ``limit`` rating changes in ``game``, oldest first."""

    @abc.abstractmethod
    def table(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """Every rating and every change, as rows in key order: what a rebuild must reproduce."""

    @abc.abstractmethod
    def pools(self) -> list[str]:
        """The games whose pools have someone waiting."""

    @abc.abstractmethod
    def entry(self, game: str, account: str) -> PoolEntry | None: ...

    @abc.abstractmethod
    def tournament(self, tournament_id: str) -> Tournament | None: ...


_LADDERS: weakref.WeakKeyDictionary[EventStore, LadderStore] = weakref.WeakKeyDictionary()
_MADE = threading.Lock()


def ladder_of(store: EventStore) -> LadderStore:
    """The ladder store on the same database as ``store`` (one per event store)."""
    with _MADE:
        found = _LADDERS.get(store)
        if found is None:
            from persistence.sqlstore import SqlEventStore

            found = SqlLadder(store) if isinstance(store, SqlEventStore) else MemoryLadder()
            _LADDERS[store] = found
        return found


def _ordinal(rating: Rating) -> float:
    return rating.mu - 3 * rating.sigma


def _rating_row(rating: Rating) -> tuple[Any, ...]:
    return dataclasses.astuple(rating)


def _change_row(change: RatingChange) -> tuple[Any, ...]:
    return dataclasses.astuple(change)


# -- SQL ---------------------------------------------------------------------------------------
_RATING_COLUMNS = [getattr(ratings.c, field.name) for field in dataclasses.fields(Rating)]
_CHANGE_COLUMNS = [getattr(rating_history.c, field.name) for field in dataclasses.fields(RatingChange)]
_ENTRY_COLUMNS = [getattr(pool_entries.c, field.name) for field in dataclasses.fields(PoolEntry)]


def _entry(row: Any) -> PoolEntry:
    values = dict(row._mapping)
    values["players"] = tuple(values["players"])
    return PoolEntry(**values)


class SqlLadderWrites(LadderWrites):
    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection

    def _counter(self, name: str, lock: bool) -> int:
        """The counter's value; ``lock``: its row locked until the transaction ends (made if missing)."""
        module = sa.dialects.postgresql if self.connection.dialect.name == "postgresql" else sa.dialects.sqlite
        self.connection.execute(module.insert(ladder_counters).on_conflict_do_nothing(), {"name": name, "value": 0})
        query = sa.select(ladder_counters.c.value).where(ladder_counters.c.name == name)
        return self.connection.execute(query.with_for_update() if lock else query).scalar_one()

    def _set(self, name: str, value: int) -> None:
        self.connection.execute(ladder_counters.update().where(ladder_counters.c.name == name).values(value=value))

    def finish(self, game_id: str, game: str, at: dt.datetime) -> int:
        seq = self._counter(FINISHES, lock=True) + 1  # (the lock: finishes commit in seq order)
        self._set(FINISHES, seq)
        self.connection.execute(rated_finishes.insert(),
                                {"seq": seq, "game_id": game_id, "game": game, "finished_at": at})
        return seq

    def applied(self) -> int:
        return self._counter(APPLIED, lock=True)

    def ratings(self, game: str, accounts: Sequence[str]) -> dict[str, Rating]:
        rows = self.connection.execute(sa.select(*_RATING_COLUMNS)
                                       .where(ratings.c.game == game, ratings.c.account.in_(list(accounts)))).all()
        return {row.account: Rating(*row) for row in rows}

    def apply(self, seq: int, changed: Sequence[Rating], history: Sequence[RatingChange]) -> None:
        for rating in changed:
            self.connection.execute(ratings.delete().where(ratings.c.game == rating.game,
                                                           ratings.c.account == rating.account))
        if changed:
            self.connection.execute(ratings.insert(), [dataclasses.asdict(rating) for rating in changed])
        if history:
            self.connection.execute(rating_history.insert(), [dataclasses.asdict(change) for change in history])
        self._set(APPLIED, seq)

    def pool(self, game: str) -> list[PoolEntry]:
        self._counter(POOLS, lock=True)
        rows = self.connection.execute(sa.select(*_ENTRY_COLUMNS).where(pool_entries.c.game == game)
                                       .order_by(pool_entries.c.account)).all()
        return [_entry(row) for row in rows]

    def join_pool(self, entry: PoolEntry) -> None:
        self.leave_pool(entry.game, entry.account)
        row = dataclasses.asdict(entry)
        row["players"] = list(entry.players)
        self.connection.execute(pool_entries.insert(), row)

    def leave_pool(self, game: str, account: str) -> bool:
        statement = pool_entries.delete().where(pool_entries.c.game == game, pool_entries.c.account == account)
        return self.connection.execute(statement).rowcount == 1

    def add_tournament(self, tournament: Tournament) -> None:
        self.connection.execute(tournaments.insert(), dataclasses.asdict(tournament))

    def reset(self) -> None:
        self._counter(APPLIED, lock=True)
        self.connection.execute(rating_history.delete())
        self.connection.execute(ratings.delete())
        self._set(APPLIED, 0)


class SqlLadder(LadderStore):
    """The ladder on the event store's own database and connections."""

    def __init__(self, store: Any) -> None:
        self.store = store

    @contextmanager
    def within(self, tx: Transaction) -> Iterator[LadderWrites]:
        yield SqlLadderWrites(tx.connection)  # type: ignore[attr-defined]

    def _rows(self, query: sa.Executable) -> Sequence[Any]:
        return self.store._read(lambda connection: connection.execute(query).all())

    def applied(self) -> int:
        rows = self._rows(sa.select(ladder_counters.c.value).where(ladder_counters.c.name == APPLIED))
        return rows[0][0] if rows else 0

    def finishes_after(self, seq: int, limit: int) -> list[Finish]:
        rows = self._rows(sa.select(rated_finishes.c.seq, rated_finishes.c.game_id, rated_finishes.c.game,
                                    rated_finishes.c.finished_at)
                          .where(rated_finishes.c.seq > seq).order_by(rated_finishes.c.seq).limit(limit))
        return [Finish(*row) for row in rows]

    def leaderboard(self, game: str, min_games: int, offset: int, limit: int) -> list[Rating]:
        rows = self._rows(sa.select(*_RATING_COLUMNS).where(ratings.c.game == game, ratings.c.games >= min_games)
                          .order_by((ratings.c.mu - 3 * ratings.c.sigma).desc(), ratings.c.account)
                          .offset(offset).limit(limit))
        return [Rating(*row) for row in rows]

    def ratings_of(self, account: str) -> list[Rating]:
        rows = self._rows(sa.select(*_RATING_COLUMNS).where(ratings.c.account == account).order_by(ratings.c.game))
        return [Rating(*row) for row in rows]

    def history(self, account: str, game: str, limit: int) -> list[RatingChange]:
        rows = self._rows(sa.select(*_CHANGE_COLUMNS)
                          .where(rating_history.c.account == account, rating_history.c.game == game)
                          .order_by(rating_history.c.seq.desc()).limit(limit))
        return [RatingChange(*row) for row in reversed(rows)]

    def table(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        found = self._rows(sa.select(*_RATING_COLUMNS).order_by(ratings.c.game, ratings.c.account))
        changes = self._rows(sa.select(*_CHANGE_COLUMNS).order_by(rating_history.c.seq, rating_history.c.account))
        return [tuple(row) for row in found], [tuple(row) for row in changes]

    def pools(self) -> list[str]:
        return [row[0] for row in self._rows(sa.select(pool_entries.c.game).distinct().order_by(pool_entries.c.game))]

    def entry(self, game: str, account: str) -> PoolEntry | None:
        rows = self._rows(sa.select(*_ENTRY_COLUMNS).where(pool_entries.c.game == game,
                                                           pool_entries.c.account == account))
        return _entry(rows[0]) if rows else None

    def tournament(self, tournament_id: str) -> Tournament | None:
        rows = self._rows(sa.select(tournaments).where(tournaments.c.id == tournament_id))
        return Tournament(**rows[0]._mapping) if rows else None


# -- memory ------------------------------------------------------------------------------------
@dataclasses.dataclass
class _MemoryLadder:
    finishes: list[Finish] = dataclasses.field(default_factory=list)
    applied: int = 0
    ratings: dict[tuple[str, str], Rating] = dataclasses.field(default_factory=dict)
    history: list[RatingChange] = dataclasses.field(default_factory=list)
    pool: dict[tuple[str, str], PoolEntry] = dataclasses.field(default_factory=dict)
    tournaments: dict[str, Tournament] = dataclasses.field(default_factory=dict)


class MemoryLadderWrites(LadderWrites):
    def __init__(self, state: _MemoryLadder) -> None:
        self.state = state

    def finish(self, game_id: str, game: str, at: dt.datetime) -> int:
        self.state.finishes.append(Finish(len(self.state.finishes) + 1, game_id, game, as_utc(at)))
        return len(self.state.finishes)

    def applied(self) -> int:
        return self.state.applied

    def ratings(self, game: str, accounts: Sequence[str]) -> dict[str, Rating]:
        found = (self.state.ratings.get((game, account)) for account in accounts)
        return {rating.account: rating for rating in found if rating is not None}

    def apply(self, seq: int, changed: Sequence[Rating], history: Sequence[RatingChange]) -> None:
        for rating in changed:
            self.state.ratings[rating.game, rating.account] = rating
        self.state.history.extend(history)
        self.state.applied = seq

    def reset(self) -> None:
        self.state.ratings, self.state.history, self.state.applied = {}, [], 0

    def pool(self, game: str) -> list[PoolEntry]:
        return [entry for (played, _), entry in sorted(self.state.pool.items()) if played == game]

    def join_pool(self, entry: PoolEntry) -> None:
        self.state.pool[entry.game, entry.account] = entry

    def leave_pool(self, game: str, account: str) -> bool:
        return self.state.pool.pop((game, account), None) is not None

    def add_tournament(self, tournament: Tournament) -> None:
        self.state.tournaments[tournament.id] = copy.deepcopy(tournament)


class MemoryLadder(LadderStore):
    """The ladder in this process's memory, written under the memory event store's transaction lock."""

    def __init__(self) -> None:
        self.state = _MemoryLadder()
        self._open: tuple[Transaction, MemoryLadderWrites] | None = None  # (transactions never overlap)

    @contextmanager
    def within(self, tx: Transaction) -> Iterator[LadderWrites]:
        if self._open is not None and self._open[0] is tx:  # (a second use in the same transaction)
            yield self._open[1]
            return
        state = self.state
        writes = MemoryLadderWrites(_MemoryLadder(list(state.finishes), state.applied, dict(state.ratings),
                                                  list(state.history), dict(state.pool), dict(state.tournaments)))
        self._open = (tx, writes)
        try:
            yield writes
            self.state = writes.state
        finally:
            self._open = None

    def applied(self) -> int:
        return self.state.applied

    def finishes_after(self, seq: int, limit: int) -> list[Finish]:
        return self.state.finishes[seq:seq + limit]

    def leaderboard(self, game: str, min_games: int, offset: int, limit: int) -> list[Rating]:
        found = [rating for (played, _), rating in self.state.ratings.items()
                 if played == game and rating.games >= min_games]
        found.sort(key=lambda rating: (-_ordinal(rating), rating.account))
        return found[offset:offset + limit]

    def ratings_of(self, account: str) -> list[Rating]:
        return sorted((rating for (_, owner), rating in self.state.ratings.items() if owner == account),
                      key=lambda rating: rating.game)

    def history(self, account: str, game: str, limit: int) -> list[RatingChange]:
        mine = [change for change in self.state.history if change.account == account and change.game == game]
        return copy.copy(mine[-limit:]) if limit else []

    def table(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        return ([_rating_row(rating) for _, rating in sorted(self.state.ratings.items())],
                [_change_row(change) for change in sorted(self.state.history, key=lambda c: (c.seq, c.account))])

    def pools(self) -> list[str]:
        return sorted({game for game, _ in self.state.pool})

    def entry(self, game: str, account: str) -> PoolEntry | None:
        return self.state.pool.get((game, account))

    def tournament(self, tournament_id: str) -> Tournament | None:
        found = self.state.tournaments.get(tournament_id)
        return copy.deepcopy(found)

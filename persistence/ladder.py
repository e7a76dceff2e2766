"""The ladder's store: rated games in the order they finished, the ratings projection, and pools.

A port of its own beside the event store, on the same database, written inside event
store transactions (:meth:`LadderStore.within`): a rated game's finish is recorded with
its last events (:meth:`LadderWrites.finish`), and the projection's ratings, their history
and how far it has applied (the ``ratings`` counter) commit together, so each finished
game is applied exactly once however many processes apply, and wherever one stops.

The port is here; its backends are :mod:`persistence.ladder_sql` and
:mod:`persistence.ladder_memory`, chosen by :func:`ladder_of`.
"""

from __future__ import annotations

import abc
import dataclasses
import datetime as dt
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from persistence.accounts import key_of
from persistence.port import EventStore, Transaction, companion


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
    """A tournament as asked for (``spec``), the games made for it and the byes given so far; ``open``
    while it has rounds to make (a Swiss tournament, one round at a time: ``current_round`` made)."""

    id: str
    creator: str
    game: str
    spec: dict[str, Any]
    games: list[dict[str, Any]]
    created_at: dt.datetime
    current_round: int = 1
    open: bool = False
    byes: list[dict[str, Any]] = dataclasses.field(default_factory=list)


def running(tournaments: Sequence[Tournament], unfinished: set[str]) -> set[str]:
    """The ids of those of ``tournaments`` still running, given the ids of the games whose account seats are not
    finished (``unfinished``): rounds left to make, or a game not over."""
    return {tournament.id for tournament in tournaments
            if tournament.open or any(entry["game_id"] in unfinished for entry in tournament.games)}


def entered_by_another(tournament: Tournament) -> list[str]:
    """The name keys of the tournament's accounts but its maker: the accounts another account entered in it."""
    return sorted({key_of(name) for name in tournament.spec["accounts"]} - {key_of(tournament.creator)})


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
    def leave_pools(self, account: str) -> None:
        """Take the account out of every pool."""

    @abc.abstractmethod
    def add_tournament(self, tournament: Tournament) -> None:
        """Add the tournament, and an entry for each of its accounts its maker is not."""

    @abc.abstractmethod
    def entered(self, accounts: Sequence[str]) -> list[Tournament]:
        """The tournaments made by another account for any of ``accounts`` (name keys) that are not marked
        finished (:meth:`mark_finished`): every one still running among them."""

    @abc.abstractmethod
    def mark_finished(self, tournament_ids: Sequence[str]) -> None:
        """Mark the tournaments finished, which they stay: :meth:`entered` no longer finds them."""

    @abc.abstractmethod
    def next_round(self, tournament: Tournament, games: Sequence[dict[str, Any]], byes: Sequence[dict[str, Any]],
                   more: bool) -> bool:
        """Add a round's ``games`` and ``byes`` to ``tournament`` (``more``: rounds are left after it) if
        it still has made ``tournament.current_round`` rounds; whether it had (if not, another process
        made the round first and nothing is written)."""


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
    def leaderboard(self, game: str, min_games: int, after: tuple[float, str] | None, limit: int) -> list[Rating]:
        """Ratings in ``game`` of accounts with at least ``min_games`` rated games, by ordinal (μ − 3σ)
        from the highest, then by name key; those after the position ``after`` (an ordinal and a name key) alone."""

    @abc.abstractmethod
    def ahead(self, game: str, min_games: int, ordinal: float, account: str) -> int:
        """How many of the ratings :meth:`leaderboard` lists come before the position (``ordinal``, ``account``):
        a higher ordinal, or the same and a name key before ``account``."""

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
    def pool(self, game: str) -> list[PoolEntry]:
        """``game``'s pool as last committed, without its lock (what a round decides on before taking it)."""

    @abc.abstractmethod
    def ratings(self, game: str, accounts: Sequence[str]) -> dict[str, Rating]:
        """The ratings of those of ``accounts`` (keys) rated at ``game``, as last committed."""

    @abc.abstractmethod
    def entry(self, game: str, account: str) -> PoolEntry | None: ...

    @abc.abstractmethod
    def tournament(self, tournament_id: str) -> Tournament | None: ...

    @abc.abstractmethod
    def open_tournaments(self) -> list[str]:
        """The ids of the tournaments with rounds still to make, oldest first."""

    @abc.abstractmethod
    def tournaments(self, account: str | None, before: tuple[dt.datetime, str] | None, limit: int) -> list[Tournament]:
        """Up to ``limit`` tournaments, newest first (by creation time, then id): those after ``before`` (the
        creation time and id of the last one of the page before) in that order, those ``account`` (a name key)
        is in if given."""


def ladder_of(store: EventStore) -> LadderStore:
    """The ladder store on the same database as ``store`` (one per event store)."""
    def make() -> LadderStore:
        from persistence.ladder_memory import MemoryLadder
        from persistence.ladder_sql import SqlLadder
        from persistence.sqlstore import SqlEventStore

        return SqlLadder(store) if isinstance(store, SqlEventStore) else MemoryLadder()

    return companion(store, "ladder", make)


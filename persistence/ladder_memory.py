"""The ladder's store (:mod:`persistence.ladder`) in memory, beside the in-memory event store."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from persistence.accounts import key_of
from persistence.ladder import (
    Finish,
    LadderStore,
    LadderWrites,
    PoolEntry,
    Rating,
    RatingChange,
    Tournament,
    entered_by_another,
)
from persistence.port import Transaction, as_utc


def _ordinal(rating: Rating) -> float:
    return rating.mu - 3 * rating.sigma


def _rating_row(rating: Rating) -> tuple[Any, ...]:
    return dataclasses.astuple(rating)


def _change_row(change: RatingChange) -> tuple[Any, ...]:
    return dataclasses.astuple(change)


@dataclasses.dataclass
class _MemoryLadder:
    finishes: list[Finish] = dataclasses.field(default_factory=list)
    applied: int = 0
    ratings: dict[tuple[str, str], Rating] = dataclasses.field(default_factory=dict)
    history: list[RatingChange] = dataclasses.field(default_factory=list)
    pool: dict[tuple[str, str], PoolEntry] = dataclasses.field(default_factory=dict)
    tournaments: dict[str, Tournament] = dataclasses.field(default_factory=dict)
    finished: set[str] = dataclasses.field(default_factory=set)  # tournaments marked finished


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

    def leave_pools(self, account: str) -> None:
        for key in [key for key in self.state.pool if key[1] == account]:
            del self.state.pool[key]

    def add_tournament(self, tournament: Tournament) -> None:
        self.state.tournaments[tournament.id] = copy.deepcopy(tournament)

    def entered(self, accounts: Sequence[str]) -> list[Tournament]:
        wanted = set(accounts)
        found = [tournament for tournament in self.state.tournaments.values()
                 if tournament.id not in self.state.finished and wanted.intersection(entered_by_another(tournament))]
        return [copy.deepcopy(tournament) for tournament in sorted(found, key=lambda one: (one.created_at, one.id))]

    def mark_finished(self, tournament_ids: Sequence[str]) -> None:
        self.state.finished.update(tournament_ids)

    def next_round(self, tournament: Tournament, games: Sequence[dict[str, Any]], byes: Sequence[dict[str, Any]],
                   more: bool) -> bool:
        stored = self.state.tournaments.get(tournament.id)
        if stored is None or stored.current_round != tournament.current_round:
            return False
        self.state.tournaments[tournament.id] = dataclasses.replace(
            stored, current_round=stored.current_round + 1, open=more,
            games=[*stored.games, *copy.deepcopy(list(games))], byes=[*stored.byes, *copy.deepcopy(list(byes))])
        return True


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
                                                  list(state.history), dict(state.pool), dict(state.tournaments),
                                                  set(state.finished)))
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

    def leaderboard(self, game: str, min_games: int, after: tuple[float, str] | None, limit: int) -> list[Rating]:
        found = [rating for (played, _), rating in self.state.ratings.items()
                 if played == game and rating.games >= min_games]
        found.sort(key=lambda rating: (-_ordinal(rating), rating.account))
        if after is not None:
            found = [rating for rating in found if (-_ordinal(rating), rating.account) > (-after[0], after[1])]
        return found[:limit]

    def ahead(self, game: str, min_games: int, ordinal: float, account: str) -> int:
        return sum(1 for (played, _), rating in self.state.ratings.items()
                   if played == game and rating.games >= min_games
                   and (-_ordinal(rating), rating.account) < (-ordinal, account))

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

    def pool(self, game: str) -> list[PoolEntry]:
        return MemoryLadderWrites(self.state).pool(game)

    def ratings(self, game: str, accounts: Sequence[str]) -> dict[str, Rating]:
        return MemoryLadderWrites(self.state).ratings(game, accounts)

    def entry(self, game: str, account: str) -> PoolEntry | None:
        return self.state.pool.get((game, account))

    def tournament(self, tournament_id: str) -> Tournament | None:
        found = self.state.tournaments.get(tournament_id)
        return copy.deepcopy(found)

    def open_tournaments(self) -> list[str]:
        found = [tournament for tournament in self.state.tournaments.values() if tournament.open]
        return [tournament.id for tournament in sorted(found, key=lambda tournament: (tournament.created_at,
                                                                                      tournament.id))]

    def tournaments(self, account: str | None, before: tuple[dt.datetime, str] | None, limit: int) -> list[Tournament]:
        found = sorted(self.state.tournaments.values(), key=lambda tournament: (tournament.created_at, tournament.id),
                       reverse=True)
        found = [tournament for tournament in found
                 if (before is None or (tournament.created_at, tournament.id) < before)
                 and (account is None or account in {key_of(name) for name in tournament.spec["accounts"]})]
        return copy.deepcopy(found[:limit])

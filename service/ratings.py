"""Ratings: a projection of the log, applied exactly once per rated game, rebuildable to the same bytes.

A rated game (``GameCreated.rated``: a rated challenge's or pool's) that finishes is recorded,
with its last events, as the next *rated finish* (persistence.ladder: they commit in the order of
their seqs). The projection applies the finishes in that order: each updates the ratings of
the game's accounts with openskill's Plackett-Luce model (multiplayer; the places of
:func:`domain.ladder.places`, where leaving a game is a loss), adds a point to each account's
history and records the finish's seq as applied, all in one transaction that first locks the
``ratings`` counter and reads it again: a second process (or a restarted one) that computed the
same finish finds it applied and writes nothing. :meth:`Ratings.rebuild` forgets every rating and
applies every finish again, each game replayed from its events: the same inputs in the same
order, so the same floats (``cardhall ratings rebuild``; a test compares the tables).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce

from domain import table as tables
from domain.game import all_games
from domain.ladder import WON, places
from persistence.accounts import key_of
from persistence.ladder import Finish, LadderStore, LadderWrites, Rating, RatingChange, ladder_of
from service.errors import NotFound

if TYPE_CHECKING:  # (service.games makes the accounts, which show their ratings: figures)
    from service.games import GameService

MODEL = PlackettLuce()  # mu 25, sigma 25/3: openskill's defaults
BATCH = 100  # finishes applied per transaction
RATINGS_SECONDS = 0.25  # how often a server process looks for finishes to apply


@dataclasses.dataclass(frozen=True, slots=True)
class _Outcome:
    """A rated finish as the ratings see it: the game's accounts (name as given) and places, by seat."""

    finish: Finish
    names: tuple[str, ...]
    places: tuple[int, ...]


def ordinal(mu: float, sigma: float) -> float:
    """The rating leaderboards rank by: μ − 3σ (openskill's ordinal)."""
    return mu - 3 * sigma


class Ratings:
    """The ratings projection of one process (any number may run it at once)."""

    def __init__(self, games: GameService, applied: Callable[[Finish], None] = lambda finish: None) -> None:
        """``applied(finish)``: told of each finish this process applied, once committed (api.metrics
        observes how long after the game's end its ratings changed)."""
        self.games = games
        self.ladder: LadderStore = ladder_of(games.store)
        self.applied = applied

    def catch_up(self, batch: int = BATCH, from_log: bool = False) -> int:
        """Apply every rated finish not applied yet; how many this call applied. ``from_log``: each
        game replayed from its events (a rebuild), not taken from the process's cache."""
        applied = 0
        while True:
            last = self.ladder.applied()
            finishes = self.ladder.finishes_after(last, batch)
            if not finishes:
                return applied
            outcomes = [self._outcome(finish, from_log) for finish in finishes]
            with self.games.store.transaction() as tx, self.ladder.within(tx) as writes:
                if writes.applied() != last:  # (another process applied them meanwhile: read again)
                    continue
                _apply(writes, outcomes)
            for outcome in outcomes:
                self.applied(outcome.finish)
            applied += len(outcomes)

    def rebuild(self, batch: int = BATCH) -> int:
        """Every rating recomputed from the games' events; how many rated games the table holds then (a server
        running meanwhile may have applied some of them itself, as it would have from the log)."""
        with self.games.store.transaction() as tx, self.ladder.within(tx) as writes:
            writes.reset()
        self.catch_up(batch, from_log=True)
        return self.ladder.applied()  # (finishes are counted from 1 in the order they committed)

    def leaderboard(self, game: str, min_games: int, limit: int, cursor: str | None = None) -> dict[str, Any]:
        """A page of ``game``'s leaderboard: accounts with ``min_games`` rated games or more, by ordinal."""
        if game not in all_games():
            raise NotFound(f"no game {game!r}")
        found = self.ladder.leaderboard(game, min_games, None if cursor is None else _position(cursor), limit + 1)
        entries: list[dict[str, Any]] = []
        if found:  # (a rank is one more than the accounts of higher ordinals: ties share one)
            first = ordinal(found[0].mu, found[0].sigma)
            before = self.ladder.ahead(game, min_games, first, found[0].account) if cursor else 0
            rank = self.ladder.ahead(game, min_games, first, "") + 1 if cursor else 1
            for index, rating in enumerate(found[:limit]):
                value = ordinal(rating.mu, rating.sigma)
                if entries and entries[-1]["ordinal"] != value:
                    rank = before + index + 1
                entries.append({"rank": rank, "account": rating.name, **figures(rating)})
        last = found[limit - 1] if len(found) > limit else None
        return {"entries": entries, "next": None if last is None else f"{ordinal(last.mu, last.sigma)!r}~{last.account}",
                "min_games": min_games}

    def of_account(self, name: str, history: int = 100) -> dict[str, Any]:
        """The account's rating in each game it played rated, with its last ``history`` changes."""
        key = key_of(name)
        return {"ratings": [
            {"game": rating.game, **figures(rating),
             "history": [{"game_id": change.game_id, "place": change.place, "mu": change.mu, "sigma": change.sigma,
                          "ordinal": ordinal(change.mu, change.sigma), "at": change.at}
                         for change in self.ladder.history(key, rating.game, history)]}
            for rating in self.ladder.ratings_of(key)]}

    def _outcome(self, finish: Finish, from_log: bool) -> _Outcome:
        if from_log:
            stored = self.games.store.read(finish.game_id)
            table = tables.replay_records((event.type, event.seat, event.data) for event in stored)
        else:
            table = self.games.table(finish.game_id)
        names = tuple(seat.account if seat is not None and seat.account else "" for seat in table.seats)
        return _Outcome(finish, names, tuple(places(table)))


def _apply(writes: LadderWrites, outcomes: Sequence[_Outcome]) -> None:
    """The outcomes applied in order, each on the ratings the ones before it left."""
    for outcome in outcomes:
        finish = outcome.finish
        rated = [(key_of(name), name, place) for name, place in zip(outcome.names, outcome.places, strict=True) if name]
        keys = [key for key, _, _ in rated]
        if len(rated) < 2 or len(set(keys)) != len(keys):  # (nobody to be rated against, or a seat counted twice)
            writes.apply(finish.seq, [], [])
            continue
        before = writes.ratings(finish.game, keys)
        teams = [[MODEL.rating(*_mu_sigma(before.get(key)))] for key in keys]
        after = MODEL.rate(teams, ranks=[place for _, _, place in rated])
        changed, history = [], []
        for (key, name, place), [rating] in zip(rated, after, strict=True):
            old = before.get(key)
            changed.append(Rating(finish.game, key, name, rating.mu, rating.sigma, (old.games if old else 0) + 1,
                                  (old.wins if old else 0) + (place == WON), finish.finished_at, finish.game_id))
            history.append(RatingChange(finish.seq, key, finish.game, finish.game_id, place, rating.mu, rating.sigma,
                                        finish.finished_at))
        writes.apply(finish.seq, changed, history)


def _position(cursor: str) -> tuple[float, str]:
    """A leaderboard's cursor read: the ordinal and name key of the last account of the page before (the API's
    pattern has checked its form: ``ORDINAL~KEY``, the ordinal as Python writes a float, exactly)."""
    value, _, account = cursor.partition("~")
    return float(value), account


def figures(rating: Rating) -> dict[str, Any]:
    """One account's current rating in one game, as the leaderboards, the ratings page and the account show it."""
    return {"ordinal": ordinal(rating.mu, rating.sigma), "mu": rating.mu, "sigma": rating.sigma,
            "games": rating.games, "wins": rating.wins, "last_played": rating.last_played,
            "last_game_id": rating.last_game_id}


def _mu_sigma(rating: Rating | None) -> tuple[float | None, float | None]:
    return (None, None) if rating is None else (rating.mu, rating.sigma)

"""Arena standings: games, wins, mean score or lives with a 95 % interval, and an openskill rating."""

from __future__ import annotations

import dataclasses
import math
import statistics
from typing import Any

from openskill.models import PlackettLuce

from cardhall_client.arena import Entrant, Played

Z95 = 1.959963984540054


@dataclasses.dataclass
class Standing:
    """One entrant's totals. A seat is one game played: an entrant holding two seats of a game plays two."""

    name: str
    games: int = 0
    wins: float = 0.0
    illegal: int = 0
    values: list[float] = dataclasses.field(default_factory=list)
    mu: float = 0.0
    sigma: float = 0.0

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values) if self.values else math.nan

    @property
    def ci95(self) -> tuple[float, float]:
        """The normal-approximation 95 % confidence interval of the mean."""
        if len(self.values) < 2:
            return (math.nan, math.nan)
        half = Z95 * statistics.stdev(self.values) / math.sqrt(len(self.values))
        return (self.mean - half, self.mean + half)

    @property
    def ordinal(self) -> float:
        """The conservative rating openskill ranks by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def as_dict(self) -> dict[str, Any]:
        low, high = self.ci95
        return {"name": self.name, "games": self.games, "wins": self.wins, "mean": self.mean,
                "ci95": [low, high], "ordinal": self.ordinal, "mu": self.mu, "sigma": self.sigma,
                "illegal_moves": self.illegal}


class Standings:
    """Totals by entrant, updated game by game."""

    def __init__(self, game: str, entrants: list[Entrant]) -> None:
        self.game = game
        self.metric = "scores" if game == "craits" else "lives"
        self.model = PlackettLuce()
        self.ratings = {one.name: self.model.rating(name=one.name) for one in entrants}
        self.by_name = {one.name: Standing(one.name) for one in entrants}
        self.entrants = entrants
        self.played = 0

    def add(self, played: Played) -> None:
        """Count one finished game: wins shared equally between winning seats, values, the rating."""
        self.played += 1
        winners = played.result["winners"]
        values = played.result[self.metric]  # type: ignore[literal-required]
        for seat, index in enumerate(played.seats):
            standing = self.by_name[self.entrants[index].name]
            standing.games += 1
            standing.wins += 1 / len(winners) if seat in winners else 0
            standing.values.append(values[seat])
            standing.illegal += played.illegal[seat]
        self._rate(played, values)

    def _rate(self, played: Played, values: list[int]) -> None:
        """PlackettLuce with one team per seat; an entrant in several seats takes the mean of its updates."""
        names = [self.entrants[index].name for index in played.seats]
        ranks = [self._rank(seat, values, played.result["winners"]) for seat in range(len(names))]
        rated = self.model.rate([[self.ratings[name]] for name in names], ranks=ranks)
        for name in set(names):
            mine = [team[0] for team, sat in zip(rated, names, strict=True) if sat == name]
            self.ratings[name] = self.model.rating(mu=statistics.fmean(r.mu for r in mine),
                                                  sigma=statistics.fmean(r.sigma for r in mine), name=name)
        for name, rating in self.ratings.items():
            self.by_name[name].mu, self.by_name[name].sigma = rating.mu, rating.sigma

    def _rank(self, seat: int, values: list[int], winners: list[int]) -> float:
        """Winners first, then by score (lower is better, Craits) or lives (more is better, Scat)."""
        if seat in winners:
            return 0
        return 1 + (values[seat] if self.metric == "scores" else -values[seat] + 1000)

    def table(self) -> list[Standing]:
        """The standings, best rating first."""
        return sorted(self.by_name.values(), key=lambda standing: standing.ordinal, reverse=True)

    def as_dict(self, **about: Any) -> dict[str, Any]:
        return {**about, "game": self.game, "games": self.played, "metric": self.metric,
                "standings": [standing.as_dict() for standing in self.table()]}


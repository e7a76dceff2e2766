"""Tournaments: who plays whom, the duplicate rotations of each deal, standings and a crosstable.

Round robin: every group of ``players_per_table`` accounts meets at one table (every pair, for two
players a table). With **duplicate deals** each table's deal is played once per seat: game ``r`` of a
table seats its accounts rotated by ``r`` (seat ``s`` holds account ``(s + r) % k`` of the table), with
the same stacked decks and the same first dealer (seat 0), so every account plays every hand from
every seat and the luck of the cards cancels out (as in duplicate bridge and the ACPC poker matches).

Points: a game's winners share one point; an account that left a game (resigned, abandoned) scores
nothing in it. Standings give each account's points, games, mean and a 95 % confidence interval of
its mean points a game (normal approximation); the crosstable, for each pair, the points each scored
in the games they shared.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Mapping, Sequence

from domain.ladder import LEFT, WON

Z95 = 1.959964


def round_robin(accounts: Sequence[str], players_per_table: int) -> list[tuple[str, ...]]:
    """Every group of ``players_per_table`` of the accounts, in a fixed order."""
    return list(itertools.combinations(accounts, players_per_table))


def rotation(table: Sequence[str], turn: int) -> tuple[str, ...]:
    """The accounts by seat in game ``turn`` of the table's duplicate set."""
    return tuple(table[(seat + turn) % len(table)] for seat in range(len(table)))


def points(places: Sequence[int]) -> list[float]:
    """Each seat's points in a game: the winners share one point; a seat left scores none."""
    winners = [seat for seat, place in enumerate(places) if place == WON]
    return [1 / len(winners) if place == WON and winners else 0.0 for place in places]


@dataclasses.dataclass(frozen=True, slots=True)
class Standing:
    account: str
    points: float
    games: int
    mean: float
    low: float  # the 95 % confidence interval of the mean points a game
    high: float


def standings(accounts: Sequence[str], results: Sequence[tuple[Sequence[str], Sequence[int]]]) -> list[Standing]:
    """The standings after ``results`` (each game's accounts by seat and places), best first."""
    scored: dict[str, list[float]] = {account: [] for account in accounts}
    for seated, places in results:
        for account, point, place in zip(seated, points(places), places, strict=True):
            scored[account].append(0.0 if place == LEFT else point)
    rows = []
    for account, marks in scored.items():
        count = len(marks)
        mean = sum(marks) / count if count else 0.0
        spread = math.sqrt(sum((mark - mean) ** 2 for mark in marks) / (count - 1)) if count > 1 else 0.0
        half = Z95 * spread / math.sqrt(count) if count else 0.0
        rows.append(Standing(account, sum(marks), count, mean, mean - half, mean + half))
    return sorted(rows, key=lambda row: (-row.points, row.account))


def crosstable(results: Sequence[tuple[Sequence[str], Sequence[int]]]) -> Mapping[str, Mapping[str, float]]:
    """For each account, for each other it shared games with: the points it scored in those games."""
    table: dict[str, dict[str, float]] = {}
    for seated, places in results:
        for account, point in zip(seated, points(places), strict=True):
            for other in seated:
                if other != account:
                    row = table.setdefault(account, {})
                    row[other] = row.get(other, 0.0) + point
    return table

"""Tournaments: who plays whom, the duplicate rotations of each deal, standings and a crosstable.

Round robin: every group of ``players_per_table`` accounts meets at one table (every pair, for two
players a table). With **duplicate deals** each table's deal is played once per seat: game ``r`` of a
table seats its accounts rotated by ``r`` (seat ``s`` holds account ``(s + r) % k`` of the table), with
the same stacked decks and the same first dealer (seat 0), so every account plays every hand from
every seat and the luck of the cards cancels out (as in duplicate bridge and the ACPC poker matches).

Swiss (:func:`swiss`): round by round, accounts of equal or nearest standing meet. The accounts are
ordered by points (equal to :data:`POINT_DIGITS` decimals, as the ranks have them), ties by a lot
drawn from the tournament's seed (so round 1 is a seeded draw). If the tables do not divide them,
the ``n % players_per_table`` accounts with the fewest byes so far, the lowest standing first, sit
the round out: a *bye*, worth :func:`bye_points` (what an account scores in a round on average,
neither a reward nor a penalty), so no account has a second bye while another has none. For two
players the rest are paired so that, first, as few pairs as possible have met before and, then,
paired accounts stand as near as possible (the least sum of squared distances in the order:
neighbours meet); for more players each table takes the highest account left and the accounts after
it that have met its table least (nearest first).

Points: a game's winners share one point; an account that left a game (resigned, abandoned) scores
nothing in it. Standings give each account's points, games, mean and a 95 % confidence interval of
its mean points a game (normal approximation), best first; accounts of equal points share a rank
(:func:`ranks`: 1, 1, 3), listed by name. The crosstable gives, for each pair, the points each scored
in the games they shared.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence

from domain.ladder import LEFT, WON

Z95 = 1.959964
MAX_SWISS_ROUNDS = 10
#: Points are sums of shares (a third, a half...) added in any order: equal to this many decimals, they are equal.
POINT_DIGITS = 9


def round_robin(accounts: Sequence[str], players_per_table: int) -> list[tuple[str, ...]]:
    """Every group of ``players_per_table`` of the accounts, in a fixed order."""
    return list(itertools.combinations(accounts, players_per_table))


def rotation(table: Sequence[str], turn: int) -> tuple[str, ...]:
    """The accounts by seat in game ``turn`` of the table's duplicate set."""
    return tuple(table[(seat + turn) % len(table)] for seat in range(len(table)))


def _level(points: float) -> float:
    """Points as standings, ranks and the Swiss pairing compare them: to ``POINT_DIGITS`` decimals."""
    return round(points, POINT_DIGITS)


def points(places: Sequence[int]) -> list[float]:
    """Each seat's points in a game: the winners share one point; a seat left scores none."""
    winners = [seat for seat, place in enumerate(places) if place == WON]
    return [1 / len(winners) if place == WON and winners else 0.0 for place in places]


@dataclasses.dataclass(frozen=True, slots=True)
class Standing:
    account: str
    points: float  # the games' and the byes'
    games: int
    mean: float  # points a game (byes aside)
    low: float  # the 95 % confidence interval of the mean points a game
    high: float
    byes: int = 0


def standings(accounts: Sequence[str], results: Sequence[tuple[Sequence[str], Sequence[int]]],
              byes: Sequence[tuple[str, float]] = ()) -> list[Standing]:
    """The standings after ``results`` (each game's accounts by seat and places) and ``byes`` (each
    the account that had it and its points), best first."""
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
        mine = [value for who, value in byes if who == account]
        rows.append(Standing(account, sum(marks) + sum(mine), count, mean, mean - half, mean + half, len(mine)))
    return sorted(rows, key=lambda row: (-_level(row.points), row.account))


def ranks(rows: Sequence[Standing]) -> list[int]:
    """Each row's rank in the standings ``rows`` (as :func:`standings` orders them): one more than the accounts
    with more points, so that accounts of equal points share one (1, 1, 3), whatever their names."""
    found: list[int] = []
    for index, row in enumerate(rows):
        tied = index and _level(row.points) == _level(rows[index - 1].points)
        found.append(found[-1] if tied else index + 1)
    return found


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


@dataclasses.dataclass(frozen=True, slots=True)
class Pairing:
    """One Swiss round: its tables (accounts in seat order) and the accounts that sit it out."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


def bye_points(players_per_table: int, duplicate: bool) -> float:
    """A bye's points: an account's mean points in a round (a table's games share one point each)."""
    return (players_per_table if duplicate else 1) / players_per_table


def max_swiss_rounds(accounts: int) -> int:
    """The most rounds a Swiss tournament of ``accounts`` may play: fewer than the accounts, at most 10."""
    return max(1, min(accounts - 1, MAX_SWISS_ROUNDS))


def swiss(points: Mapping[str, float], past: Sequence[Pairing], players_per_table: int, seed: str) -> Pairing:
    """The next Swiss round for accounts with ``points`` after the rounds ``past`` (see the module)."""
    order = sorted(points, key=lambda account: (-_level(points[account]), _lot(seed, account)))
    met = Counter(frozenset(pair) for earlier in past for table in earlier.tables
                  for pair in itertools.combinations(table, 2))
    had = Counter(account for earlier in past for account in earlier.byes)
    out = _byes(order, had, len(order) % players_per_table)
    seated = [account for account in order if account not in out]
    tables = _pairs(seated, met) if players_per_table == 2 else _groups(seated, met, players_per_table)
    return Pairing(tables, out)


def _lot(seed: str, account: str) -> str:
    """The account's place among equals: drawn from the seed, the same every time it is asked."""
    return hashlib.sha256(f"{seed}:{account}".encode()).hexdigest()


def _byes(order: Sequence[str], had: Mapping[str, int], count: int) -> tuple[str, ...]:
    """The ``count`` accounts with the fewest byes so far, the lowest standing first, in standing order."""
    ranked = sorted(range(len(order)), key=lambda index: (had.get(order[index], 0), -index))[:count]
    return tuple(order[index] for index in sorted(ranked))


def _pairs(order: Sequence[str], met: Mapping[frozenset[str], int]) -> tuple[tuple[str, ...], ...]:
    """The pairing of ``order`` (an even number) with the fewest rematches, then the nearest pairs."""
    full = (1 << len(order)) - 1

    @functools.cache
    def best(paired: int) -> tuple[tuple[int, int], tuple[tuple[int, int], ...]]:
        if paired == full:
            return (0, 0), ()
        first = next(index for index in range(len(order)) if not paired >> index & 1)
        options = []
        for other in range(first + 1, len(order)):
            if not paired >> other & 1:
                (rematches, distance), rest = best(paired | 1 << first | 1 << other)
                options.append(((rematches + met.get(frozenset((order[first], order[other])), 0),
                                 distance + (other - first) ** 2), ((first, other), *rest)))
        return min(options)

    return tuple((order[first], order[other]) for first, other in best(0)[1])


def _groups(order: Sequence[str], met: Mapping[frozenset[str], int], size: int) -> tuple[tuple[str, ...], ...]:
    """Tables of ``size``: each the highest account left and those after it that met its table least."""
    left, tables = list(order), []
    while left:
        table = [left.pop(0)]
        while len(table) < size:
            chosen = min(range(len(left)), key=lambda index: (
                sum(met.get(frozenset((left[index], sitting)), 0) for sitting in table), index))
            table.append(left.pop(chosen))
        tables.append(tuple(table))
    return tuple(tables)

"""Pairing the accounts waiting in a pool into games: closest ratings first, widening with the wait.

Pure: the service gives the waiting entries (each with its rating's ordinal and how long it has
waited) and takes the groups. The entry that has waited longest is seated first: among the
entries it may sit with (the same ``rated``, a player count both accept, people and bots only
where both opted in, an ordinal within its window) it takes the ones closest to its own
ordinal, for the largest player count it can fill. Its window is ``BASE_WINDOW`` ordinal
points, widened by ``WIDEN_PER_SECOND`` for every second waited, so a lone account far from
the others is paired in the end. Each entry sits in at most one group of a round: no account
plays itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

BASE_WINDOW = 5.0
WIDEN_PER_SECOND = 5.0


@dataclasses.dataclass(frozen=True, slots=True)
class Waiting:
    """An account waiting in a pool (``account``: its name key)."""

    account: str
    bot: bool
    players: frozenset[int]
    rated: bool
    mixed: bool  # plays against accounts of the other kind (people with bots)
    ordinal: float
    waited: float  # seconds

    @property
    def window(self) -> float:
        """How far from its own ordinal it accepts an opponent's, now."""
        return BASE_WINDOW + WIDEN_PER_SECOND * self.waited


def compatible(first: Waiting, second: Waiting) -> bool:
    """Whether the two may sit at one table (whatever its size), their windows aside."""
    return (first.account != second.account and first.rated == second.rated
            and (first.bot == second.bot or (first.mixed and second.mixed)))


def pair(waiting: Sequence[Waiting]) -> list[tuple[Waiting, ...]]:
    """The groups to seat now, each in seat order (the longest waiting first)."""
    order = sorted(waiting, key=lambda entry: (-entry.waited, entry.account))
    seated: set[str] = set()
    groups = []
    for anchor in order:
        if anchor.account in seated:
            continue
        group = _group_for(anchor, [entry for entry in order if entry.account not in seated])
        if group:
            groups.append(group)
            seated.update(entry.account for entry in group)
    return groups


def _group_for(anchor: Waiting, free: list[Waiting]) -> tuple[Waiting, ...] | None:
    """The anchor and the closest entries that fill the largest table it accepts, if any is filled."""
    near = [entry for entry in free if compatible(anchor, entry)
            and abs(entry.ordinal - anchor.ordinal) <= max(anchor.window, entry.window)]
    near.sort(key=lambda entry: (abs(entry.ordinal - anchor.ordinal), -entry.waited, entry.account))
    for size in sorted(anchor.players, reverse=True):
        chosen: list[Waiting] = []
        for entry in near:
            if size in entry.players and all(compatible(entry, other) for other in chosen):
                chosen.append(entry)
                if len(chosen) == size - 1:
                    return (anchor, *chosen)
    return None

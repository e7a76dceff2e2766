"""The arena's in-memory mode: games played in this process by the server's own rules engine.

A game is a :class:`service.local.LocalGame`; every seat is played here, file bots
by their own ``choose`` and house entrants by the house bots' (:func:`bots.choose`),
each with its own seeded random source. A move a bot gets wrong is replaced by its
first legal one and counted.
"""

from __future__ import annotations

import random
from typing import Any

import bots
from cardhall_client.arena import Entrant, Played, seating
from cardhall_client.loading import Choose, NoMove, ask
from domain.errors import DomainError
from service.local import LocalGame


def play_local(game: str, players: int, entrants: list[Entrant], number: int, seed: int,
               options: dict[str, Any]) -> Played:
    """One game in memory (:data:`cardhall_client.arena.PlayOne`)."""
    seats = seating(entrants, players, number)
    local = LocalGame(game, players, {**options, "seed": seed}, names=[entrants[i].name for i in seats])
    chooser = [_chooser(game, entrants[index], random.Random(f"{seed}:{seat}")) for seat, index in enumerate(seats)]
    illegal = [0] * players
    while not local.over:
        seat = local.view(None)["to_act"][0]
        view = local.view(seat)
        try:
            local.move(seat, ask(chooser[seat], view))
        except (NoMove, DomainError):
            illegal[seat] += 1
            local.move(seat, view["legal_moves"][0])
    return Played(number, seed, seats, local.view(None)["result"], illegal)


def _chooser(game: str, one: Entrant, rng: random.Random) -> Choose:
    """A file bot's own function, or the house bot's, with its own seeded random source."""
    if one.choose is not None:
        return one.choose
    return lambda view: bots.choose(game, one.house, view, rng)

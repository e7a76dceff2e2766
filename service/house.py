"""The house at a table (:class:`domain.table.House`): it draws chance outcomes and plays its bots.

Both are keyed with a deployment's shuffle secret (:mod:`service.chance`): a seeded
game's shuffles and its house bots' choices are the same every time on one
deployment, and nobody without the secret can tell them in advance.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

import bots
from domain import table as tables
from domain.events import Event
from domain.game import ChanceRequest
from service.chance import bot_rng, draw, rng_for


@dataclasses.dataclass(frozen=True, slots=True)
class House:
    """The house of the deployment whose shuffle secret is ``secret``."""

    secret: bytes

    def draw(self, table: tables.Table, request: ChanceRequest) -> Event:
        """The outcome of ``request`` as the table's next event."""
        return draw(request, table.options, table.version + 1, self.secret, table.seeds)

    def bot_move(self, table: tables.Table, seat: int) -> Mapping[str, Any]:
        """The move of the house bot in ``seat``, whose turn it is."""
        kind = _kind(table, seat)
        return bots.choose(table.game, kind, _bot_view(table, seat, kind), self._rng(table, seat))

    def bot_out_of_turn(self, table: tables.Table, seat: int) -> Mapping[str, Any] | None:
        """A move the house bot in ``seat`` is offered out of turn and takes, or None."""
        moves = tables.legal_moves(table, seat)
        if not moves:
            return None
        kind = _kind(table, seat)
        return bots.out_of_turn(table.game, kind, _bot_view(table, seat, kind, moves), self._rng(table, seat))

    def _rng(self, table: tables.Table, seat: int) -> random.Random:
        if table.seeds is not None:
            return bot_rng(table.seeds, table.version + 1, seat)
        return rng_for(table.options, table.version + 1, self.secret, salt=f"bot{seat}")


def _kind(table: tables.Table, seat: int) -> str:
    sitter = table.seats[seat]
    assert sitter is not None and sitter.bot is not None, "only a house bot's seat is played by the house"
    return sitter.bot


def _bot_view(table: tables.Table, seat: int, kind: str, moves: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What a house bot in ``seat`` is shown: its seat's view, or only its legal moves when that
    is all its kind reads (never more than the seat may see)."""
    if bots.needs_view(kind):
        return tables.view(table, seat)
    return {"legal_moves": tables.legal_moves(table, seat) if moves is None else moves}

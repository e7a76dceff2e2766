"""Where each seat of a finished rated game placed, for ratings and standings.

A winner (the game's ``result["winners"]``) places 1st, every other seat 2nd, and a seat its
player left (resigned, or abandoned to a house bot: ``Table.abandoned``) places last, 3rd,
whatever the house bot made of it: leaving counts as a loss for the account that left.
"""

from __future__ import annotations

from domain.table import FINISHED, Table

WON, LOST, LEFT = 1, 2, 3


def places(table: Table) -> list[int]:
    """Each seat's place in the finished game ``table`` (1: a winner, 2: lost, 3: left)."""
    assert table.status == FINISHED, "only a finished game has places"
    result = table.game.result(table.state) or {}
    winners = set(result.get("winners", ()))
    return [LEFT if seat in table.abandoned else WON if seat in winners else LOST for seat in range(table.players)]

"""Scat's moves, as the API's move objects (see API.md, Moves): what a seat asks for."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from domain.games.scat.rules import DISCARD_PILE, STOCK
from domain.moves import CARD, Move, choice, field


@dataclasses.dataclass(frozen=True, slots=True)
class Draw(Move):
    """Take the top card of the stock or of the discard pile (S5)."""

    type: ClassVar[str] = "draw"
    examples = (
        ("draw_stock", "draw from the stock (S5)", {"source": "stock"}),
        ("draw_discard", "take the top discard (S5)", {"source": "discard"}),
    )
    source: str = field(choice(STOCK, DISCARD_PILE))


@dataclasses.dataclass(frozen=True, slots=True)
class Discard(Move):
    """Lay one card of four on the discard pile, ending the turn (S5)."""

    type: ClassVar[str] = "discard"
    examples = (("discard", "discard a card (S5)", {"card": "KH"}),)
    card: str = field(CARD)


@dataclasses.dataclass(frozen=True, slots=True)
class Knock(Move):
    """Keep the hand and call for one last round of turns (S5, S6, S9 ``min_knock``)."""

    type: ClassVar[str] = "knock"
    examples = (("knock", "knock (S6)", {}),)


@dataclasses.dataclass(frozen=True, slots=True)
class Declare31(Move):
    """Show three cards worth 31 and end the hand (S11); legal out of turn."""

    type: ClassVar[str] = "declare_31"
    examples = (("declare_31", "declare 31 (S11), out of turn too", {}),)


@dataclasses.dataclass(frozen=True, slots=True)
class ThrowDown(Move):
    """Show every hand at once as a knock, before one's first draw (S9 ``throw_down``)."""

    type: ClassVar[str] = "throw_down"
    examples = (("throw_down", "throw down (S9 option)", {}),)


MOVES = (Draw, Discard, Knock, Declare31, ThrowDown)

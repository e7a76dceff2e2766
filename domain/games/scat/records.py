"""Scat's moves (what a seat asks for) and events (what happened), as stored in the log."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from domain.events import Event
from domain.fairness import Shuffled
from domain.moves import CARD, Move, choice, field

STOCK, DISCARD_PILE = "stock", "discard"


# -- moves ---------------------------------------------------------------------
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


# -- events ----------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class DealerDrawShuffled(Shuffled):
    """The deck was shuffled for the dealer draw (S3, C4); the contenders draw from the top."""


@dataclasses.dataclass(frozen=True, slots=True)
class DeckShuffled(Shuffled):
    """The dealer shuffled the deck and dealt it in this order (S4); secret until the game ends."""


@dataclasses.dataclass(frozen=True, slots=True)
class CardDrawn(Event):
    """``seat`` took ``card`` from ``source``; a card from the stock is seen by its taker only."""

    source: str
    card: str


@dataclasses.dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    """``seat`` laid ``card`` face up on the discard pile."""

    card: str


@dataclasses.dataclass(frozen=True, slots=True)
class Knocked(Event):
    """``seat`` knocked: everyone else has one more turn (S6)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ThrewDown(Event):
    """``seat`` called a throw-down: a showdown now, with them as the knocker (S9)."""


@dataclasses.dataclass(frozen=True, slots=True)
class ThirtyOneDeclared(Event):
    """``seat`` showed ``cards`` worth 31 (S11)."""

    cards: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class HandSettled(Event):
    """The hand ended; ``lost`` lives per seat, the ``hands`` shown (else null) and their ``values``.

    ``reason`` is ``showdown`` (after a knock, S10), ``throw_down`` (S9) or
    ``thirty_one`` (S11).
    """

    reason: str
    knocker: int | None
    declarer: int | None
    hands: tuple[tuple[str, ...] | None, ...]
    values: tuple[int | None, ...]
    lost: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class HandVoided(Event):
    """The stock ran out with nobody knocked: nobody loses a life (S7)."""


MOVES = (Draw, Discard, Knock, Declare31, ThrowDown)
EVENTS = (
    DealerDrawShuffled,
    DeckShuffled,
    CardDrawn,
    CardDiscarded,
    Knocked,
    ThrewDown,
    ThirtyOneDeclared,
    HandSettled,
    HandVoided,
)

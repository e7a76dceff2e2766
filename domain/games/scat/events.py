"""Scat's events: what happened, as stored in the log; chance outcomes carry full card orders."""

from __future__ import annotations

import dataclasses

from domain.events import Event
from domain.fairness import Shuffled


@dataclasses.dataclass(frozen=True, slots=True)
class DealerDrawShuffled(Shuffled):
    """The deck was shuffled for the dealer draw (S3, C4); the contenders draw from the top."""

    kind = "dealer_draw"


@dataclasses.dataclass(frozen=True, slots=True)
class DeckShuffled(Shuffled):
    """The dealer shuffled the deck and dealt it in this order (S4); secret until the game ends."""

    kind = "deal"


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

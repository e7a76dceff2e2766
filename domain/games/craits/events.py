"""Craits events: chance outcomes carry full card orders; moves are recorded as facts."""

from __future__ import annotations

import dataclasses

from domain.events import Event
from domain.fairness import Shuffled


@dataclasses.dataclass(frozen=True, slots=True)
class DealerDrawShuffled(Shuffled):
    """A deck was shuffled for the dealer draw; the drawers take its top cards in seat order (C4)."""

    kind = "dealer_draw"


@dataclasses.dataclass(frozen=True, slots=True)
class RoundDealt(Shuffled):
    """The dealer shuffled the deck into ``order`` and dealt the next round from it (C5)."""

    kind = "deal"


@dataclasses.dataclass(frozen=True, slots=True)
class PileReshuffled(Shuffled):
    """The discard pile but its top card became the draw pile in ``order`` (C9)."""

    kind = "reshuffle"


@dataclasses.dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """``seat`` played ``card``; ``suit`` is the suit an 8 or 9 left active."""

    card: str
    suit: str | None
    announced: bool


@dataclasses.dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """``seat`` could not play and draws ``count`` cards (C8; a crank's count, C11)."""

    count: int


@dataclasses.dataclass(frozen=True, slots=True)
class SuitChosen(Event):
    """The dealer chose the active suit after an 8 or 9 up-card (C6)."""

    suit: str


@dataclasses.dataclass(frozen=True, slots=True)
class OneCardAnnounced(Event):
    """``seat`` announced their last card (C12)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerCalledOut(Event):
    """``seat`` caught ``target`` holding one unannounced card (C12)."""

    target: int

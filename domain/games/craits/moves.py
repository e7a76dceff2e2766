"""Craits moves, as the API's move objects (see API.md, Moves)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from domain.moves import BOOL, CARD, SEAT, SUIT, Move, field


@dataclasses.dataclass(frozen=True, slots=True)
class Play(Move):
    """Play a card; an 8 names a suit, a 9 may; announce a play leaving one card."""

    type: ClassVar[str] = "play"
    examples = (
        ("play", "play a card", {"card": "TH"}),
        ("play_eight", "an 8 names the suit", {"card": "8S", "suit": "H"}),
        ("play_announce", "play to one card and announce it (C12)", {"card": "3C", "announce": True}),
    )
    card: str = field(CARD)
    suit: str | None = field(SUIT, default=None)
    announce: bool = field(BOOL, default=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Draw(Move):
    """Draw: one card, or the crank's count (C8, C11)."""

    type: ClassVar[str] = "draw"
    examples = (("draw", "draw (only with no card to play, C8)", {}),)


@dataclasses.dataclass(frozen=True, slots=True)
class ChooseSuit(Move):
    """The dealer names the active suit after an 8 or 9 up-card (C6)."""

    type: ClassVar[str] = "choose_suit"
    examples = (("choose_suit", "the dealer names the suit for an 8 or 9 up-card (C6)", {"suit": "D"}),)
    suit: str = field(SUIT)


@dataclasses.dataclass(frozen=True, slots=True)
class Announce(Move):
    """Announce one's last card (C12)."""

    type: ClassVar[str] = "announce"
    examples = (("announce", "announce one card left (C12)", {}),)


@dataclasses.dataclass(frozen=True, slots=True)
class Call(Move):
    """Call out a player holding one unannounced card (C12)."""

    type: ClassVar[str] = "call"
    examples = (("call", "call out seat 2 (C12)", {"target": 2}),)
    target: int = field(SEAT)

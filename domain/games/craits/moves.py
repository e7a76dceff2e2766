"""Craits moves, as the API's move objects (see API.md, Moves)."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from domain.moves import Move, field


@dataclasses.dataclass(frozen=True, slots=True)
class Play(Move):
    """Play a card; an 8 names a suit, a 9 may; announce a play leaving one card."""

    type: ClassVar[str] = "play"
    card: str = field("card")
    suit: str | None = field("suit", default=None)
    announce: bool = field("bool", default=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Draw(Move):
    """Draw: one card, or the crank's count (C8, C11)."""

    type: ClassVar[str] = "draw"


@dataclasses.dataclass(frozen=True, slots=True)
class ChooseSuit(Move):
    """The dealer names the active suit after an 8 or 9 up-card (C6)."""

    type: ClassVar[str] = "choose_suit"
    suit: str = field("suit")


@dataclasses.dataclass(frozen=True, slots=True)
class Announce(Move):
    """Announce one's last card (C12)."""

    type: ClassVar[str] = "announce"


@dataclasses.dataclass(frozen=True, slots=True)
class Call(Move):
    """Call out a player holding one unannounced card (C12)."""

    type: ClassVar[str] = "call"
    target: int = field("seat")

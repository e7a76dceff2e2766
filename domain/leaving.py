"""Leaving a game: a seat resigns, a waiting game is aborted, a game nobody moves in ends.

Every way out is an event in the log, decided here from the table and data the
service passes in (the time now, when the game last changed, the server's limits):
nothing here reads a clock. What happens to a resigned seat is each game's rule,
written in its rules document (docs/rules/craits.md L1, docs/rules/scat.md L1): in
both games the house bot :data:`RESIGNED_TO` plays the seat on, so the others'
game goes on and always ends.
"""

from __future__ import annotations

import dataclasses

from domain.events import Event, EventCatalog

RESIGNED_TO = "random"  # the house bot that plays a resigned seat
ABORTED, EXPIRED = "aborted", "expired"  # why a game ended before it began


@dataclasses.dataclass(frozen=True, slots=True)
class SeatResigned(Event):
    """``seat``'s player left the game; the house bot ``bot`` plays the seat from now on."""

    bot: str


@dataclasses.dataclass(frozen=True, slots=True)
class GameAborted(Event):
    """The game ended before it began: ``aborted`` by the player in ``seat``, or ``expired`` (nobody joined)."""

    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class IdleLimits:
    """How long a game may stay unchanged (seconds; None: for ever): waiting for players, or active."""

    waiting: float | None = None
    active: float | None = None


LEAVING_EVENTS = EventCatalog([SeatResigned, GameAborted])

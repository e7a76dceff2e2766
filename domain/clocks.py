"""Turn clocks (option ``move_seconds``): their events and the per-table clock state.

Time enters as data, in seconds since the epoch: the service says when a turn
began and what time it is now; nothing here reads a clock, so replaying a log
never consults one. A turn begins when the seats the game waits for change, or
when one of them moves (Scat's discard after a draw is a fresh turn on the
clock, as is a Craits 6's second play); an out-of-turn move by anyone else
restarts no clock. When a turn's deadline passes, the log records ``TurnTimedOut``
and then the game's default move for that seat as ordinary move events; a seat
that times out :data:`ABANDON_AFTER` turns in a row is handed to a house bot
(``SeatAbandoned``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from domain.events import Event, EventCatalog

ABANDON_AFTER = 3
ABANDONED_TO = "random"  # the house bot that plays an abandoned seat


@dataclasses.dataclass(frozen=True, slots=True)
class TurnTimedOut(Event):
    """``seat`` let its deadline pass; its next ``moves`` events are the move the server played for it."""

    moves: int


@dataclasses.dataclass(frozen=True, slots=True)
class SeatAbandoned(Event):
    """``seat`` timed out too many turns in a row: the house bot ``bot`` plays it from now on."""

    bot: str


CLOCK_EVENTS = EventCatalog([TurnTimedOut, SeatAbandoned])


@dataclasses.dataclass(frozen=True, slots=True)
class Clock:
    """A clocked table's timing facts, folded from its log like the rest of its state."""

    seconds: int
    in_a_row: tuple[int, ...]  # turns timed out in a row, by seat
    turn_version: int = 0  # the version whose event began the turn the game waits for
    waiting: tuple[int, ...] = ()  # the seats it waits for since then
    defaulting: int | None = None  # the seat whose default move is being recorded...
    default_left: int = 0  # ...and how many of its events are still to come

    def after(self, event: Event, version: int, to_act: tuple[int, ...]) -> Clock:
        """The clock once ``event``, the table's event number ``version``, left it waiting for ``to_act``."""
        if isinstance(event, TurnTimedOut):
            return dataclasses.replace(self, in_a_row=_bumped(self.in_a_row, event.seat),
                                       defaulting=event.seat, default_left=event.moves)
        if isinstance(event, SeatAbandoned):
            return self
        clock = self
        if event.seat is not None:
            if event.seat == self.defaulting and self.default_left:
                clock = dataclasses.replace(clock, default_left=self.default_left - 1)
            elif self.in_a_row[event.seat]:  # the seat moved by itself: its run of timeouts is over
                clock = dataclasses.replace(clock, in_a_row=_bumped(self.in_a_row, event.seat, to=0))
        if to_act != self.waiting or event.seat in to_act:
            clock = dataclasses.replace(clock, turn_version=version, waiting=to_act)
        return clock

    def deadline(self, turn_began: float) -> float | None:
        """When the turn that began at ``turn_began`` times out; None while the game waits for no seat."""
        return turn_began + self.seconds if self.waiting else None


def start(players: int, options: Mapping[str, Any]) -> Clock | None:
    """A new table's clock, or None for a game without ``move_seconds``."""
    seconds = options.get("move_seconds")
    return None if seconds is None else Clock(seconds, (0,) * players)


def _bumped(counts: tuple[int, ...], seat: int, to: int | None = None) -> tuple[int, ...]:
    value = counts[seat] + 1 if to is None else to
    return counts[:seat] + (value,) + counts[seat + 1 :]

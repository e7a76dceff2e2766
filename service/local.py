"""A game played in memory, with no store: for tests, simulations and the arena.

It runs the same domain code as the service: decide, evolve, and draw every
chance outcome the game waits for as an event (:mod:`service.chance`). A game in
memory belongs to no deployment: its seeded shuffles use :data:`LOCAL_SECRET`,
so a seed gives the same game wherever it is played in memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import table as tables
from domain.events import Event
from service.chance import draw

LOCAL_SECRET = b"cardhall-local"


class LocalGame:
    """One game in memory: its events and its table."""

    def __init__(
        self,
        game: str,
        players: int,
        options: Mapping[str, Any] | None = None,
        names: list[str] | None = None,
        secret: bytes = LOCAL_SECRET,
    ) -> None:
        self.secret = secret  # (a deployment's, to replay its seeded games; see service.chance)
        self.events: list[Event] = []
        self.table: tables.Table = None  # type: ignore[assignment]
        self._append(tables.create(game, players, dict(options or {})))
        for index in range(players):
            self._append(tables.take_seat(self.table, name=(names[index] if names else f"p{index}")))
        self.settle()

    def _append(self, event: Event) -> None:
        self.events.append(event)
        self.table = tables.evolve(self.table, event)

    def settle(self) -> list[Event]:
        """Draw and record every chance outcome the game waits for now."""
        drawn = []
        while (request := tables.chance(self.table)) is not None:
            event = draw(request, self.table.options, self.table.version + 1, self.secret)
            self._append(event)
            drawn.append(event)
        return drawn

    def move(self, seat: int, move: Mapping[str, Any]) -> list[Event]:
        """Make a move; returns every event it set off, chance outcomes included."""
        events = tables.decide(self.table, seat, move)
        for event in events:
            self._append(event)
        return events + self.settle()

    @property
    def state(self) -> Any:
        """The game's own state."""
        return self.table.state

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` sees now."""
        return tables.view(self.table, seat)

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        """The moves ``seat`` may make now."""
        return tables.legal_moves(self.table, seat)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.table.status == tables.FINISHED

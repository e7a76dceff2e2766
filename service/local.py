"""A game played in memory, with no store: for tests, simulations and the arena.

It plays the same domain code as the service (:func:`domain.table.play`), with
the same house: every chance outcome drawn as an event, every house bot's turn
played (a seat a timeout handed to one). A game in memory belongs to no
deployment: its house keys seeded shuffles with :data:`LOCAL_SECRET`, so a seed
gives the same game wherever it is played in memory (its id is ``game_id``, which a
seeded game's server seed is derived with: :func:`service.chance.server_seed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain import table as tables
from domain.events import Event
from service.chance import server_seed
from service.house import House

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
        game_id: str = "local",
    ) -> None:
        self.house = House(secret)  # (a deployment's secret, to replay its seeded games; see service.chance)
        self.events: list[Event] = []
        self.table: tables.Table = None  # type: ignore[assignment]
        options = dict(options or {})
        self.record([tables.create(game, players, options, server_seed(options, game_id, secret))])
        for index in range(players):
            self.record([tables.take_seat(self.table, name=(names[index] if names else f"p{index}"))])

    def move(self, seat: int, move: Mapping[str, Any]) -> list[Event]:
        """Make a move in person; returns every event it set off, chance outcomes included."""
        self.table, events = tables.play(self.table, seat, move, self.house)
        self.events += events
        return events

    def record(self, events: list[Event]) -> list[Event]:
        """Record events decided elsewhere (a timeout's) and everything they set off; returns them all."""
        self.table, events = tables.settle(self.table, events, self.house)
        self.events += events
        return events

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

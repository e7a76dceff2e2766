"""A table: one game's lifecycle around its rules.

The log of a game opens with ``GameCreated`` and one ``SeatTaken`` per seat;
every later event belongs to the game's own rules. A table is ``waiting`` until
every seat is taken, ``active`` while the rules run, ``finished`` once they say
the game is over. This module is what the service calls; it knows no game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from domain import codec
from domain.errors import GameNotActive, InvalidOptions, NotYourTurn, SeatUnavailable
from domain.events import Event, EventCatalog, event_data
from domain.game import ChanceRequest, Game, all_games, get_game

WAITING, ACTIVE, FINISHED = "waiting", "active", "finished"


@dataclasses.dataclass(frozen=True, slots=True)
class GameCreated(Event):
    """A game of ``game`` for ``players`` seats was created with ``options``, under ``rules_version``."""

    game: str
    players: int
    options: Mapping[str, Any]
    rules_version: str

    @classmethod
    def upcast(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """A game created before rules versions were recorded was created under each game's first."""
        return {"rules_version": f"{data['game']}/1", **data}


@dataclasses.dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    """``seat`` was taken by a person called ``name`` or by the house bot ``bot``."""

    name: str | None
    bot: str | None


LIFECYCLE = EventCatalog([GameCreated, SeatTaken])


@dataclasses.dataclass(frozen=True, slots=True)
class Seat:
    """Who sits in a seat."""

    name: str | None
    bot: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class Table:
    """A game's lifecycle state and its rules' state after ``version`` events."""

    game: Game
    players: int
    options: Mapping[str, Any]
    seats: tuple[Seat | None, ...]
    state: Any
    version: int
    _status: str | None = dataclasses.field(default=None, init=False, compare=False, repr=False)

    @property
    def status(self) -> str:
        """``waiting``, ``active`` or ``finished`` (worked out once per table: a move asks it dozens of times)."""
        if self._status is None:
            status = WAITING if None in self.seats else FINISHED if self.game.is_over(self.state) else ACTIVE
            object.__setattr__(self, "_status", status)
            return status
        return self._status

    @property
    def free_seat(self) -> int | None:
        """The lowest free seat, if any."""
        for index, seat in enumerate(self.seats):
            if seat is None:
                return index
        return None


def create(game_name: str, players: Any, options: Any) -> GameCreated:
    """The event creating a game, once the game, player count and options are checked."""
    games = all_games()
    if game_name not in games:
        raise InvalidOptions(f"unknown game {game_name!r}; offered: {', '.join(sorted(games))}")
    game = games[game_name]
    if isinstance(players, bool) or not isinstance(players, int) or not (
        game.min_players <= players <= game.max_players
    ):
        raise InvalidOptions(f"{game_name} is for {game.min_players} to {game.max_players} players")
    return GameCreated(None, game=game_name, players=players, options=game.validate_options(players, options),
                       rules_version=game.rules_version)


def take_seat(table: Table, name: str | None = None, bot: str | None = None) -> SeatTaken:
    """The event seating a person or a house bot in the next free seat."""
    seat = table.free_seat
    if seat is None:
        raise SeatUnavailable("every seat is taken and the game has started")
    return SeatTaken(seat, name=name, bot=bot)


def decode(game_name: str, type_name: str, seat: int | None, data: Mapping[str, Any]) -> Event:
    """Rebuild a stored event of a game of ``game_name`` (a name, or a rules version: ``craits/1``)."""
    if type_name in LIFECYCLE:
        return LIFECYCLE.decode(type_name, seat, data)
    return get_game(game_name).events.decode(type_name, seat, data)


def evolve(table: Table | None, event: Event) -> Table:
    """The table after one more event."""
    if isinstance(event, GameCreated):
        game = get_game(event.rules_version)
        return Table(game, event.players, event.options, (None,) * event.players,
                     game.start(event.players, event.options), 1)
    assert table is not None, "a log starts with GameCreated"
    if isinstance(event, SeatTaken):
        seats = table.seats[: event.seat] + (Seat(event.name, event.bot),) + table.seats[event.seat + 1 :]
        return dataclasses.replace(table, seats=seats, version=table.version + 1)
    return dataclasses.replace(table, state=table.game.evolve(table.state, event), version=table.version + 1)


def to_data(table: Table) -> dict[str, Any]:
    """The table as plain JSON data, its state by its game's own codec (see :func:`from_data`)."""
    return {"game": table.game.rules_version, "players": table.players, "options": codec.encode(table.options),
            "seats": codec.encode(table.seats), "state": table.game.encode_state(table.state),
            "version": table.version}


def from_data(data: Mapping[str, Any]) -> Table:
    """The table :func:`to_data` gave ``data`` for; ValueError, KeyError or TypeError if it is not such data."""
    game = get_game(data["game"])
    return Table(game, codec.decode(int, data["players"]), dict(data["options"]),
                 codec.decode(tuple[Seat | None, ...], data["seats"]), game.decode_state(data["state"]),
                 codec.decode(int, data["version"]))


def replay(events: Iterable[Event], table: Table | None = None) -> Table:
    """Fold events into a table (from scratch, or onward from ``table``)."""
    for event in events:
        table = evolve(table, event)
    assert table is not None, "an empty log is no game"
    return table


def replay_records(records: Iterable[tuple[str, int | None, Mapping[str, Any]]], table: Table | None = None) -> Table:
    """Fold stored ``(type, seat, data)`` records into a table (from scratch, or onward from ``table``),
    each decoded under the rules version of its game (the log opens with ``GameCreated``)."""
    for type_name, seat, data in records:
        rules = table.game.rules_version if table is not None else data["game"]
        table = evolve(table, decode(rules, type_name, seat, data))
    assert table is not None, "an empty log is no game"
    return table


def chance(table: Table) -> ChanceRequest | None:
    """The chance outcome the game waits for, if it is running and waits for one."""
    if table.status != ACTIVE:
        return None
    return table.game.chance(table.state)


def to_act(table: Table) -> tuple[int, ...]:
    """The seats whose turn the game waits for."""
    if table.status != ACTIVE or chance(table) is not None:
        return ()
    return table.game.to_act(table.state)


def legal_moves(table: Table, seat: int | None) -> list[dict[str, Any]]:
    """Every move ``seat`` may make now, as API objects."""
    if seat is None or table.status != ACTIVE or table.game.chance(table.state) is not None:
        return []
    return [move.as_dict() for move in table.game.legal_moves(table.state, seat)]


def decide(table: Table, seat: int, move: Mapping[str, Any]) -> list[Event]:
    """The events ``seat``'s move sets off, or the typed error that refuses it."""
    if table.status != ACTIVE:
        raise GameNotActive(f"the game is {table.status}")
    game = table.game
    if game.chance(table.state) is not None or not game.legal_moves(table.state, seat):
        raise NotYourTurn(f"seat {seat} may not act now; the game waits for {list(to_act(table))}")
    return game.decide(table.state, seat, game.parse_move(move))


def reveal(table: Table) -> bool:
    """Whether everything in the record is public: once the game is over."""
    return table.status == FINISHED


def view(table: Table, seat: int | None, *, reveal_all: bool | None = None, with_moves: bool = True) -> dict[str, Any]:
    """What ``seat`` (or a spectator) sees of the table."""
    # As to_act, legal_moves and reveal would make it, the status and the chance looked up once.
    game, state, status = table.game, table.state, table.status
    if reveal_all is None:
        reveal_all = status == FINISHED
    waits = status == ACTIVE and game.chance(state) is None  # for a seat, not for chance
    return {
        "version": table.version,
        "status": status,
        "seat": seat,
        "to_act": list(game.to_act(state)) if waits else [],
        "legal_moves": [move.as_dict() for move in game.legal_moves(state, seat)]
        if with_moves and waits and seat is not None else [],
        "state": game.view(state, seat, reveal_all) if status != WAITING else None,
        "result": game.result(state) if status == FINISHED else None,
    }


def public_options(table: Table, reveal_all: bool | None = None) -> dict[str, Any]:
    """The options, with those that fix chance hidden until the game is over."""
    if reveal_all is None:
        reveal_all = reveal(table)
    return {
        name: value
        for name, value in table.options.items()
        if reveal_all or not table.game.options[name].hidden
    }


def redact(table: Table, event: Event, seat: int | None, reveal_all: bool | None = None) -> dict[str, Any] | None:
    """The event's data as ``seat`` may see it (``table`` is the table now)."""
    if reveal_all is None:
        reveal_all = reveal(table)
    if isinstance(event, GameCreated):
        data = event_data(event)
        data["options"] = public_options(table, reveal_all)
        return data
    if isinstance(event, SeatTaken):
        return event_data(event)
    return table.game.redact(event, seat, reveal_all)

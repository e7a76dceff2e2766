"""The game interface every game implements, and the registry of games.

The service runs any game through this interface without knowing which one it
is. A game is decided and evolved purely:

* ``start(players, options)`` gives the state before any chance;
* ``chance(state)`` says which chance outcome the game waits for, if any (a
  shuffle of which cards); the service draws it and records it as the event
  ``request.event(seat=None, order=ORDER)``;
* ``to_act(state)`` lists the seats whose turn the game waits for;
* ``legal_moves(state, seat)`` lists every move the seat may make now,
  out-of-turn moves included; ``decide(state, seat, move)`` returns the events
  a move sets off or raises a typed error naming the rule broken;
* ``evolve(state, event)`` folds one event into the state;
* ``view(state, seat, reveal_all)`` renders what a seat (or a spectator, seat
  ``None``) may see; ``redact(event, seat, reveal_all)`` likewise for one event;
* ``is_over(state)`` and ``result(state)`` end the game;
* ``default_moves(state, seat)`` is what the server plays for a seat whose turn
  timed out (option ``move_seconds``, :mod:`domain.clocks`).

Registering a module's ``GAME`` object in :data:`GAMES` is all a new game needs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from domain.events import Event, EventCatalog, event_data
from domain.moves import Move, MoveParser
from domain.options import COMMON_OPTIONS, OptionSpec, validate_options


@dataclasses.dataclass(frozen=True, slots=True)
class ChanceRequest:
    """A chance outcome the game waits for.

    ``kind`` is ``dealer_draw`` (a full deck, shuffled to choose the dealer),
    ``deal`` (a full deck for deal number ``deal``, counting from 0) or
    ``reshuffle`` (the ``cards`` of a pile, bottom to top, to become a new
    draw pile). ``event`` is the event class that records the outcome; it takes
    ``order``: the cards in their new order, index 0 the top card.
    """

    kind: str
    cards: tuple[str, ...]
    event: type[Event]
    deal: int | None = None

    def outcome(self, order: Sequence[str]) -> Event:
        """The event recording ``order`` as this request's outcome."""
        return self.event(None, order=tuple(order))


class Game:
    """Base class of the games; subclasses fill in the rules."""

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    own_options: tuple[OptionSpec, ...] = ()
    move_classes: tuple[type[Move], ...] = ()
    event_classes: tuple[type[Event], ...] = ()
    #: Event types whose data is hidden from everyone until the game is over.
    secret_events: frozenset[str] = frozenset()

    def __init__(self) -> None:
        self.options = {spec.name: spec for spec in (*COMMON_OPTIONS, *self.own_options)}
        self.moves = MoveParser(self.move_classes)
        self.events = EventCatalog(self.event_classes)

    # -- set-up ---------------------------------------------------------
    def validate_options(self, players: int, options: Any) -> dict[str, Any]:
        """The options with defaults filled in, or InvalidOptions."""
        return validate_options(self.options, players, options)

    def describe(self) -> dict[str, Any]:
        """The game as listed by ``GET /v1/game-types``."""
        return {
            "game": self.name,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": {name: spec.describe() for name, spec in self.options.items()},
            "moves": [cls.type for cls in self.move_classes],
        }

    def parse_move(self, data: Mapping[str, Any]) -> Move:
        """The move object as this game's move class, or InvalidMove."""
        return self.moves.parse(data)

    # -- the rules: subclasses implement ---------------------------------
    def start(self, players: int, options: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def chance(self, state: Any) -> ChanceRequest | None:
        raise NotImplementedError

    def to_act(self, state: Any) -> tuple[int, ...]:
        raise NotImplementedError

    def legal_moves(self, state: Any, seat: int) -> list[Move]:
        raise NotImplementedError

    def decide(self, state: Any, seat: int, move: Move) -> list[Event]:
        raise NotImplementedError

    def evolve(self, state: Any, event: Event) -> Any:
        raise NotImplementedError

    def view(self, state: Any, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        raise NotImplementedError

    def is_over(self, state: Any) -> bool:
        raise NotImplementedError

    def default_moves(self, state: Any, seat: int) -> list[Move]:
        """The moves the server plays, in turn, for ``seat`` when its turn times out: one the rules
        always allow and that harms the game least; no chance outcome may come between them."""
        raise NotImplementedError

    def result(self, state: Any) -> dict[str, Any] | None:
        raise NotImplementedError

    # -- defaults a game may override -------------------------------------
    def redact(self, event: Event, seat: int | None, reveal_all: bool = False) -> dict[str, Any] | None:
        """The event's data as ``seat`` may see it; ``None`` data means hidden."""
        if not reveal_all and event.type_name() in self.secret_events:
            return None
        return event_data(event)


GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a game to the registry under its name."""
    GAMES[game.name] = game
    return game


def get_game(name: str) -> Game:
    """The registered game called ``name`` (KeyError if none)."""
    _load_builtin_games()
    return GAMES[name]


def all_games() -> dict[str, Game]:
    """Every registered game by name."""
    _load_builtin_games()
    return dict(GAMES)


def _load_builtin_games() -> None:
    if GAMES:
        return
    import domain.games  # noqa: F401  (registers the built-in games)

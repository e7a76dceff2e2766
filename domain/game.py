"""The game interface every game implements, and the registry of games.

The service runs any game through this interface without knowing which one it
is. A game is decided and evolved purely:

* ``start(players, options)`` gives the state before any chance;
* ``chance(state)`` says which chance outcome the game waits for, if any (a
  shuffle of which cards); the service draws it and records it, committed under
  a salt it draws too, as ``request.outcome(ORDER, SALT)`` (see :mod:`domain.fairness`);
* ``to_act(state)`` lists the seats whose turn the game waits for;
* ``legal_moves(state, seat)`` lists every move the seat may make now,
  out-of-turn moves included; ``decide(state, seat, move)`` returns the events
  a move sets off or raises a typed error naming the rule broken;
  ``out_of_turn(state, players)`` names the seats offered a move out of turn
  (by default, from ``legal_moves``);
* ``evolve(state, event)`` folds one event into the state;
* ``view(state, seat, reveal_all)`` renders what a seat (or a spectator, seat
  ``None``) may see; ``redact(event, seat, reveal_all)`` likewise for one event;
* ``is_over(state)`` and ``result(state)`` end the game;
* ``default_moves(state, seat)`` is what the server plays for a seat whose turn
  timed out (option ``move_seconds``, :mod:`domain.clocks`).

Each of those but ``redact`` is abstract: a game leaving one out cannot be made,
so it fails to register. A game may also bring its own house bots:
``house_bot(kind)`` gives its play for the ``greedy`` bot (a :data:`HouseBot`);
without one, its greedy bots play at random. ``docs/games.md`` lists the view keys
the web pages read, and :func:`cardhall_testing.check_game` checks a game against
this interface.

A game is a package that names its :class:`Game` object in an entry point of the
group ``cardhall.games`` (``craits = "domain.games.craits:GAME"`` in
``pyproject.toml``); the registry loads every such entry point, the built-in games'
among them, the first time a game is looked up.

Rules versions: a game's rules never change under a stored game. A change of
rules is a new :class:`Game` (usually a subclass) with a higher ``version``,
registered beside the old one: new games are created under the highest
version, and every game replays under the ``rules_version`` (``craits/1``) its
``GameCreated`` records, for as long as that version stays registered.
"""

from __future__ import annotations

import abc
import dataclasses
import typing
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from typing import Any, Protocol, TypeVar

from domain import codec
from domain.events import Event, EventCatalog, event_data
from domain.fairness import Shuffled
from domain.moves import Move, MoveParser
from domain.options import COMMON_OPTIONS, OptionSpec, validate_options


@dataclasses.dataclass(frozen=True, slots=True)
class ChanceRequest:
    """A chance outcome the game waits for.

    ``kind`` is ``dealer_draw`` (a full deck, shuffled to choose the dealer),
    ``deal`` (a full deck for deal number ``deal``, counting from 0) or
    ``reshuffle`` (the ``cards`` of a pile, bottom to top, to become a new
    draw pile). ``event`` is the shuffle event class that records the outcome:
    the cards in their new order, index 0 the top card, and its commitment.
    """

    kind: str
    cards: tuple[str, ...]
    event: type[Shuffled]
    deal: int | None = None

    def outcome(self, order: Sequence[str], salt: str) -> Shuffled:
        """The event recording ``order`` as this request's outcome, committed under ``salt``."""
        return self.event.committed(order, salt)


@dataclasses.dataclass(frozen=True, slots=True)
class EventCapReached(Event):
    """The game's log reached its rules' most events (:attr:`Game.max_events`): the game is over,
    won as its rules say for this case. The table records it; each capped game folds it."""


T = TypeVar("T")


class Rng(Protocol):
    """The random source a house bot is handed (a ``random.Random`` the house keys: the domain draws none)."""

    def random(self) -> float:
        """A number in [0, 1)."""
        ...

    def choice(self, seq: Sequence[T]) -> T:
        """One item of ``seq``."""
        ...


#: A house bot's play: from its seat's view (as :func:`domain.table.view` gives it, ``legal_moves``
#: included) and a random source, one of the listed moves, as its API object.
HouseBot = Callable[[dict[str, Any], Rng], dict[str, Any]]


class Game(abc.ABC):
    """Base class of the games; subclasses fill in the rules.

    It is abstract: a subclass that leaves out one of the rules (the methods marked abstract)
    cannot be made into a game object, so a game missing one fails where it is registered (its
    entry point loaded, :func:`register`), never later when the service first needs it.
    """

    name: str = ""
    #: The rules version: a change of rules is a new class with a higher one (module docstring).
    version: int = 1
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    own_options: tuple[OptionSpec, ...] = ()
    move_classes: tuple[type[Move], ...] = ()
    event_classes: tuple[type[Event], ...] = ()
    #: The most events a game's log holds: once it holds this many, the table ends the game with
    #: :class:`EventCapReached` (which ``event_classes`` must list). None: no cap (older rules versions).
    max_events: int | None = None
    #: The rules versions this one replaced, registered with it: stored games replay under them.
    older_versions: tuple[Game, ...] = ()

    def __init__(self) -> None:
        #: ``name/version``, as a game records it (``craits/1``).
        self.rules_version = f"{self.name}/{self.version}"
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

    # -- the rules: every game implements them (abstract) ----------------
    @abc.abstractmethod
    def start(self, players: int, options: Mapping[str, Any]) -> Any:
        """The state before any chance, for ``players`` and the validated ``options``. Its return
        annotation names the state's type: :meth:`decode_state` rebuilds snapshots as that type."""

    @abc.abstractmethod
    def chance(self, state: Any) -> ChanceRequest | None:
        """The chance outcome the game waits for (a shuffle), or None."""

    @abc.abstractmethod
    def to_act(self, state: Any) -> tuple[int, ...]:
        """The seats whose turn the game waits for (a move out of turn never counts)."""

    @abc.abstractmethod
    def legal_moves(self, state: Any, seat: int) -> list[Move]:
        """Every move ``seat`` may make now, out-of-turn moves included: each one :meth:`decide` accepts."""

    @abc.abstractmethod
    def decide(self, state: Any, seat: int, move: Move) -> list[Event]:
        """The events ``move`` sets off, or the typed error (:mod:`domain.errors`) naming the rule broken."""

    @abc.abstractmethod
    def evolve(self, state: Any, event: Event) -> Any:
        """The state after ``event``."""

    @abc.abstractmethod
    def view(self, state: Any, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        """What ``seat`` (a spectator: None) may see, as JSON data; everything once ``reveal_all``.
        The keys the web pages read are listed in ``docs/games.md``."""

    @abc.abstractmethod
    def is_over(self, state: Any) -> bool:
        """Whether the game has ended."""

    @abc.abstractmethod
    def default_moves(self, state: Any, seat: int) -> list[Move]:
        """The moves the server plays, in turn, for ``seat`` when its turn times out: one the rules
        always allow and that harms the game least; no chance outcome may come between them."""

    @abc.abstractmethod
    def result(self, state: Any) -> dict[str, Any] | None:
        """The result once the game is over (``winners``, a list of seats, and the game's totals), else None."""

    # -- defaults a game may override -------------------------------------
    def out_of_turn(self, state: Any, players: int) -> tuple[int, ...]:
        """The seats not to act that :meth:`legal_moves` offers a move now (an announce, a call-out, a declared
        31), in seat order. This asks ``legal_moves`` of each; a game may answer from its state alone, cheaply
        (the local environment asks at every decision, and the answer is almost always none), as long as it
        names the same seats (the conformance kit checks it)."""
        to_act = self.to_act(state)
        return tuple(seat for seat in range(players) if seat not in to_act and self.legal_moves(state, seat))

    def house_bot(self, kind: str) -> HouseBot | None:
        """This game's own play for house bots of ``kind`` (``greedy``; ``random`` is every game's and never
        asked): a :data:`HouseBot`. None, as here, has such a bot play at random (``bots``)."""
        return None

    def encode_state(self, state: Any) -> Any:
        """The state as plain JSON data (for snapshots)."""
        return codec.encode(state)

    def decode_state(self, data: Any) -> Any:
        """The state :meth:`encode_state` gave ``data`` for, rebuilt as the type :meth:`start` declares."""
        return codec.decode(typing.get_type_hints(type(self).start)["return"], data)

    def redact(self, event: Event, seat: int | None, reveal_all: bool = False) -> dict[str, Any] | None:
        """The event's data as ``seat`` may see it: a shuffle shows its commitment alone until the end."""
        if not reveal_all and isinstance(event, Shuffled):
            return event.public_data()
        return event_data(event)


#: The newest rules version of each game, by name: what new games are created under.
GAMES: dict[str, Game] = {}
#: Every rules version registered, by ``rules_version`` (``craits/1``): what stored games replay under.
RULES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a rules version of a game; the highest version of a name is the one new games get.

    TypeError if ``game`` is no game object (a :class:`Game` subclass's instance: one that leaves
    out a rule cannot be made), does not say what it is (a name, players, a version) or leaves
    its snapshots nothing to be rebuilt as (``start`` annotates no state type).
    """
    if not isinstance(game, Game):
        raise TypeError(f"a game is an instance of a domain.game.Game subclass, not {game!r}")
    if not game.name or not game.name.isidentifier() or not game.name.islower():
        raise TypeError(f"{type(game).__name__}.name must be a lower-case identifier, not {game.name!r}")
    if isinstance(game.version, bool) or not isinstance(game.version, int) or game.version < 1:
        raise TypeError(f"{type(game).__name__}.version must be a whole number from 1, not {game.version!r}")
    if not 1 <= game.min_players <= game.max_players:
        raise TypeError(f"{type(game).__name__} is for {game.min_players} to {game.max_players} players")
    if type(game).decode_state is Game.decode_state and _state_type(type(game)) in (None, Any):
        raise TypeError(f"{type(game).__name__}.start must annotate the state's type (snapshots are rebuilt as "
                        f"it), or the game override decode_state")
    if game.max_events is not None and EventCapReached not in game.event_classes:
        raise TypeError(f"{type(game).__name__} has max_events, so its event_classes must list EventCapReached")
    for older in game.older_versions:
        register(older)
    RULES[game.rules_version] = game
    current = GAMES.get(game.name)
    if current is None or current.version < game.version:
        GAMES[game.name] = game
    return game


def _state_type(cls: type[Game]) -> Any:
    """The type ``cls.start`` is annotated to return, or None."""
    try:
        return typing.get_type_hints(cls.start).get("return")
    except NameError as error:
        raise TypeError(f"{cls.__name__}.start's annotations name what its module does not: {error}") from error


def get_game(name: str) -> Game:
    """The game called ``name`` at its newest version, or the version ``name/N`` names (KeyError if none)."""
    _load_once()
    return RULES[name] if "/" in name else GAMES[name]


def all_games() -> dict[str, Game]:
    """Every registered game by name."""
    _load_once()
    return dict(GAMES)


#: The entry point group a game registers in.
ENTRY_POINT_GROUP = "cardhall.games"
_loaded = False


def load_entry_points() -> None:
    """Register the game every installed ``cardhall.games`` entry point names, beside those registered already."""
    global _loaded
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            register(entry_point.load())
        except TypeError as error:  # (a Game subclass leaving out a rule cannot be made: TypeError too)
            raise TypeError(f"the game of entry point {entry_point.name} = {entry_point.value!r} "
                            f"({ENTRY_POINT_GROUP}) cannot be registered: {error}") from error
    _loaded = True


def _load_once() -> None:
    if not _loaded:
        load_entry_points()

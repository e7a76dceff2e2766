"""The conformance kit for game authors: ``check_game(GAME)`` plays random games of a game to the end.

A game is a :class:`domain.game.Game` (docs/games.md). The kit plays it through that
interface alone, drawing every chance outcome itself, and checks at every step:

* **every listed legal move decides**: each move ``legal_moves`` lists, read back from
  its API object, is accepted by ``decide``; its events are of the game's own event
  classes, read back from their stored form equal, and ``evolve`` takes them;
* **the game goes on**: while it is not over it waits for a chance outcome or for a
  seat with a legal move; ``result`` is None until the end, then names the winners;
* **out of turn is what legal_moves offers**: ``out_of_turn`` names, in seat order, the seats
  not to act that ``legal_moves`` offers a move;
* **default moves are legal**: for each seat to act, the moves a timed-out turn plays
  (``default_moves``) are each listed when played, with no chance outcome between;
* **house bots move legally**: the game's own bots (``house_bot``) pick a listed move;
* **snapshots round-trip**: ``decode_state(encode_state(state))``, through JSON, is the state;
* **replay is the fold**: the log, through its stored JSON form, folds to the state reached
  step by step;
* **no leak before the end**: every view is JSON; what a spectator sees every seat sees;
  a card a seat's view shows and a spectator's does not, no other seat's view shows;
  a card an event shows a viewer (``redact``) is one its view shows before or after that
  event; and two worlds whose last shuffle differs only in two cards nobody has seen
  (named by no later event, shown by no view of the viewer) look the same to that viewer:
  the same view, the same legal moves, the same seats to act, the same redacted shuffle.

It uses the standard library and ``domain`` only. A failure raises
:class:`ConformanceError` naming the game, the random game (its seed) and the step.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from domain.cards import DECK
from domain.errors import DomainError
from domain.events import Event, event_data
from domain.fairness import Shuffled, commitment
from domain.game import Game

__all__ = ["ConformanceError", "Report", "check_game"]

#: How often a seat offered a move out of turn takes it instead of the seat to act.
OUT_OF_TURN = 0.2
#: The kinds of house bot a game may bring its own play for (the API's ``{"bot": …}``).
BOT_KINDS = ("random", "greedy")
#: Pairs of unseen cards swapped at each leak check.
SWAPS = 3
#: A JSON string without escapes (a card's code is one), its text in the group.
STRING = re.compile(r'"([^"\\]*)"')


class ConformanceError(AssertionError):
    """A game broke the interface's contract: what, in which random game, at which step."""


@dataclasses.dataclass
class Report:
    """What :func:`check_game` did: games played to the end, moves, events, and leak comparisons made."""

    games: int = 0
    moves: int = 0
    events: int = 0
    unseen_swaps: int = 0


def check_game(
    game: Game,
    *,
    games: int = 10,
    seed: int = 0,
    players: Sequence[int] | None = None,
    options: Sequence[Mapping[str, Any]] = ({},),
    every: int = 10,
    max_steps: int = 50_000,
) -> Report:
    """Play ``games`` random games of ``game`` to the end, checking the contract (module docstring) at every step.

    Player counts go round ``players`` (every count the game allows by default), options
    round ``options``; each game's moves and chance outcomes come from ``random.Random``
    seeded by ``seed`` and the game's number, so a failure is replayed by its seed.
    The costlier checks (a snapshot's round trip, worlds of swapped unseen cards) run at one step
    in ``every``, chosen at random, and a snapshot at the end too;
    a game taking more than ``max_steps`` steps fails. Raises :class:`ConformanceError`.
    """
    counts = list(players or range(game.min_players, game.max_players + 1))
    report = Report()
    for number in range(games):
        run = _Run(game, counts[number % len(counts)], options[number % len(options)], f"{seed}:{number}", report)
        run.play(every, max_steps)
        report.games += 1
    return report


class _Run:
    """One random game, checked as it is played."""

    def __init__(self, game: Game, players: int, options: Mapping[str, Any], seed: str, report: Report) -> None:
        self.game, self.players, self.seed, self.report = game, players, seed, report
        self.rng = random.Random(seed)
        self.options = game.validate_options(players, dict(options))
        self.start = game.start(players, self.options)
        self.state = self.start
        self.log: list[Event] = []
        self.cards: set[str] = set(DECK)
        self.viewers: tuple[int | None, ...] = (None, *range(players))
        #: The last shuffle's place in the log and the state before it.
        self.last_shuffle: tuple[int, Any] | None = None
        #: The cards each viewer's view of the state names.
        self.visible = {viewer: self.seen(viewer) for viewer in self.viewers}

    def fail(self, what: str) -> ConformanceError:
        return ConformanceError(f"{self.game.rules_version}, {self.players} players, options {self.options}, "
                                f"seed {self.seed!r}, after {len(self.log)} events: {what}")

    # -- playing ------------------------------------------------------------
    def play(self, every: int, max_steps: int) -> None:
        game = self.game
        steps = 0
        while not game.is_over(self.state):
            if steps >= max_steps:
                raise self.fail(f"the game did not end in {max_steps} steps of random play")
            self.check_state()
            deep = self.rng.random() * every < 1
            if deep:
                self.check_snapshot()
            request = game.chance(self.state)
            if request is not None:
                self.cards.update(request.cards)
                order = self.rng.sample(list(request.cards), len(request.cards))
                self.apply([request.outcome(order, f"{self.rng.getrandbits(128):032x}")])
            else:
                self.apply(self.random_move())
                self.report.moves += 1
            steps += 1
            if deep:
                self.check_unseen_swaps()
        result = game.result(self.state)
        winners = result.get("winners") if isinstance(result, Mapping) else None
        if not isinstance(winners, list) or not all(isinstance(seat, int) and 0 <= seat < self.players
                                                    for seat in winners):
            raise self.fail(f"the game is over but its result {result} names no winners (a list of its seats)")
        self.check_snapshot()
        self.check_replay()

    def random_move(self) -> list[Event]:
        """The events of a random legal move: of a seat to act, or now and then one offered out of turn."""
        game, state = self.game, self.state
        to_act = tuple(game.to_act(state))
        offered = {seat: self.legal_moves(seat) for seat in range(self.players)}
        for seat in to_act:
            if not offered[seat]:
                raise self.fail(f"seat {seat} is to act but has no legal move")
            self.check_default_moves(seat)
        for seat, moves in offered.items():
            if moves:
                self.check_house_bots(seat, to_act, moves)
        others = [seat for seat in range(self.players) if seat not in to_act and offered[seat]]
        if list(game.out_of_turn(state, self.players)) != others:
            raise self.fail(f"out_of_turn names seats {list(game.out_of_turn(state, self.players))}, but legal_moves "
                            f"offers seats {others} not to act a move")
        if not to_act and not others:
            raise self.fail("the game is not over, waits for no chance outcome and offers nobody a move")
        seat = self.rng.choice(others if others and (not to_act or self.rng.random() < OUT_OF_TURN) else to_act)
        return self.decided(seat, self.rng.choice(offered[seat]))

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        """The seat's legal moves as API objects, each one checked to decide."""
        moves = [move.as_dict() for move in self.game.legal_moves(self.state, seat)]
        for move in moves:
            self.evolved(self.state, self.decided(seat, move))
        return moves

    def decided(self, seat: int, move: Mapping[str, Any], state: Any = None) -> list[Event]:
        """The events of ``seat``'s ``move`` (an API object), checked to be of the game's stored kinds."""
        game = self.game
        state = self.state if state is None else state
        try:
            parsed = game.parse_move(move)
            if parsed.as_dict() != dict(move):
                raise self.fail(f"the move {move} reads back as {parsed.as_dict()}")
            events = game.decide(state, seat, parsed)
        except DomainError as refused:
            raise self.fail(f"seat {seat}'s listed move {move} is refused: {refused}") from refused
        if not events:
            raise self.fail(f"seat {seat}'s move {move} sets off no event")
        for event in events:
            self.check_stored_form(event)
        return events

    def apply(self, events: list[Event]) -> None:
        """Fold the events of one decision (or one chance outcome); then check what each showed its viewers."""
        shown = {viewer: set(cards) for viewer, cards in self.visible.items()}
        for event in events:
            if isinstance(event, Shuffled):
                self.last_shuffle = (len(self.log), self.state)
            self.state = self.evolved(self.state, [event])
            self.visible = {viewer: self.seen(viewer) for viewer in self.viewers}
            for viewer, cards in self.visible.items():
                shown[viewer] |= cards
            self.log.append(event)
            self.report.events += 1
        for event in events:
            self.check_redaction(event, shown)

    def evolved(self, state: Any, events: Iterable[Event]) -> Any:
        for event in events:
            try:
                state = self.game.evolve(state, event)
            except Exception as error:  # (a game's fold must take every event its decide or chance gave)
                raise self.fail(f"evolve refused {event}: {error!r}") from error
        return state

    # -- the checks -----------------------------------------------------------
    def check_stored_form(self, event: Event) -> None:
        catalog = self.game.events
        name = type(event).type_name()
        if name not in catalog or catalog.event_class(name) is not type(event):
            raise self.fail(f"{name} is not one of the game's event_classes")
        stored = json.loads(json.dumps(event_data(event)))
        if catalog.decode(name, event.seat, stored) != event:
            raise self.fail(f"{event} does not read back equal from its stored form {stored}")

    def check_state(self) -> None:
        game, state = self.game, self.state
        if game.result(state) is not None:
            raise self.fail("result is not None before the game is over")
        self.check_views()

    def check_snapshot(self) -> None:
        game, state = self.game, self.state
        try:
            copy = game.decode_state(json.loads(json.dumps(game.encode_state(state))))
        except (TypeError, ValueError, KeyError) as error:
            raise self.fail(f"the state does not round-trip through encode_state/decode_state: {error!r}") from error
        if copy != state:
            raise self.fail("decode_state(encode_state(state)) differs from the state")

    def check_views(self) -> None:
        seen = self.visible
        public = seen[None]
        for seat in range(self.players):
            if not public <= seen[seat]:
                raise self.fail(f"a spectator sees {sorted(public - seen[seat])}, which seat {seat} does not")
        for seat in range(self.players):
            private = seen[seat] - public
            for other in range(self.players):
                if other != seat and private & seen[other]:
                    raise self.fail(f"seat {other} sees {sorted(private & seen[other])} of seat {seat}'s own cards")

    def seen(self, viewer: int | None, state: Any = None) -> set[str]:
        """The cards ``viewer``'s view names (the view checked to be JSON)."""
        view = self.game.view(self.state if state is None else state, viewer, False)
        try:
            json.dumps(view)
        except (TypeError, ValueError) as error:
            raise self.fail(f"the view of {_who(viewer)} is not JSON data: {error}") from error
        return self.named(view)

    def named(self, data: Any) -> set[str]:
        """The cards named anywhere in JSON ``data``."""
        return set(STRING.findall(json.dumps(data))) & self.cards

    def check_redaction(self, event: Event, shown: Mapping[int | None, set[str]]) -> None:
        """A card an event shows a viewer is one that viewer's view shows before, while or after the
        decision that set the event off is folded (``shown``)."""
        if self.game.is_over(self.state):
            return
        for viewer in self.viewers:
            hidden = self.named(self.game.redact(event, viewer, False)) - shown[viewer]
            if hidden:
                raise self.fail(f"{type(event).type_name()} shows {_who(viewer)} {sorted(hidden)}, which its "
                                f"view shows neither before, while nor after the events of that move")

    def check_default_moves(self, seat: int) -> None:
        """The moves a timed-out turn plays for ``seat`` are each listed when played, with no chance between."""
        game, state = self.game, self.state
        moves = game.default_moves(state, seat)
        if not moves:
            raise self.fail(f"default_moves gives seat {seat}, to act, no move")
        for index, move in enumerate(moves):
            if index and game.chance(state) is not None:
                raise self.fail(f"seat {seat}'s default moves {moves} wait for a chance outcome between them")
            listed = [legal.as_dict() for legal in game.legal_moves(state, seat)]
            if move.as_dict() not in listed:
                raise self.fail(f"seat {seat}'s default move {move.as_dict()} is not among its legal moves {listed}")
            state = self.evolved(state, self.decided(seat, move.as_dict(), state))

    def check_house_bots(self, seat: int, to_act: Sequence[int], moves: list[dict[str, Any]]) -> None:
        """The game's own house bots (``house_bot``) pick one of the moves listed in the view they are shown."""
        for kind in BOT_KINDS:
            bot = self.game.house_bot(kind)
            if bot is None:
                continue
            view = {"version": len(self.log), "status": "active", "seat": seat, "to_act": list(to_act),
                    "legal_moves": [dict(move) for move in moves], "state": self.game.view(self.state, seat, False),
                    "result": None}
            chosen = bot(view, self.rng)
            if chosen not in moves:
                raise self.fail(f"the {kind} house bot of seat {seat} chose {chosen}, not one of its legal moves {moves}")

    def check_replay(self) -> None:
        """The log, through its stored JSON form, folds from the start to the state played step by step."""
        catalog = self.game.events
        stored = json.loads(json.dumps([(type(event).type_name(), event.seat, event_data(event)) for event in self.log]))
        folded = self.evolved(self.start, (catalog.decode(name, seat, data) for name, seat, data in stored))
        if folded != self.state:
            raise self.fail("the stored log folds to another state than the one played step by step")

    def check_unseen_swaps(self) -> None:
        """Swap two cards of the last shuffle that nobody has seen: each viewer who sees neither sees no change."""
        if self.game.is_over(self.state) or self.game.chance(self.state) is not None:
            return  # (a game waiting for a deal is done with the last one's cards: a round's scores may tell of them)
        if self.last_shuffle is None:
            return
        at, before = self.last_shuffle
        shuffle = self.log[at]
        assert isinstance(shuffle, Shuffled)
        later = self.named([event_data(event) for event in self.log[at + 1 :]])
        unnamed = [index for index, card in enumerate(shuffle.order) if card not in later]
        if len(unnamed) < 2:
            return
        looks = {viewer: self.looks(viewer, self.state, shuffle) for viewer in self.viewers}
        for _ in range(SWAPS):
            i, j = self.rng.sample(unnamed, 2)
            order = list(shuffle.order)
            order[i], order[j] = order[j], order[i]
            other = dataclasses.replace(shuffle, order=tuple(order), commitment=commitment(shuffle.salt or "", order))
            world = self.evolved(before, [other, *self.log[at + 1 :]])
            for viewer in self.viewers:
                if {order[i], order[j]} & (self.visible[viewer] | self.seen(viewer, world)):
                    continue
                self.report.unseen_swaps += 1
                difference = _difference(looks[viewer], self.looks(viewer, world, other))
                if difference:
                    raise self.fail(f"{_who(viewer)} sees a difference between two worlds that differ only in "
                                    f"where {order[j]} and {order[i]}, unseen, lie in the last shuffle: {difference}")

    def looks(self, viewer: int | None, state: Any, shuffle: Shuffled) -> dict[str, Any]:
        """What ``viewer`` can tell of ``state``: its view, its legal moves, who is to act, the shuffle as redacted
        (but for the commitment, which differs as it must)."""
        game = self.game
        redacted = dict(game.redact(shuffle, viewer, False) or {})
        redacted.pop("commitment", None)
        return {"view": game.view(state, viewer, False),
                "legal_moves": [] if viewer is None else [move.as_dict() for move in game.legal_moves(state, viewer)],
                "to_act": list(game.to_act(state)), "redacted shuffle": redacted}


def _difference(one: Any, other: Any, path: tuple[Any, ...] = ()) -> str | None:
    """Where JSON-like ``one`` and ``other`` first differ (``view.scores.1``) and how; None if nowhere."""
    if isinstance(one, Mapping) and isinstance(other, Mapping):
        pairs = [(key, one.get(key), other.get(key)) for key in [*one, *(key for key in other if key not in one)]]
    elif isinstance(one, list | tuple) and isinstance(other, list | tuple) and len(one) == len(other):
        pairs = [(index, item, counterpart) for index, (item, counterpart) in enumerate(zip(one, other))]
    else:
        return None if one == other else f"{'.'.join(map(str, path))}: {one!r} against {other!r}"
    for key, item, counterpart in pairs:
        found = _difference(item, counterpart, (*path, key))
        if found:
            return found
    return None


def _who(viewer: int | None) -> str:
    return "a spectator" if viewer is None else f"seat {viewer}"

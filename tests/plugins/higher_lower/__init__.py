"""Higher-Lower, a game that exists only for the tests: it proves a game is a plug-in.

One deck is shuffled and its top card turned up. In turn from seat 0, each
player calls whether the next card of the deck ranks higher or lower than the
face-up one (ace low; a tie is wrong); the next card is turned up and a right
call scores a point. After ``GUESSES`` calls each, the highest score wins.

It lives in ``tests/plugins`` with its own ``*.dist-info``, whose entry point
(group ``cardhall.games``) is all that registers it; the field kind of its one
move is its own, and so is its greedy house bot (:func:`greedy`, offered by
:meth:`HigherLower.house_bot`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from domain.cards import DECK, RANK_NUMBER
from domain.errors import NotYourTurn
from domain.events import Event
from domain.fairness import Shuffled
from domain.game import ChanceRequest, Game, HouseBot, Rng
from domain.moves import FieldKind, Move, field

GUESSES = 3
DEAL, GUESS, OVER = "deal", "guess", "over"
DIRECTION = FieldKind(lambda value: value in ("higher", "lower"), "'higher' or 'lower'", {"enum": ["higher", "lower"]})


@dataclasses.dataclass(frozen=True, slots=True)
class Guess(Move):
    """Call the next card higher or lower than the face-up one."""

    type: ClassVar[str] = "guess"
    examples = (("guess", "the next card ranks higher", {"direction": "higher"}),)
    direction: str = field(DIRECTION)


@dataclasses.dataclass(frozen=True, slots=True)
class DeckShuffled(Shuffled):
    """The deck was shuffled into ``order``; its top card is turned up."""


@dataclasses.dataclass(frozen=True, slots=True)
class Guessed(Event):
    """``seat`` called the next card ``direction``; it is turned up."""

    direction: str


@dataclasses.dataclass(frozen=True, slots=True)
class HigherLowerState:
    """The deck as dealt, how many of its cards are face up, whose call it is and the scores."""

    phase: str
    order: tuple[str, ...]
    turned: int
    turn: int
    scores: tuple[int, ...]


def _right(state: HigherLowerState, direction: str) -> bool:
    up, following = (RANK_NUMBER[card[0]] for card in state.order[state.turned - 1 : state.turned + 1])
    return following > up if direction == "higher" else following < up


def evolve(state: HigherLowerState, event: Event) -> HigherLowerState:
    """The state after ``event``."""
    if isinstance(event, DeckShuffled):
        return dataclasses.replace(state, phase=GUESS, order=event.order, turned=1)
    assert isinstance(event, Guessed)
    players = len(state.scores)
    scores = tuple(score + (seat == event.seat and _right(state, event.direction))
                   for seat, score in enumerate(state.scores))
    over = state.turned == GUESSES * players
    return dataclasses.replace(state, phase=OVER if over else GUESS, turned=state.turned + 1,
                               turn=(state.turn + 1) % players, scores=scores)


def greedy(view: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """The greedy bot's call: higher from a card below 7 (ace low), lower from one above; from a 7 either."""
    up = RANK_NUMBER[view["state"]["top_card"][0]]
    direction = "higher" if up < 7 else "lower" if up > 7 else rng.choice(["higher", "lower"])
    return {"type": "guess", "direction": direction}


class HigherLower(Game):
    """Higher-Lower (test only)."""

    name = "higher_lower"
    title = "Higher-Lower"
    max_players = 4
    move_classes = (Guess,)
    event_classes = (DeckShuffled, Guessed)

    def start(self, players: int, options: Mapping[str, Any]) -> HigherLowerState:
        return HigherLowerState(DEAL, (), 0, 0, (0,) * players)

    def chance(self, state: HigherLowerState) -> ChanceRequest | None:
        return ChanceRequest("deal", DECK, DeckShuffled, deal=0) if state.phase == DEAL else None

    def to_act(self, state: HigherLowerState) -> tuple[int, ...]:
        return (state.turn,) if state.phase == GUESS else ()

    def legal_moves(self, state: HigherLowerState, seat: int) -> list[Move]:
        return [Guess("higher"), Guess("lower")] if seat in self.to_act(state) else []

    def decide(self, state: HigherLowerState, seat: int, move: Move) -> list[Event]:
        if seat not in self.to_act(state):
            raise NotYourTurn(f"it is seat {state.turn}'s call")
        assert isinstance(move, Guess)
        return [Guessed(seat, direction=move.direction)]

    def default_moves(self, state: HigherLowerState, seat: int) -> list[Move]:
        return [Guess("higher")]

    def evolve(self, state: HigherLowerState, event: Event) -> HigherLowerState:
        return evolve(state, event)

    def view(self, state: HigherLowerState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        face_up = list(state.order[: state.turned])
        return {"phase": state.phase, "turn": state.turn, "scores": list(state.scores), "dealer": None,
                "dealer_draws": [], "hand": None if seat is None else [], "hand_sizes": [0] * len(state.scores),
                "hands": [[] for _ in state.scores], "top_card": face_up[-1] if face_up else None, "discard": face_up}

    def is_over(self, state: HigherLowerState) -> bool:
        return state.phase == OVER

    def result(self, state: HigherLowerState) -> dict[str, Any] | None:
        if state.phase != OVER:
            return None
        best = max(state.scores)
        return {"winners": [seat for seat, score in enumerate(state.scores) if score == best],
                "scores": list(state.scores)}

    def house_bot(self, kind: str) -> HouseBot | None:
        return greedy if kind == "greedy" else None


GAME = HigherLower()

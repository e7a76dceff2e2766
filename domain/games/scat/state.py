"""Scat's state and its fold: ``evolve(state, event)`` for every event (S2–S7, S10–S12).

The state is immutable; each event gives a new one, made by editing a draft of
the old (:mod:`domain.copying`). ``phase`` says what the
game waits for: the ``dealer_draw`` or ``deal`` shuffle (chance), the player
on ``turn`` to ``draw`` (or knock) or to ``discard``, nothing while a hand is
being settled (``showdown``, ``void``: a moment inside one decision), or
nothing ever again (``over``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from domain.cards import RANK_NUMBER
from domain.copying import copier, freezer, maker
from domain.events import Event
from domain.game import EventCapReached
from domain.games.scat.events import (
    CardDiscarded,
    CardDrawn,
    DealerDrawShuffled,
    DeckShuffled,
    HandSettled,
    HandVoided,
    Knocked,
    ThirtyOneDeclared,
    ThrewDown,
)
from domain.games.scat.rules import (
    DEAL,
    DEALER_DRAW,
    DISCARD,
    DRAW,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OVER,
    SHOWDOWN,
    STOCK,
    VOID,
    hand_value,
    lose_lives,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Rules:
    """The table's fixed settings: player count and the Scat options (S2, S9)."""

    players: int
    lives: int
    three_of_a_kind: bool
    straight_flush: bool
    min_knock: int
    throw_down: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Settlement:
    """How a hand ended: why, who lost how many lives, which hands were shown (S10, S11, S13)."""

    hand_number: int
    reason: str
    knocker: int | None
    declarer: int | None
    hands: tuple[tuple[str, ...] | None, ...]
    values: tuple[int | None, ...]
    lost: tuple[int, ...]
    eliminated: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class ScatState:
    """Everything about a game of Scat after some events."""

    rules: Rules
    phase: str
    dealer: int | None
    dealer_draws: tuple[tuple[tuple[int, str], ...], ...]  # each round of the dealer draw
    hand_number: int  # hands dealt so far
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]  # index 0 the top card
    discard: tuple[str, ...]  # bottom to top
    turn: int | None
    turns_taken: int  # turns finished this hand
    knocker: int | None
    taken: str | None  # the card just drawn from the discard pile (S5)
    lives: tuple[int, ...]
    out: tuple[bool, ...]
    last_settlement: Settlement | None


def initial_state(players: int, options: Mapping[str, Any]) -> ScatState:
    """The state before any chance: a dealer draw, unless ``first_dealer`` fixes the dealer."""
    rules = Rules(
        players,
        options["lives"],
        options["three_of_a_kind"],
        options["straight_flush"],
        options["min_knock"],
        options["throw_down"],
    )
    dealer = options.get("first_dealer")
    return ScatState(
        rules=rules,
        phase=DEAL if dealer is not None else DEALER_DRAW,
        dealer=dealer,
        dealer_draws=(),
        hand_number=0,
        hands=((),) * players,
        stock=(),
        discard=(),
        turn=None,
        turns_taken=0,
        knocker=None,
        taken=None,
        lives=(rules.lives,) * players,
        out=(False,) * players,
        last_settlement=None,
    )


def value_of(state: ScatState, cards: tuple[str, ...]) -> int:
    """A hand's value under this table's options (S8, S9)."""
    rules = state.rules
    return hand_value(cards, rules.three_of_a_kind, rules.straight_flush)


def final_result(state: ScatState) -> dict[str, Any]:
    """The winners, the last player left (S12), and everyone's lives."""
    return {"winners": [seat for seat, gone in enumerate(state.out) if not gone], "lives": list(state.lives)}


#: For each table size, each seat's neighbours from its left round to the seat itself (S3, S4, S5: play and the deal
#: pass to the left).
ROUND = {players: tuple(tuple((seat + step) % players for step in range(1, players + 1)) for seat in range(players))
         for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def next_in(state: ScatState, seat: int, out: tuple[bool, ...] | None = None) -> int:
    """The next seat to the left of ``seat`` that is still in the game (S3, S5)."""
    out = state.out if out is None else out
    for candidate in ROUND[state.rules.players][seat]:
        if not out[candidate]:
            return candidate
    raise AssertionError("nobody is left in the game")


def in_play(state: ScatState) -> int:
    """How many players are still in the game."""
    return state.out.count(False)


def contenders(state: ScatState) -> tuple[int, ...]:
    """The seats drawing for the deal: everyone, then those tied lowest in the last draw (S3, C4)."""
    if not state.dealer_draws:
        return tuple(range(state.rules.players))
    draws = state.dealer_draws[-1]
    lowest = min(RANK_NUMBER[card[0]] for _, card in draws)
    return tuple(seat for seat, card in draws if RANK_NUMBER[card[0]] == lowest)


def shown(state: ScatState, seat: int) -> bool:
    """Whether ``seat``'s hand was shown at the settlement that just ended the hand (S13)."""
    settlement = state.last_settlement
    return state.phase == DEAL and settlement is not None and settlement.hands[seat] is not None


_FIELDS = tuple(field.name for field in dataclasses.fields(ScatState))


class _Draft:
    """A mutable working copy of a state: evolve edits it, then freezes it (the helpers above read it as a state)."""

    __slots__ = _FIELDS


_draft, _freeze = copier(_Draft, _FIELDS), freezer(_Draft, ScatState)
#: A settlement is made at the end of every hand, as the class would make it.
_settlement = maker(Settlement)


def _dealer_draw(draft: _Draft, event: DealerDrawShuffled) -> None:
    draft.dealer_draws += (tuple(zip(contenders(draft), event.order)),)
    low = contenders(draft)
    if len(low) == 1:
        draft.dealer, draft.phase = low[0], DEAL


def _deal(draft: _Draft, event: DeckShuffled) -> None:
    players = draft.rules.players
    # the seats still in, from the dealer's left round to the dealer, each dealt every count-th card of the first 3 x count
    seats = [seat for seat in ROUND[players][draft.dealer] if not draft.out[seat]]
    count = len(seats)
    order = event.order
    hands = [()] * players
    for index, seat in enumerate(seats):
        hands[seat] = order[index : 3 * count : count]
    draft.phase, draft.hand_number, draft.hands = DRAW, draft.hand_number + 1, tuple(hands)
    draft.discard, draft.stock = (order[3 * count],), order[3 * count + 1 :]
    draft.turn, draft.turns_taken, draft.knocker, draft.taken = seats[0], 0, None, None


def _drawn(draft: _Draft, event: CardDrawn) -> None:
    hands = list(draft.hands)
    hands[event.seat] += (event.card,)
    draft.hands = tuple(hands)
    draft.phase = DISCARD
    if event.source == STOCK:
        draft.stock = draft.stock[1:]
    else:
        draft.discard, draft.taken = draft.discard[:-1], event.card


def after_turn(state: ScatState, seat: int) -> tuple[str, int | None]:
    """The phase and the seat on turn once ``seat`` ends its turn: the hand ends after the knock round (S6) or on
    an empty stock (S7), else the next seat in draws. (A discard changes neither the knocker nor the stock, so
    ``decide`` asks the state before it.)"""
    following = next_in(state, seat)
    if state.knocker is not None and following == state.knocker:
        return SHOWDOWN, None
    if state.knocker is None and not state.stock:
        return VOID, None
    return DRAW, following



def without(hands: tuple[tuple[str, ...], ...], seat: int, card: str) -> tuple[tuple[str, ...], ...]:
    """The hands once ``seat`` has discarded ``card`` (the fold's, and a showdown's decided before it)."""
    changed, hand = list(hands), list(hands[seat])
    hand.remove(card)
    changed[seat] = tuple(hand)
    return tuple(changed)


def _discarded(draft: _Draft, event: CardDiscarded) -> None:
    draft.hands = without(draft.hands, event.seat, event.card)
    draft.discard += (event.card,)
    draft.taken = None
    draft.turns_taken += 1
    draft.phase, draft.turn = after_turn(draft, event.seat)


def _knocked(draft: _Draft, event: Knocked) -> None:
    draft.knocker = event.seat
    draft.turns_taken += 1
    draft.phase, draft.turn = after_turn(draft, event.seat)


def _threw_down(draft: _Draft, event: ThrewDown) -> None:
    draft.knocker, draft.phase, draft.turn = event.seat, SHOWDOWN, None


def _declared(draft: _Draft, event: ThirtyOneDeclared) -> None:
    draft.phase, draft.turn = SHOWDOWN, None


def _next_hand(draft: _Draft, settlement: Settlement, lives: tuple, out: tuple) -> None:
    over = out.count(False) == 1
    if not over:
        draft.dealer = next_in(draft, draft.dealer, out)
    draft.lives, draft.out, draft.last_settlement = lives, out, settlement
    draft.phase, draft.turn, draft.taken = OVER if over else DEAL, None, None


def _settled(draft: _Draft, event: HandSettled) -> None:
    lives, out, eliminated = list(draft.lives), list(draft.out), []
    for seat, lost in enumerate(event.lost):
        if lost:
            lives[seat], out[seat] = lose_lives(lives[seat], lost)
            if out[seat] and not draft.out[seat]:
                eliminated.append(seat)
    settlement = _settlement(
        draft.hand_number, event.reason, event.knocker, event.declarer, event.hands, event.values, event.lost,
        tuple(eliminated),
    )
    _next_hand(draft, settlement, tuple(lives), tuple(out))


def _voided(draft: _Draft, event: HandVoided) -> None:
    players = draft.rules.players
    settlement = _settlement(draft.hand_number, "void", None, None, (None,) * players, (None,) * players,
                             (0,) * players, ())
    _next_hand(draft, settlement, draft.lives, draft.out)


def _capped(draft: _Draft, event: EventCapReached) -> None:
    """S14: the game ends at its event cap; the players still in with the most lives win, the rest count as out."""
    most = max(lives for lives, gone in zip(draft.lives, draft.out, strict=True) if not gone)
    draft.out = tuple(gone or lives < most for lives, gone in zip(draft.lives, draft.out, strict=True))
    draft.phase = OVER


_FOLD = {
    DealerDrawShuffled: _dealer_draw,
    DeckShuffled: _deal,
    CardDrawn: _drawn,
    CardDiscarded: _discarded,
    Knocked: _knocked,
    ThrewDown: _threw_down,
    ThirtyOneDeclared: _declared,
    HandSettled: _settled,
    HandVoided: _voided,
    EventCapReached: _capped,
}


def evolve(state: ScatState, event: Event) -> ScatState:
    """The state after one more event."""
    draft = _draft(state)
    _FOLD[type(event)](draft, event)
    return _freeze(draft)

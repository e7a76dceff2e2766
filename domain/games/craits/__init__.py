"""Craits: a shedding game like Crazy Eights, over 15 (or 8) rounds of shrinking hands.

The rules are ``docs/rules/craits.md``; rule ids (C1 … C17) are cited where
each one is applied; each reading we chose where the text is open stands there
beside its rule (``docs/rules-notes.md`` indexes them). In short:

* a dealer is drawn (C4); each round the deal passes left and deals 8, 7, … 1,
  … 8 cards (C3, C5); the up-card acts as the dealer's first play (C6);
* on a turn a player plays a card matching the active suit or the top card's
  rank (8s are wild), or draws one card if none can be played (C7, C8); an
  empty draw pile is refilled lazily from the discard, and a round in which
  nobody can play or draw ends as a block (C9);
* cards have abilities (C10); a 2 starts a crank answered by aces and 2s (C11);
* a play leaving one card must be announced, or anyone may call the player
  out: two cards and a lost turn (C12);
* the round ends when a player is out once their last card's ability has run
  its course (C13); the others score their hands, 3s cancelling (C14, C15);
  lowest total wins (C16); a seat sees only what C17 allows;
* under rules version 2 a game ends after at most ``MAX_EVENTS`` events, with the
  totals as they stand (C18).

Chance is data: the dealer draw, every deal and every reshuffle is a
:class:`ChanceRequest` whose outcome event carries the full card order.
Draws are queued in the state (``pending``) and taken from the pile as events
are evolved; when the pile runs dry the queue waits for the reshuffle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.cards import DECK
from domain.events import Event
from domain.game import ChanceRequest, EventCapReached, Game, HouseBot
from domain.games.craits import bots
from domain.games.craits.decide import decide, default_moves, legal_moves, out_of_turn, to_act
from domain.games.craits.events import (
    CardPlayed,
    CardsDrawn,
    DealerDrawShuffled,
    OneCardAnnounced,
    PileReshuffled,
    PlayerCalledOut,
    RoundDealt,
    SuitChosen,
)
from domain.games.craits.moves import Announce, Call, ChooseSuit, Draw, Play
from domain.games.craits.rules import (
    CARD_POINTS,
    DEAL,
    DEALER_DRAW,
    HAND_SIZES,
    MAX_EVENTS,
    MAX_PLAYERS,
    OVER,
    PLAY,
    SHORT_ROUNDS,
    hand_score,
    matches,
    nine_suits,
)
from domain.games.craits.state import CraitsState, evolve, final_result
from domain.games.craits.view import render
from domain.moves import Move
from domain.options import OptionSpec, first_dealer

__all__ = [
    "CARD_POINTS",
    "GAME",
    "HAND_SIZES",
    "OVER",
    "Announce",
    "Call",
    "CappedCraits",
    "CardPlayed",
    "CardsDrawn",
    "ChooseSuit",
    "Craits",
    "CraitsState",
    "DealerDrawShuffled",
    "Draw",
    "OneCardAnnounced",
    "PileReshuffled",
    "Play",
    "PlayerCalledOut",
    "RoundDealt",
    "SuitChosen",
    "hand_score",
    "matches",
    "nine_suits",
]


class Craits(Game):
    """Craits (rules C1–C17)."""

    name = "craits"
    title = "Craits"
    min_players = 2
    max_players = MAX_PLAYERS
    own_options = (
        first_dealer("C4"),
        OptionSpec("short", "bool", "Play only the first 8 rounds, 8 cards down to 1 (C3).", default=False),
    )
    move_classes = (Play, Draw, ChooseSuit, Announce, Call)
    event_classes = (DealerDrawShuffled, RoundDealt, PileReshuffled, CardPlayed, CardsDrawn, SuitChosen,
                     OneCardAnnounced, PlayerCalledOut)

    def start(self, players: int, options: Mapping[str, Any]) -> CraitsState:
        """The state before the dealer draw (C4) or, with ``first_dealer``, before the first deal."""
        dealer = options.get("first_dealer")
        return CraitsState(
            players=players, rounds=SHORT_ROUNDS if options.get("short") else len(HAND_SIZES),
            phase=DEALER_DRAW if dealer is None else DEAL, dealer=dealer,
            drawers=tuple(range(players)) if dealer is None else (), dealer_draws=(), round=0,
            hands=((),) * players, pile=(), discard=(), active_suit=None, direction=1, crank=0, turn=None,
            choosing=False, pending=(), check_out=False, passes=0, unannounced=(), announced=(), skip_next=(),
            scores=(0,) * players, round_scores=(), blocked=(),
        )

    def chance(self, state: CraitsState) -> ChanceRequest | None:
        """The dealer draw, the next deal or a reshuffle, when the game waits for one."""
        if state.phase == PLAY:
            if state.pending:
                return ChanceRequest("reshuffle", state.discard[:-1], PileReshuffled)
            return None
        if state.phase == DEAL:
            return ChanceRequest("deal", DECK, RoundDealt, deal=state.round)
        if state.phase == DEALER_DRAW:
            return ChanceRequest("dealer_draw", DECK, DealerDrawShuffled)
        return None

    def to_act(self, state: CraitsState) -> tuple[int, ...]:
        """The seat whose turn it is (out-of-turn moves never count)."""
        return to_act(state)

    def legal_moves(self, state: CraitsState, seat: int) -> list[Move]:
        """Every move ``seat`` may make now, announce and call-outs included."""
        return legal_moves(state, seat)

    def out_of_turn(self, state: CraitsState, players: int) -> tuple[int, ...]:
        """Every seat but the one on turn while a seat may be called out (C12)."""
        return out_of_turn(state, players)

    def decide(self, state: CraitsState, seat: int, move: Move) -> list[Event]:
        """The events ``move`` sets off, or the typed error refusing it."""
        return decide(state, seat, move)

    def default_moves(self, state: CraitsState, seat: int) -> list[Move]:
        """The move played for a seat whose turn timed out (see ``decide.default_moves``)."""
        return default_moves(state, seat)

    def evolve(self, state: CraitsState, event: Event) -> CraitsState:
        """The state after ``event``."""
        return evolve(state, event)

    def view(self, state: CraitsState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        """What ``seat`` may see (C17); everything once ``reveal_all``."""
        return render(state, seat, reveal_all)

    def is_over(self, state: CraitsState) -> bool:
        """Whether the last round has been scored."""
        return state.phase == OVER

    def result(self, state: CraitsState) -> dict[str, Any] | None:
        """The winners, lowest total (C16), and the totals."""
        return final_result(state) if state.phase == OVER else None

    def house_bot(self, kind: str) -> HouseBot | None:
        """The greedy bot's play (``bots.greedy``); the house plays every other kind at random."""
        return bots.greedy if kind == "greedy" else None


class CappedCraits(Craits):
    """Craits' rules version 2: version 1 and C18, an event cap."""

    version = 2
    max_events = MAX_EVENTS
    event_classes = (*Craits.event_classes, EventCapReached)
    older_versions = (Craits(),)


GAME = CappedCraits()

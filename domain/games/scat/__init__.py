"""Scat (31, Blitz), rules S1–S13 of ``docs/rules/scat.md``.

Two to nine players (S1) start with three lives each (S2, option ``lives``); a
player who has lost them all is *on the county*, still playing, and the next
life lost puts them out. The first dealer is drawn for, lowest card deals
(S3, as Craits' C4), and the deal passes left after every hand, skipping
players who are out. Each hand the dealer deals three cards to everyone still
in, turns one card up to start the discard pile, and the rest is the stock
(S4). From the dealer's left, a turn is a knock, or a draw (stock or discard
pile) and a discard — never of the card just taken from the discard pile (S5).
After a knock everyone else has one more turn, then all hands are shown (S6).
If the stock runs out with nobody knocked the hand is void (S7). A hand is
worth its best single-suit total, ace 11, court cards 10 (S8); options score
three of a kind and straight flushes, set a minimum knock, or allow a
throw-down (S9). At a showdown the lowest hand loses a life, the knocker is
saved on a tie and loses two alone lowest (S10). Three cards worth 31 may be
declared at any moment, out of turn too: everyone else loses a life (S11). The
last player left wins (S12). Hands are secret until shown (S13). Under rules
version 2 a game ends after at most ``MAX_EVENTS`` events, won by those still in with
the most lives, and options too slow to end are refused (S14).

The package is laid out as every game's: ``rules`` (constants, hand values and
lives arithmetic), ``events``, ``moves``, ``decide`` (legal moves and
decisions), ``state`` (the fold), ``view`` (what a seat sees), and here the
game behind :class:`domain.game.Game`. Decisions where the source is silent
stand beside their rules in ``docs/rules/scat.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from domain.cards import DECK
from domain.errors import InvalidOptions
from domain.events import Event, event_data
from domain.game import ChanceRequest, EventCapReached, Game, HouseBot
from domain.games.scat import bots
from domain.games.scat.decide import decide, default_moves, legal_moves, out_of_turn, to_act
from domain.games.scat.events import EVENTS, CardDrawn, DealerDrawShuffled, DeckShuffled
from domain.games.scat.moves import MOVES
from domain.games.scat.rules import (
    DEAL,
    DEALER_DRAW,
    MAX_EVENTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OVER,
    STOCK,
    endless_options,
    hand_value,
)
from domain.games.scat.state import ScatState, evolve, final_result, initial_state
from domain.games.scat.view import render
from domain.moves import Move
from domain.options import OptionSpec, first_dealer

__all__ = ["GAME", "CappedScat", "Scat", "ScatState", "hand_value"]


#: Requests are immutable, so each is made once (a frozen dataclass costs as much to make as a decision's events).
_DEALER_DRAW = ChanceRequest("dealer_draw", DECK, DealerDrawShuffled)


@cache
def _deal(number: int) -> ChanceRequest:
    """The request for the shuffle of deal ``number``."""
    return ChanceRequest("deal", DECK, DeckShuffled, deal=number)


class Scat(Game):
    """Scat (31, Blitz): draw and discard towards 31 in one suit; the lowest hand loses a life."""

    name = "scat"
    title = "Scat (31)"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    own_options = (
        first_dealer("S3"),
        OptionSpec("lives", "int", "Lives each player starts with, before the county (S2).", 3, 1, 10),
        OptionSpec("three_of_a_kind", "bool", "Three cards of one rank are worth 30 (S9).", False),
        OptionSpec(
            "straight_flush", "bool", "Three ranks in a row of one suit are worth 30, A-K-Q 31 (S9).", False
        ),
        OptionSpec("min_knock", "int", "A knock needs a hand worth at least this; 0 is no minimum (S9).", 0, 0, 31),
        OptionSpec("throw_down", "bool", "A player may throw down before their first draw (S9).", False),
    )
    move_classes = MOVES
    event_classes = EVENTS

    def start(self, players: int, options: Mapping[str, Any]) -> ScatState:
        """The state before the dealer draw (S3) or, with ``first_dealer``, before the first deal."""
        return initial_state(players, options)

    def chance(self, state: ScatState) -> ChanceRequest | None:
        """The dealer draw or the next deal, when the game waits for one."""
        if state.phase == DEALER_DRAW:
            return _DEALER_DRAW
        if state.phase == DEAL:
            return _deal(state.hand_number)
        return None

    def to_act(self, state: ScatState) -> tuple[int, ...]:
        """The seat whose turn it is (a declared 31 never counts)."""
        return to_act(state)

    def legal_moves(self, state: ScatState, seat: int) -> list[Move]:
        """Every move ``seat`` may make now, a declared 31 out of turn included."""
        return legal_moves(state, seat)

    def out_of_turn(self, state: ScatState, players: int) -> tuple[int, ...]:
        """The seats not on turn holding a 31 they may declare (S11)."""
        return out_of_turn(state)

    def decide(self, state: ScatState, seat: int, move: Move) -> list[Event]:
        """The events ``move`` sets off, or the typed error refusing it."""
        return decide(state, seat, move)

    def default_moves(self, state: ScatState, seat: int) -> list[Move]:
        """The moves played for a seat whose turn timed out (see ``decide.default_moves``)."""
        return default_moves(state, seat)

    def evolve(self, state: ScatState, event: Event) -> ScatState:
        """The state after ``event``."""
        return evolve(state, event)

    def view(self, state: ScatState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        """What ``seat`` may see (S13); everything once ``reveal_all``."""
        return render(state, seat, reveal_all)

    def redact(self, event: Event, seat: int | None, reveal_all: bool = False) -> dict[str, Any] | None:
        """As every game's, and a card drawn from the stock is seen by its taker only."""
        data = Game.redact(self, event, seat, reveal_all)
        if isinstance(event, CardDrawn) and event.source == STOCK and seat != event.seat and not reveal_all:
            data = {**event_data(event), "card": None}
        return data

    def is_over(self, state: ScatState) -> bool:
        """Whether one player is left (S12)."""
        return state.phase == OVER

    def result(self, state: ScatState) -> dict[str, Any] | None:
        """The winner, the last player left (S12), and everyone's lives."""
        return final_result(state) if state.phase == OVER else None

    def house_bot(self, kind: str) -> HouseBot | None:
        """The greedy bot's play (``bots.greedy``); the house plays every other kind at random."""
        return bots.greedy if kind == "greedy" else None


class CappedScat(Scat):
    """Scat's rules version 2: version 1 and S14, an event cap and a bound on slow options."""

    version = 2
    max_events = MAX_EVENTS
    event_classes = (*EVENTS, EventCapReached)
    older_versions = (Scat(),)

    def validate_options(self, players: int, options: Any) -> dict[str, Any]:
        """As version 1's, and InvalidOptions for options that would end only at the cap (S14)."""
        options = super().validate_options(players, options)
        if (why := endless_options(players, options["lives"], options["min_knock"])) is not None:
            raise InvalidOptions(why, rule="S14")
        return options


GAME = CappedScat()

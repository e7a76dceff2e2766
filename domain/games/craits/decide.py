"""Craits decisions: the legal moves of a seat, and the events a move sets off."""

from __future__ import annotations

from domain.cards import DECK, SUITS, partner_suit
from domain.errors import IllegalMove, InvalidMove, NotYourTurn
from domain.events import Event
from domain.games.craits.events import (
    CardPlayed,
    CardsDrawn,
    OneCardAnnounced,
    PlayerCalledOut,
    SuitChosen,
)
from domain.games.craits.moves import Announce, Call, ChooseSuit, Draw, Play
from domain.games.craits.rules import CRANK_VALUE, MAX_PLAYERS, PLAY, matches, nine_suits
from domain.games.craits.state import CraitsState
from domain.moves import Move


def _must_be_on_turn(state: CraitsState, seat: int, what: str) -> None:
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s: only they may {what}")
    if state.choosing and what != "choose a suit":
        raise IllegalMove(f"seat {seat} must first choose the suit for the up-card {state.discard[-1]}", rule="C6")


#: The cards that may be played on each top card under each active suit outside a crank (C7: ``matches``), so that
#: a hand's playable cards are found without a call a card.
_MATCHING = {(top, suit): frozenset(card for card in DECK if matches(card, top, suit))
             for top in DECK for suit in (*SUITS, None)}


def _playable(state: CraitsState, hand: tuple[str, ...]) -> list[str]:
    if state.crank:
        return [card for card in hand if card[0] in CRANK_VALUE]
    matching = _MATCHING[state.discard[-1], state.active_suit]
    return [card for card in hand if card in matching]


def _check_play_shape(move: Play) -> None:
    rank = move.card[0]
    if rank == "8" and move.suit is None:
        raise InvalidMove(f"an 8 is wild: play {move.card} with a 'suit' to name (C10)")
    if move.suit is not None and rank not in "89":
        raise InvalidMove(f"only an 8 or a 9 takes a 'suit'; {move.card} takes none (C10)")


def _decide_play(state: CraitsState, seat: int, move: Play) -> list[Event]:
    _check_play_shape(move)
    _must_be_on_turn(state, seat, "play")
    card, hand = move.card, state.hands[seat]
    if card not in hand:
        raise IllegalMove(f"seat {seat} does not hold {card}", rule="C7")
    if state.crank and card[0] not in CRANK_VALUE:
        raise IllegalMove(f"a crank of {state.crank} runs: play an ace or a 2, or draw {state.crank}", rule="C11")
    if not state.crank and not matches(card, state.discard[-1], state.active_suit):
        raise IllegalMove(
            f"{card} matches neither the active suit {state.active_suit} nor the rank of {state.discard[-1]}",
            rule="C7",
        )
    suit = move.suit
    if card[0] == "9":
        suit = suit or card[1]
        if suit not in nine_suits(card):
            raise IllegalMove(f"a 9 keeps its suit or switches to the other suit of its colour, not {suit}", rule="C10")
    if move.announce and len(hand) != 2:
        raise IllegalMove("only a play that leaves exactly one card can be announced", rule="C12")
    return [_PLAYED[seat, card, suit, move.announce]]


def _decide_draw(state: CraitsState, seat: int, move: Draw) -> list[Event]:
    _must_be_on_turn(state, seat, "draw")
    if _playable(state, state.hands[seat]):
        if state.crank:
            raise IllegalMove("you hold an ace or a 2 and must answer the crank", rule="C11")
        raise IllegalMove("you can play a card, so you must: drawing is only for a player who cannot", rule="C8")
    return [_DREW_ONE[seat] if not state.crank else CardsDrawn(seat, count=state.crank)]


def _decide_choose_suit(state: CraitsState, seat: int, move: ChooseSuit) -> list[Event]:
    _must_be_on_turn(state, seat, "choose a suit")
    up = state.discard[-1]
    if not state.choosing:
        raise IllegalMove("a suit is chosen only after an 8 or 9 up-card", rule="C6")
    if up[0] == "9" and move.suit not in nine_suits(up):
        raise IllegalMove(f"after the up-card {up} the suit stays {up[1]} or becomes {partner_suit(up[1])}", rule="C6")
    return [SuitChosen(seat, suit=move.suit)]


def _decide_announce(state: CraitsState, seat: int, move: Announce) -> list[Event]:
    if seat not in state.unannounced:
        raise IllegalMove("only a player whose own play left them one unannounced card announces", rule="C12")
    return [OneCardAnnounced(seat)]


def _decide_call(state: CraitsState, seat: int, move: Call) -> list[Event]:
    if move.target >= state.players:
        raise InvalidMove(f"'target' must be a seat from 0 to {state.players - 1}, not {move.target}")
    if move.target == seat or move.target not in state.unannounced:
        raise IllegalMove(
            f"seat {move.target} cannot be called out: nobody may call a player who announced, holds other than "
            "one card, got it by the deal or a draw, or themselves",
            rule="C12",
        )
    return [PlayerCalledOut(seat, target=move.target)]


_DECIDERS = {
    Play: _decide_play,
    Draw: _decide_draw,
    ChooseSuit: _decide_choose_suit,
    Announce: _decide_announce,
    Call: _decide_call,
}


#: Moves are immutable, so the listed ones are built once and shared.
_PLAYS = {(card, suit, announce): Play(card, suit, announce)
          for card in DECK for suit in (None, *SUITS) for announce in (False, True)}
_DRAW, _ANNOUNCE = Draw(), Announce()
_CALLS = tuple(Call(target) for target in range(MAX_PLAYERS))
_CHOICES = {suit: ChooseSuit(suit) for suit in SUITS}
#: Events are immutable too: every seat's play of every card with each suit it may leave active (an 8 names one,
#: a 9 its own or its partner, C10), and its draw of one card, the events of almost every decision, are built once
#: and shared (making a frozen dataclass costs about as much as the rest of deciding the move).
_PLAYED = {(seat, card, suit, announced): CardPlayed(seat, card=card, suit=suit, announced=announced)
           for seat in range(MAX_PLAYERS) for card in DECK
           for suit in (SUITS if card[0] == "8" else nine_suits(card) if card[0] == "9" else (None,))
           for announced in (False, True)}
_DREW_ONE = tuple(CardsDrawn(seat, count=1) for seat in range(MAX_PLAYERS))


def _suits_named(card: str) -> tuple[str | None, ...]:
    """What a play of ``card`` may name outside a crank: an 8 any suit, a 9 its own or its partner (C10)."""
    if card[0] == "8":
        return tuple(SUITS)
    if card[0] == "9":
        return None, partner_suit(card[1])
    return (None,)


#: By whether the hand holds two cards (each play announced or not, C12) and whether a crank runs (no suit
#: named, C11): each card's plays.
_CARD_PLAYS = {(two_left, crank): {card: tuple(_PLAYS[card, suit, announce]
                                               for suit in ((None,) if crank else _suits_named(card))
                                               for announce in ((False, True) if two_left else (False,)))
                                   for card in DECK}
               for two_left in (False, True) for crank in (False, True)}


def _legal_plays(state: CraitsState, hand: tuple[str, ...]) -> list[Move]:
    plays = _CARD_PLAYS[len(hand) == 2, bool(state.crank)]
    moves: list[Move] = []
    for card in _playable(state, hand):
        moves += plays[card]
    return moves


def _playing(state: CraitsState) -> bool:
    """Whether a seat may move now: a round is being played and no chance outcome is awaited."""
    return state.phase == PLAY and not state.pending


def to_act(state: CraitsState) -> tuple[int, ...]:
    """The seat whose turn it is, while a round is played."""
    return (state.turn,) if _playing(state) else ()


def legal_moves(state: CraitsState, seat: int) -> list[Move]:
    """Every move ``seat`` may make now, announce and call-outs included."""
    if not _playing(state) or (seat != state.turn and not state.unannounced):
        return []
    moves: list[Move] = []
    if seat == state.turn:
        if state.choosing:
            up = state.discard[-1]
            moves.extend(_CHOICES[suit] for suit in (SUITS if up[0] == "8" else nine_suits(up)))
        else:
            moves.extend(_legal_plays(state, state.hands[seat]) or [_DRAW])
    if state.unannounced:
        if seat in state.unannounced:
            moves.append(_ANNOUNCE)
        moves.extend(_CALLS[target] for target in state.unannounced if target != seat)
    return moves


def out_of_turn(state: CraitsState, players: int) -> tuple[int, ...]:
    """Every seat but the one on turn while a seat may be called out (C12): it may call that seat out, or
    announce if it is that seat; else none."""
    if not state.unannounced or not _playing(state):
        return ()
    return tuple(seat for seat in range(players) if seat != state.turn)


def default_moves(state: CraitsState, seat: int) -> list[Move]:
    """What the server plays for a seat whose turn timed out: after an 8 or 9 up-card the first
    suit offered; else a draw when drawing is legal (C8, the end of a crank C11); else the first
    legal play (an 8 naming the first suit), announced when it leaves one card (C12)."""
    if state.choosing:
        up = state.discard[-1]
        return [_CHOICES[(SUITS if up[0] == "8" else nine_suits(up))[0]]]
    plays = _legal_plays(state, state.hands[seat])
    if not plays:
        return [_DRAW]
    leaves_one = len(state.hands[seat]) == 2
    return [next(play for play in plays if isinstance(play, Play) and play.announce == leaves_one)]


def decide(state: CraitsState, seat: int, move: Move) -> list[Event]:
    """The events ``move`` sets off, or the typed error refusing it."""
    if state.phase != PLAY or state.pending:
        raise NotYourTurn("no move can be made now: the game waits for a deal or a shuffle")
    decider = _DECIDERS.get(type(move))
    if decider is None:
        raise InvalidMove(f"craits knows no move {move!r}")
    return decider(state, seat, move)

"""Scat decisions: whose move, the legal moves of a seat, and the events a move sets off."""

from __future__ import annotations

from collections.abc import Sequence

from domain.cards import DECK
from domain.copying import maker
from domain.errors import IllegalMove, NotYourTurn
from domain.events import Event
from domain.games.scat.events import (
    CardDiscarded,
    CardDrawn,
    HandSettled,
    HandVoided,
    Knocked,
    ThirtyOneDeclared,
    ThrewDown,
)
from domain.games.scat.moves import Declare31, Discard, Draw, Knock, ThrowDown
from domain.games.scat.rules import (
    BEST_VALUE,
    DISCARD,
    DISCARD_PILE,
    DRAW,
    MAX_PLAYERS,
    PLAYING,
    SHOWDOWN,
    STOCK,
    showdown_losses,
    thirty_one_losses,
)
from domain.games.scat.state import ScatState, after_turn, in_play, value_of, without
from domain.moves import Move


def _may_declare(state: ScatState, seat: int) -> bool:
    hand = state.hands[seat]
    # Only three cards of one suit reach 31 (two reach 21, a triple 30): a cheap test first.
    return (
        state.phase in PLAYING
        and len(hand) == 3
        and hand[0][1] == hand[1][1] == hand[2][1]
        and value_of(state, hand) == BEST_VALUE
    )


def _may_throw_down(state: ScatState) -> bool:
    # Turns run in seat order from the dealer's left, so a player's first turn is among the first ones.
    return state.rules.throw_down and state.knocker is None and state.turns_taken < in_play(state)


#: Moves are immutable, so the listed ones are built once and shared (as Craits' are).
_DRAWS = {source: Draw(source) for source in (STOCK, DISCARD_PILE)}
_DISCARDS = {card: Discard(card) for card in DECK}
_KNOCK, _THROW_DOWN, _DECLARE_31 = Knock(), ThrowDown(), Declare31()
#: Events are immutable too: every seat's draw of every card and discard of it, the events of almost every
#: decision, and its knock and the void hand, those of almost every hand, are built once and shared (making a
#: frozen dataclass costs as much as a hand's value).
_DRAWN = {(seat, source, card): CardDrawn(seat, source=source, card=card)
          for seat in range(MAX_PLAYERS) for source in (STOCK, DISCARD_PILE) for card in DECK}
_DISCARDED = {(seat, card): CardDiscarded(seat, card=card) for seat in range(MAX_PLAYERS) for card in DECK}
_KNOCKED = tuple(Knocked(seat) for seat in range(MAX_PLAYERS))
_VOIDED = HandVoided(None)
#: A settlement is made at the end of almost every hand, as the class would make it (``maker``).
_SETTLED = maker(HandSettled)


def to_act(state: ScatState) -> tuple[int, ...]:
    """The seat whose turn it is, while a hand is played."""
    return (state.turn,) if state.phase in PLAYING else ()


def legal_moves(state: ScatState, seat: int) -> list[Move]:
    """Every move ``seat`` may make now, a declared 31 out of turn included (S11)."""
    if seat != state.turn:  # (every seat but the one on turn, every decision: only a declared 31)
        return [_DECLARE_31] if 0 <= seat < state.rules.players and _may_declare(state, seat) else []
    moves: list[Move] = []
    if state.phase == DRAW:
        if state.stock:
            moves.append(_DRAWS[STOCK])
        moves.append(_DRAWS[DISCARD_PILE])
        min_knock = state.rules.min_knock  # (with none, S9, any hand knocks: no need to value it)
        if state.knocker is None and (not min_knock or value_of(state, state.hands[seat]) >= min_knock):
            moves.append(_KNOCK)
        if _may_throw_down(state):
            moves.append(_THROW_DOWN)
    elif state.phase == DISCARD:
        moves = [_DISCARDS[card] for card in state.hands[seat] if card != state.taken]
    if _may_declare(state, seat):
        moves.append(_DECLARE_31)
    return moves


def out_of_turn(state: ScatState) -> tuple[int, ...]:
    """The seats not on turn that may declare 31 now (S11)."""
    seats = ()
    for seat in range(state.rules.players):
        if seat != state.turn and _may_declare(state, seat):
            seats += (seat,)
    return seats


def default_moves(state: ScatState, seat: int) -> list[Move]:
    """What the server plays for a seat whose turn timed out: a draw from the stock and a discard
    of the card drawn; with the stock empty after a knock (S7) a draw from the discard pile and a
    discard of the first card held before it (S5). Holding a drawn card: that card's discard, or,
    for one taken from the discard pile, the first other card."""
    hand = state.hands[seat]
    if state.phase == DISCARD:
        return [Discard(hand[-1] if state.taken is None else next(card for card in hand if card != state.taken))]
    if state.stock:
        return [Draw(STOCK), Discard(state.stock[0])]
    return [Draw(DISCARD_PILE), Discard(hand[0])]


def decide(state: ScatState, seat: int, move: Move) -> list[Event]:
    """The events ``move`` sets off, or the typed error refusing it."""
    if isinstance(move, Declare31):
        return _declare(state, seat)
    if state.phase not in PLAYING or seat != state.turn:
        raise NotYourTurn(f"seat {seat} may not {move.type} now; the game waits for {list(to_act(state))}")
    if isinstance(move, Draw):
        return _draw(state, seat, move.source)
    if isinstance(move, Discard):
        return _discard(state, seat, move.card)
    if isinstance(move, Knock):
        return _knock(state, seat)
    return _throw_down(state, seat)


def _draw(state: ScatState, seat: int, source: str) -> list[Event]:
    if state.phase != DRAW:
        raise IllegalMove("you have drawn this turn: discard a card now", rule="S5")
    if source == STOCK and not state.stock:
        raise IllegalMove("the stock is empty: draw from the discard pile", rule="S7")
    card = state.stock[0] if source == STOCK else state.discard[-1]
    return [_DRAWN[seat, source, card]]


def _discard(state: ScatState, seat: int, card: str) -> list[Event]:
    if state.phase != DISCARD:
        raise IllegalMove("draw a card before you discard", rule="S5")
    if card not in state.hands[seat]:
        raise IllegalMove(f"{card} is not in your hand", rule="S5")
    if card == state.taken:
        raise IllegalMove(f"{card} was just taken from the discard pile: discard another card", rule="S5")
    discarded = _DISCARDED[seat, card]
    phase, _ = after_turn(state, seat)  # (a discard changes no state after_turn reads)
    if phase == SHOWDOWN:
        return [discarded, _showdown(state, without(state.hands, seat, card), state.knocker, "showdown")]
    if phase not in PLAYING:
        return [discarded, _VOIDED]
    return [discarded]


def _knock(state: ScatState, seat: int) -> list[Event]:
    if state.phase != DRAW:
        raise IllegalMove("you have drawn this turn: discard a card now", rule="S5")
    if state.knocker is not None:
        raise IllegalMove(f"seat {state.knocker} has knocked already this hand", rule="S6")
    min_knock = state.rules.min_knock  # (with none, S9, any hand knocks: no need to value it)
    if min_knock and (value := value_of(state, state.hands[seat])) < min_knock:
        raise IllegalMove(f"a knock needs a hand worth {min_knock}; yours is {value}", rule="S9")
    return [_KNOCKED[seat]]


def _throw_down(state: ScatState, seat: int) -> list[Event]:
    if not state.rules.throw_down:
        raise IllegalMove("this table plays without throw-downs", rule="S9")
    if state.phase != DRAW or not _may_throw_down(state):
        raise IllegalMove("a throw-down is only your first action of a hand nobody has knocked in", rule="S9")
    return [ThrewDown(seat), _showdown(state, state.hands, seat, "throw_down")]


def _declare(state: ScatState, seat: int) -> list[Event]:
    if state.phase not in PLAYING or state.out[seat]:
        raise NotYourTurn(f"seat {seat} may not declare 31 now")
    hand = state.hands[seat]
    if len(hand) != 3:
        raise IllegalMove("31 is declared with three cards: discard first", rule="S11")
    if value_of(state, hand) != BEST_VALUE:
        raise IllegalMove(f"your hand is worth {value_of(state, hand)}, not 31", rule="S11")
    players = state.rules.players
    shown = tuple(hand if other == seat else None for other in range(players))
    values = tuple(BEST_VALUE if other == seat else None for other in range(players))
    lost = thirty_one_losses([not gone for gone in state.out], seat)
    return [
        ThirtyOneDeclared(seat, cards=hand),
        HandSettled(None, reason="thirty_one", knocker=state.knocker, declarer=seat, hands=shown, values=values, lost=lost),
    ]


def _showdown(state: ScatState, hands: Sequence[tuple[str, ...]], knocker: int, reason: str) -> HandSettled:
    """Every hand still in is shown and the lowest pays (S10): ``hands`` and ``knocker`` as the move that ends the
    hand leaves them (a discard takes a card out of a hand, a throw-down makes a knocker)."""
    shown, values = [], []
    for hand, gone in zip(hands, state.out):
        shown.append(None if gone else hand)
        values.append(None if gone else value_of(state, hand))
    return _SETTLED(None, reason, knocker, None, tuple(shown), tuple(values), showdown_losses(values, knocker))

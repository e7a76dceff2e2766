"""Craits: a shedding game like Crazy Eights, over 15 (or 8) rounds of shrinking hands.

The rules are ``shared/rules/craits.md``; rule ids (C1 … C17) are cited where
each one is applied, and ``docs/rules-notes.md`` records every reading we chose
where the text is open. In short:

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
  lowest total wins (C16); a seat sees only what C17 allows.

Chance is data: the dealer draw, every deal and every reshuffle is a
:class:`ChanceRequest` whose outcome event carries the full card order.
Draws are queued in the state (``pending``) and taken from the pile as events
are evolved; when the pile runs dry the queue waits for the reshuffle.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from domain.cards import DECK, RANK_NUMBER, SUITS, partner_suit
from domain.errors import IllegalMove, InvalidMove, NotYourTurn
from domain.events import Event
from domain.game import ChanceRequest, Game
from domain.moves import Move, field
from domain.options import OptionSpec

#: Cards dealt per player in each round (C3); ``short`` plays the first eight.
HAND_SIZES = (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)
SHORT_ROUNDS = 8

#: Points a card left in hand scores (C14); 3s are settled by C15.
CARD_POINTS = {"A": 1, "2": 20, "3": 0, "4": 15, "5": 30, "6": 30, "7": 20, "8": 50,
               "9": 30, "T": 25, "J": 10, "Q": 10, "K": 10}
LEFTOVER_THREE = -50
CRANK_VALUE = {"A": 1, "2": 2}

DEALER_DRAW, DEAL, PLAY, OVER = "dealer_draw", "deal", "play", "over"


# -- pure helpers --------------------------------------------------------------
def hand_score(hand: tuple[str, ...]) -> int:
    """What a hand left at the end of a round scores (C14, C15)."""
    threes = sum(1 for card in hand if card[0] == "3")
    others = sorted((CARD_POINTS[card[0]] for card in hand if card[0] != "3"), reverse=True)
    return sum(others[threes:]) + LEFTOVER_THREE * max(0, threes - len(others))


def matches(card: str, top: str, active_suit: str) -> bool:
    """Whether ``card`` may be played on ``top`` outside a crank (C7: suit or rank; 8s wild)."""
    return card[1] == active_suit or card[0] == top[0] or card[0] == "8"


def nine_suits(card: str) -> tuple[str, str]:
    """The suits a 9 may leave active: its own and the other of its colour (C10)."""
    return card[1], partner_suit(card[1])


# -- events --------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class DealerDrawShuffled(Event):
    """A deck was shuffled for the dealer draw; the drawers take its top cards in seat order (C4)."""

    order: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class RoundDealt(Event):
    """The dealer shuffled the deck into ``order`` and dealt the next round from it (C5)."""

    order: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class PileReshuffled(Event):
    """The discard pile but its top card became the draw pile in ``order`` (C9)."""

    order: tuple[str, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """``seat`` played ``card``; ``suit`` is the suit an 8 or 9 left active."""

    card: str
    suit: str | None
    announced: bool


@dataclasses.dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """``seat`` could not play and draws ``count`` cards (C8; a crank's count, C11)."""

    count: int


@dataclasses.dataclass(frozen=True, slots=True)
class SuitChosen(Event):
    """The dealer chose the active suit after an 8 or 9 up-card (C6)."""

    suit: str


@dataclasses.dataclass(frozen=True, slots=True)
class OneCardAnnounced(Event):
    """``seat`` announced their last card (C12)."""


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerCalledOut(Event):
    """``seat`` caught ``target`` holding one unannounced card (C12)."""

    target: int


# -- moves ---------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class Play(Move):
    """Play a card; an 8 names a suit, a 9 may; announce a play leaving one card."""

    type: ClassVar[str] = "play"
    card: str = field("card")
    suit: str | None = field("suit", default=None)
    announce: bool = field("bool", default=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Draw(Move):
    """Draw: one card, or the crank's count (C8, C11)."""

    type: ClassVar[str] = "draw"


@dataclasses.dataclass(frozen=True, slots=True)
class ChooseSuit(Move):
    """The dealer names the active suit after an 8 or 9 up-card (C6)."""

    type: ClassVar[str] = "choose_suit"
    suit: str = field("suit")


@dataclasses.dataclass(frozen=True, slots=True)
class Announce(Move):
    """Announce one's last card (C12)."""

    type: ClassVar[str] = "announce"


@dataclasses.dataclass(frozen=True, slots=True)
class Call(Move):
    """Call out a player holding one unannounced card (C12)."""

    type: ClassVar[str] = "call"
    target: int = field("seat")


# -- state ---------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class CraitsState:
    """Everything a game of Craits is, after some events.

    ``pending`` queues draws ``(seat, count)`` waiting for a reshuffle;
    ``check_out`` asks, once they are done, whether someone holds nothing (C13);
    ``unannounced`` are the seats that may be called out (C12).
    """

    players: int
    rounds: int
    phase: str
    dealer: int | None
    drawers: tuple[int, ...]
    dealer_draws: tuple[tuple[tuple[int, str], ...], ...]
    round: int
    hands: tuple[tuple[str, ...], ...]
    pile: tuple[str, ...]
    discard: tuple[str, ...]
    active_suit: str | None
    direction: int
    crank: int
    turn: int | None
    choosing: bool
    pending: tuple[tuple[int, int], ...]
    check_out: bool
    passes: int
    unannounced: tuple[int, ...]
    announced: tuple[int, ...]
    skip_next: tuple[int, ...]
    scores: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    blocked: tuple[bool, ...]


_FIELDS = tuple(f.name for f in dataclasses.fields(CraitsState))


class _Draft:
    """A mutable working copy of a state: evolve edits it, then freezes it."""

    __slots__ = _FIELDS

    def freeze(self) -> CraitsState:
        """The state this draft describes."""
        self.hands = tuple(self.hands)
        return _freeze(self)

    # -- turn order (C2, C10, C12) ---------------------------------------
    def advance(self, seat: int) -> int:
        """The seat that plays after ``seat``, using up any lost turns on the way (C12)."""
        nxt = (seat + self.direction) % self.players
        while nxt in self.skip_next:
            self.skip_next = tuple(s for s in self.skip_next if s != nxt)
            nxt = (nxt + self.direction) % self.players
        return nxt

    def pass_over(self, seat: int) -> int:
        """The seat after the one a 4 skips; being skipped uses up a lost turn too (C10, C12)."""
        skipped = (seat + self.direction) % self.players
        self.skip_next = tuple(s for s in self.skip_next if s != skipped)
        return self.advance(skipped)

    def others_in_turn_order(self, seat: int) -> tuple[int, ...]:
        """Every seat but ``seat``, from the next one on in the direction of play."""
        return tuple((seat + self.direction * i) % self.players for i in range(1, self.players))

    # -- hands and C12 -----------------------------------------------------
    def hand_changed(self, seat: int) -> None:
        """A seat's hand changed: whatever it announced or failed to announce lapses (C12)."""
        if seat in self.unannounced:
            self.unannounced = tuple(s for s in self.unannounced if s != seat)
        if seat in self.announced:
            self.announced = tuple(s for s in self.announced if s != seat)

    def drain(self) -> bool:
        """Take queued draws from the pile; False while a reshuffle must come first (C9)."""
        while self.pending:
            seat, count = self.pending[0]
            take = min(count, len(self.pile))
            if take:
                self.hands[seat] = self.hands[seat] + self.pile[:take]
                self.pile = self.pile[take:]
                self.hand_changed(seat)
                count -= take
            if count and len(self.discard) > 1:
                self.pending = ((seat, count),) + self.pending[1:]
                return False
            self.pending = self.pending[1:]
        return True

    def settle(self) -> None:
        """Run queued draws; then end the round if someone is out (C13) or all passed (C9)."""
        if not self.drain():
            return
        if self.check_out:
            self.check_out = False
            if not all(self.hands):
                self.end_round(blocked=False)
                return
        if self.passes >= self.players:
            self.end_round(blocked=True)

    # -- abilities (C10, C11, C13) -----------------------------------------
    def apply(self, seat: int, card: str, going_out: bool) -> None:
        """The ability of ``card`` just played (or turned up) by ``seat``."""
        rank = card[0]
        if rank in CRANK_VALUE and (self.crank or rank == "2"):
            self.crank += CRANK_VALUE[rank]  # a player out with a 2 or an A stays in the crank (C13)
            self.turn = self.advance(seat)
        elif rank == "6":
            self.turn = seat
        elif going_out:
            self.going_out(seat, rank)
        elif rank == "4":
            self.turn = self.pass_over(seat)
        elif rank == "5":
            self.pending += tuple((other, 1) for other in self.others_in_turn_order(seat))
            self.turn = self.advance(seat)
        elif rank == "7":
            self.turn = self.advance(seat)
            self.pending += ((self.turn, 1),)
        else:
            if rank == "T":
                self.direction = -self.direction
            self.turn = self.advance(seat)

    def going_out(self, seat: int, rank: str) -> None:
        """A last card: its ability still runs, then the round ends (C13)."""
        if rank == "5":
            self.pending += tuple((other, 1) for other in self.others_in_turn_order(seat))
        elif rank == "7":
            # the round ends, so lost turns lapse: the very next seat draws (rules notes)
            self.pending += (((seat + self.direction) % self.players, 1),)
        self.check_out = True

    # -- round lifecycle (C3, C5, C6, C14, C16) ----------------------------
    def deal(self, order: tuple[str, ...]) -> None:
        """Deal the next round from ``order`` and turn up its first card (C5, C6)."""
        players, dealer = self.players, self.dealer
        size = HAND_SIZES[self.round]
        self.round += 1
        hands = [()] * players
        for offset in range(players):
            hands[(dealer + 1 + offset) % players] = order[offset : size * players : players]
        self.hands = hands
        up = order[size * players]
        self.discard = (up,)
        self.pile = order[size * players + 1 :]
        self.active_suit = up[1]
        self.direction, self.crank, self.passes = 1, 0, 0
        self.pending, self.check_out, self.choosing = (), False, False
        self.unannounced, self.announced, self.skip_next = (), (), ()
        self.phase = PLAY
        if up[0] in "89":
            self.choosing, self.turn = True, dealer
        else:
            self.apply(dealer, up, going_out=False)
            self.settle()

    def end_round(self, blocked: bool) -> None:
        """Score the hands (C14, C15), add them up (C16) and pass the deal left (C4)."""
        points = tuple(hand_score(hand) for hand in self.hands)
        self.scores = tuple(total + add for total, add in zip(self.scores, points))
        self.round_scores += (points,)
        self.blocked += (blocked,)
        self.turn, self.crank, self.pending, self.passes = None, 0, (), 0
        self.unannounced, self.announced, self.skip_next = (), (), ()
        self.check_out = self.choosing = False
        if self.round >= self.rounds:
            self.phase = OVER
        else:
            self.phase, self.dealer = DEAL, (self.dealer + 1) % self.players


def _compile_copiers() -> tuple[Any, Any]:
    """Field-by-field copies between state and draft, compiled once.

    Replay speed hangs on these (one of each per event): generated straight-line
    code with the slots' own setters is several times faster than
    ``dataclasses.replace`` or a frozen ``__init__``.
    """
    setters = {f"_set_{name}": CraitsState.__dict__[name].__set__ for name in _FIELDS}
    source = (
        "def draft(state):\n d = _new(_Draft)\n"
        + "".join(f" d.{name} = state.{name}\n" for name in _FIELDS)
        + " d.hands = list(state.hands)\n return d\n"
        "def freeze(d):\n s = _new(CraitsState)\n"
        + "".join(f" _set_{name}(s, d.{name})\n" for name in _FIELDS)
        + " return s\n"
    )
    namespace = {"_new": object.__new__, "_Draft": _Draft, "CraitsState": CraitsState, **setters}
    exec(source, namespace)  # noqa: S102  (our own field names only)
    return namespace["draft"], namespace["freeze"]


_draft, _freeze = _compile_copiers()


# -- evolving --------------------------------------------------------------------
def _dealer_drawn(draft: _Draft, event: DealerDrawShuffled) -> None:
    drawn = tuple(zip(draft.drawers, event.order))
    draft.dealer_draws += (drawn,)
    lowest = min(RANK_NUMBER[card[0]] for _, card in drawn)
    tied = tuple(seat for seat, card in drawn if RANK_NUMBER[card[0]] == lowest)
    if len(tied) == 1:
        draft.dealer, draft.drawers, draft.phase = tied[0], (), DEAL
    else:
        draft.drawers = tied


def _card_played(draft: _Draft, event: CardPlayed) -> None:
    seat, card = event.seat, event.card
    hand = tuple(c for c in draft.hands[seat] if c != card)
    draft.hands[seat] = hand
    draft.discard += (card,)
    draft.active_suit = event.suit or card[1]
    draft.passes = 0
    draft.hand_changed(seat)
    if len(hand) == 1:
        if event.announced:
            draft.announced += (seat,)
        else:
            draft.unannounced += (seat,)
    draft.apply(seat, card, going_out=not hand)
    draft.settle()


def _cards_drawn(draft: _Draft, event: CardsDrawn) -> None:
    seat = event.seat
    nothing_left = not draft.pile and len(draft.discard) <= 1
    draft.passes = draft.passes + 1 if nothing_left else 0
    draft.crank = 0
    draft.pending += ((seat, event.count),)
    draft.turn = draft.advance(seat)
    draft.check_out = True  # a crank just ended, or a last 6's player drew (C13)
    draft.settle()


def _pile_reshuffled(draft: _Draft, event: PileReshuffled) -> None:
    draft.pile = event.order
    draft.discard = draft.discard[-1:]
    draft.settle()


def _suit_chosen(draft: _Draft, event: SuitChosen) -> None:
    draft.active_suit = event.suit
    draft.choosing = False
    draft.turn = draft.advance(draft.dealer)


def _one_card_announced(draft: _Draft, event: OneCardAnnounced) -> None:
    draft.unannounced = tuple(s for s in draft.unannounced if s != event.seat)
    draft.announced += (event.seat,)


def _player_called_out(draft: _Draft, event: PlayerCalledOut) -> None:
    target = event.target
    if target not in draft.skip_next:
        draft.skip_next += (target,)
    draft.pending += ((target, 2),)
    draft.settle()


_EVOLVERS = {
    DealerDrawShuffled: _dealer_drawn,
    RoundDealt: lambda draft, event: draft.deal(event.order),
    PileReshuffled: _pile_reshuffled,
    CardPlayed: _card_played,
    CardsDrawn: _cards_drawn,
    SuitChosen: _suit_chosen,
    OneCardAnnounced: _one_card_announced,
    PlayerCalledOut: _player_called_out,
}


# -- deciding --------------------------------------------------------------------
def _must_be_on_turn(state: CraitsState, seat: int, what: str) -> None:
    if seat != state.turn:
        raise NotYourTurn(f"it is seat {state.turn}'s turn, not seat {seat}'s: only they may {what}")
    if state.choosing and what != "choose a suit":
        raise IllegalMove(f"seat {seat} must first choose the suit for the up-card {state.discard[-1]}", rule="C6")


def _playable(state: CraitsState, hand: tuple[str, ...]) -> list[str]:
    if state.crank:
        return [card for card in hand if card[0] in CRANK_VALUE]
    top, suit = state.discard[-1], state.active_suit
    return [card for card in hand if matches(card, top, suit)]


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
    return [CardPlayed(seat, card=card, suit=suit, announced=move.announce)]


def _decide_draw(state: CraitsState, seat: int, move: Draw) -> list[Event]:
    _must_be_on_turn(state, seat, "draw")
    if _playable(state, state.hands[seat]):
        if state.crank:
            raise IllegalMove("you hold an ace or a 2 and must answer the crank", rule="C11")
        raise IllegalMove("you can play a card, so you must: drawing is only for a player who cannot", rule="C8")
    return [CardsDrawn(seat, count=state.crank or 1)]


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
_CALLS = tuple(Call(target) for target in range(5))
_CHOICES = {suit: ChooseSuit(suit) for suit in SUITS}


def _legal_plays(state: CraitsState, hand: tuple[str, ...]) -> list[Move]:
    announcing = (False, True) if len(hand) == 2 else (False,)
    moves: list[Move] = []
    for card in _playable(state, hand):
        if state.crank or card[0] not in "89":
            suits: tuple[str | None, ...] = (None,)
        elif card[0] == "8":
            suits = tuple(SUITS)
        else:
            suits = (None, partner_suit(card[1]))
        moves.extend(_PLAYS[card, suit, announce] for suit in suits for announce in announcing)
    return moves


# -- views (C17) ------------------------------------------------------------------
def render(state: CraitsState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
    """The API's state object for ``seat`` (``None``: a spectator); all hands once ``reveal_all``."""
    hands = [list(hand) if reveal_all or s == seat else None for s, hand in enumerate(state.hands)]
    over = state.phase == OVER
    return {
        "players": state.players,
        "phase": state.phase,
        "dealer": state.dealer,
        "dealer_draws": [[[s, card] for s, card in draw] for draw in state.dealer_draws],
        "hand": list(state.hands[seat]) if seat is not None and 0 <= seat < state.players else None,
        "hand_sizes": [len(hand) for hand in state.hands],
        "hands": hands,
        "top_card": state.discard[-1] if state.discard else None,
        "discard": list(state.discard),
        "draw_pile": len(state.pile),
        "round": state.round,
        "rounds": state.rounds,
        "hand_size": HAND_SIZES[state.round - 1] if state.round else None,
        "turn": state.turn,
        "choosing_suit": state.choosing,
        "direction": state.direction,
        "active_suit": state.active_suit,
        "crank": state.crank,
        "announced": list(state.announced),
        "unannounced": list(state.unannounced),
        "skip_next": list(state.skip_next),
        "scores": list(state.scores),
        "round_scores": [list(points) for points in state.round_scores],
        "blocked_rounds": [index + 1 for index, blocked in enumerate(state.blocked) if blocked],
        "result": GAME.result(state) if over else None,
    }


# -- the game ------------------------------------------------------------------
class Craits(Game):
    """Craits (rules C1–C17)."""

    name = "craits"
    title = "Craits"
    min_players = 2
    max_players = 5
    own_options = (OptionSpec("short", "bool", "Play only the first 8 rounds, 8 cards down to 1 (C3).", default=False),)
    move_classes = (Play, Draw, ChooseSuit, Announce, Call)
    event_classes = (DealerDrawShuffled, RoundDealt, PileReshuffled, CardPlayed, CardsDrawn, SuitChosen,
                     OneCardAnnounced, PlayerCalledOut)
    secret_events = frozenset({"DealerDrawShuffled", "RoundDealt", "PileReshuffled"})

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
        if state.phase != PLAY or state.pending:
            return ()
        return (state.turn,)

    def legal_moves(self, state: CraitsState, seat: int) -> list[Move]:
        """Every move ``seat`` may make now, announce and call-outs included."""
        if state.phase != PLAY or state.pending or (seat != state.turn and not state.unannounced):
            return []
        moves: list[Move] = []
        if seat == state.turn:
            if state.choosing:
                up = state.discard[-1]
                moves.extend(_CHOICES[suit] for suit in (SUITS if up[0] == "8" else nine_suits(up)))
            else:
                moves.extend(_legal_plays(state, state.hands[seat]) or [_DRAW])
        if seat in state.unannounced:
            moves.append(_ANNOUNCE)
        moves.extend(_CALLS[target] for target in state.unannounced if target != seat)
        return moves

    def decide(self, state: CraitsState, seat: int, move: Move) -> list[Event]:
        """The events ``move`` sets off, or the typed error refusing it."""
        if state.phase != PLAY or state.pending:
            raise NotYourTurn("no move can be made now: the game waits for a deal or a shuffle")
        decider = _DECIDERS.get(type(move))
        if decider is None:
            raise InvalidMove(f"craits knows no move {move!r}")
        return decider(state, seat, move)

    def evolve(self, state: CraitsState, event: Event) -> CraitsState:
        """The state after ``event``."""
        draft = _draft(state)
        _EVOLVERS[type(event)](draft, event)
        return draft.freeze()

    def view(self, state: CraitsState, seat: int | None, reveal_all: bool = False) -> dict[str, Any]:
        """What ``seat`` may see (C17); everything once ``reveal_all``."""
        return render(state, seat, reveal_all)

    def is_over(self, state: CraitsState) -> bool:
        """Whether the last round has been scored."""
        return state.phase == OVER

    def result(self, state: CraitsState) -> dict[str, Any] | None:
        """The winners, lowest total (C16), and the totals."""
        if state.phase != OVER:
            return None
        best = min(state.scores)
        return {"winners": [s for s, total in enumerate(state.scores) if total == best], "scores": list(state.scores)}


GAME = Craits()

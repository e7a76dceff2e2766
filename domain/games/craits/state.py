"""Craits state and how events evolve it (the fold replay runs)."""

from __future__ import annotations

import dataclasses
from typing import Any

from domain.cards import RANK_NUMBER
from domain.copying import copier, freezer
from domain.events import Event
from domain.game import EventCapReached
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
from domain.games.craits.rules import (
    CRANK_VALUE,
    DEAL,
    HAND_SIZES,
    OVER,
    PLAY,
    hand_score,
)


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

    @staticmethod
    def of(state: CraitsState) -> _Draft:
        """A draft of ``state``, its hands a list to edit seat by seat."""
        draft = _draft(state)
        draft.hands = list(state.hands)
        return draft

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


_draft, _freeze = copier(_Draft, _FIELDS), freezer(_Draft, CraitsState)


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
    hand = draft.hands[seat]
    if card in hand:  # (one deck: there once; a fold of a log from another world takes a card it does not hold as none)
        at = hand.index(card)
        hand = hand[:at] + hand[at + 1 :]
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


def _capped(draft: _Draft, event: EventCapReached) -> None:
    """C18: the game ends at its event cap with the totals as they stand (the round under way is not scored)."""
    draft.turn, draft.crank, draft.pending, draft.passes, draft.choosing = None, 0, (), 0, False
    draft.phase = OVER


_EVOLVERS = {
    DealerDrawShuffled: _dealer_drawn,
    RoundDealt: lambda draft, event: draft.deal(event.order),
    PileReshuffled: _pile_reshuffled,
    CardPlayed: _card_played,
    CardsDrawn: _cards_drawn,
    SuitChosen: _suit_chosen,
    OneCardAnnounced: _one_card_announced,
    PlayerCalledOut: _player_called_out,
    EventCapReached: _capped,
}


def evolve(state: CraitsState, event: Event) -> CraitsState:
    """The state after ``event``."""
    draft = _Draft.of(state)
    _EVOLVERS[type(event)](draft, event)
    return draft.freeze()


def final_result(state: CraitsState) -> dict[str, Any]:
    """The winners, lowest total (C16), and the totals."""
    best = min(state.scores)
    return {"winners": [s for s, total in enumerate(state.scores) if total == best], "scores": list(state.scores)}

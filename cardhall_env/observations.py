"""Observation vectors: what one seat sees, as numbers (``docs/env.md`` lists every slot).

Each vector holds only what the seat's JSON view shows (the API's ``state``; C17,
S13), read from the game's state directly because that is cheaper than rendering
the view first. Seats are counted from the observer: slot ``r`` of a per-seat
block is the seat ``r`` places to its left, ``(seat + r) % players``, so slot 0
is always itself; blocks are as long as the game's largest table. A card's slot
is its index in ``AC 2C … KS`` (suits ``CDHS``, ranks ``A23456789TJQK``).

A vector is written into a copy of a zero ``array('f')`` and handed out as a NumPy
view of it (writing a Python array's items costs a third of writing a NumPy
array's). The cards under the discard pile's top, the most slots to write, come
from :func:`below_top`, which remembers the last pile it was asked for. The per-seat
blocks of numbers are written seat by seat in the observer's order (``SEATS_FROM``),
two slots a seat; the closing scalars by one ``struct`` pack (five slots packed cost
~60 % of the instructions of five written one by one, but a pack of rotated blocks
costs more in building its arguments than writing them); a card's 1 is written as
``1.0`` (an int is converted first).
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable
from typing import Any

import numpy as np

from domain.cards import DECK, SUITS
from domain.games.scat.rules import DISCARD, DRAW
from domain.games.scat.state import value_of

CARD = {card: index for index, card in enumerate(DECK)}
F32 = np.dtype(np.float32)
SUIT = {suit: index for index, suit in enumerate(SUITS)}
#: Every slot's value lies within these bounds (Craits' totals stay well inside them).
LOW, HIGH = -10_000.0, 10_000.0

# -- Craits (at most 5 players) ------------------------------------------------------
CRAITS_SEATS = 5
CRAITS_LAYOUT = (
    ("hand", 52, "1 for each card in the seat's own hand"),
    ("top_card", 52, "1 for the discard pile's top card"),
    ("discard", 52, "1 for each card in the discard pile below its top"),
    ("active_suit", 4, "1 for the suit in force"),
    ("hand_sizes", CRAITS_SEATS, "cards held, by relative seat"),
    ("scores", CRAITS_SEATS, "total points so far, by relative seat"),
    ("unannounced", CRAITS_SEATS, "1 for a seat that may be called out (C12)"),
    ("announced", CRAITS_SEATS, "1 for a seat that announced its last card"),
    ("skip_next", CRAITS_SEATS, "1 for a seat that loses its next turn"),
    ("turn", CRAITS_SEATS, "1 for the seat on turn"),
    ("dealer", CRAITS_SEATS, "1 for the dealer"),
    ("choosing_suit", 1, "1 while the dealer names the suit of an 8 or 9 up-card (C6)"),
    ("crank", 1, "the cards a crank makes the next seat draw (C11)"),
    ("direction", 1, "1 clockwise, -1 after a ten (C10)"),
    ("draw_pile", 1, "cards in the draw pile"),
    ("round", 1, "the round being played, from 1"),
    ("rounds", 1, "rounds in the game (8 or 15)"),
)


_NO_CARDS = array("f", bytes(4 * len(DECK)))
#: The last pile below_top was asked for and its slots (one tuple, so that threads read the two together).
_last_pile: tuple[tuple[str, ...], array] = ((), _NO_CARDS)


def below_top(discard: tuple[str, ...]) -> array:
    """A 0/1 slot for each card of ``discard`` below its top (not to be written to). From one decision to the
    next a pile gains a card or loses its top at most, so the last pile asked for is remembered and its slots
    are changed by that card, when that is all that changed."""
    global _last_pile
    pile, slots = _last_pile
    if discard is pile:
        return slots
    size = len(pile)
    if size and len(discard) == size + 1 and discard[:size] == pile:  # a card went on top: the old top is under it
        slots = slots[:]
        slots[CARD[pile[-1]]] = 1
    elif size > 1 and len(discard) == size - 1 and pile[:-1] == discard:  # the top was taken: the card under it is top
        slots = slots[:]
        slots[CARD[discard[-1]]] = 0
    else:
        slots = _NO_CARDS[:]
        for card in discard[:-1]:
            slots[CARD[card]] = 1
    _last_pile = (discard, slots)
    return slots


def _offsets(layout: tuple[tuple[str, int, str], ...]) -> dict[str, int]:
    offsets, at = {}, 0
    for name, size, _ in layout:
        offsets[name] = at
        at += size
    offsets["size"] = at
    return offsets


_C = _offsets(CRAITS_LAYOUT)


_C_ZEROS = array("f", bytes(4 * _C["size"]))
_C_TOP, _C_DISCARD, _C_SUIT = _C["top_card"], _C["discard"], _C["active_suit"]
_C_SIZES, _C_TURN, _C_DEALER = _C["hand_sizes"], _C["turn"], _C["dealer"]
_C_SCORES, _C_UNANNOUNCED, _C_ANNOUNCED, _C_SKIP = _C["scores"], _C["unannounced"], _C["announced"], _C["skip_next"]
#: The closing scalars, in a row: choosing_suit, crank, direction, draw_pile, round, rounds.
_C_CLOSING, _C_CLOSING_AT = struct.Struct("6f"), 4 * _C["choosing_suit"]


#: By player count and observer: each relative slot with the seat it shows (slot 0 the observer, then the seats to
#: its left), for tables up to either game's largest.
SEATS_FROM = {players: tuple(tuple((slot, (seat + slot) % players) for slot in range(players)) for seat in range(players))
              for players in range(1, 10)}


def craits_vector(state: Any, seat: int) -> np.ndarray:
    """The vector of a Craits seat (``CRAITS_LAYOUT``)."""
    obs = _C_ZEROS[:]
    players = state.players
    hands = state.hands
    for card in hands[seat]:
        obs[CARD[card]] = 1.0
    discard = state.discard
    if discard:
        obs[_C_TOP + CARD[discard[-1]]] = 1.0
        obs[_C_DISCARD : _C_DISCARD + 52] = below_top(discard)
    if state.active_suit is not None:
        obs[_C_SUIT + SUIT[state.active_suit]] = 1.0
    scores = state.scores
    for at, other in SEATS_FROM[players][seat]:
        obs[_C_SIZES + at] = len(hands[other])
        obs[_C_SCORES + at] = scores[other]
    for other in state.unannounced:
        obs[_C_UNANNOUNCED + (other - seat) % players] = 1.0
    for other in state.announced:
        obs[_C_ANNOUNCED + (other - seat) % players] = 1.0
    for other in state.skip_next:
        obs[_C_SKIP + (other - seat) % players] = 1.0
    if state.turn is not None:
        obs[_C_TURN + (state.turn - seat) % players] = 1.0
    if state.dealer is not None:
        obs[_C_DEALER + (state.dealer - seat) % players] = 1.0
    _C_CLOSING.pack_into(obs, _C_CLOSING_AT, state.choosing, state.crank, state.direction, len(state.pile),
                         state.round, state.rounds)
    return np.frombuffer(obs, F32)


# -- Scat (at most 9 players) --------------------------------------------------------
SCAT_SEATS = 9
SCAT_LAYOUT = (
    ("hand", 52, "1 for each card in the seat's own hand"),
    ("top_card", 52, "1 for the discard pile's top card"),
    ("discard", 52, "1 for each card in the discard pile below its top"),
    ("taken_from_discard", 52, "1 for the card just taken from the discard pile, which may not be discarded (S5)"),
    ("lives", SCAT_SEATS, "lives left, by relative seat (0: on the county)"),
    ("out", SCAT_SEATS, "1 for a seat out of the game"),
    ("turn", SCAT_SEATS, "1 for the seat on turn"),
    ("knocker", SCAT_SEATS, "1 for the seat that knocked"),
    ("dealer", SCAT_SEATS, "1 for the dealer"),
    ("stock", 1, "cards in the stock"),
    ("drawing", 1, "1 when the seat on turn is to draw (or knock)"),
    ("discarding", 1, "1 when the seat on turn is to discard"),
    ("hand_value", 1, "the own hand's value (S8, S9)"),
    ("hand_number", 1, "hands dealt so far"),
)
_S = _offsets(SCAT_LAYOUT)


_S_ZEROS = array("f", bytes(4 * _S["size"]))
#: By card, its slot in each card block (the offset added once here, not at each decision).
_S_TOP, _S_DISCARD, _S_TAKEN = ({card: _S[name] + index for card, index in CARD.items()}
                                for name in ("top_card", "discard", "taken_from_discard"))
_S_LIVES, _S_OUT, _S_TURN, _S_KNOCKER, _S_DEALER = (_S[name] for name in ("lives", "out", "turn", "knocker", "dealer"))
#: The closing scalars, in a row: stock, drawing, discarding, hand_value, hand_number.
_S_CLOSING, _S_CLOSING_AT = struct.Struct("5f"), 4 * _S["stock"]


def scat_vector(state: Any, seat: int) -> np.ndarray:
    """The vector of a Scat seat (``SCAT_LAYOUT``)."""
    obs = _S_ZEROS[:]
    players = state.rules.players
    hand = state.hands[seat]
    for card in hand:
        obs[CARD[card]] = 1.0
    discard = state.discard
    if discard:
        obs[_S_TOP[discard[-1]]] = 1.0
        for card in discard[:-1]:  # (a few cards: Scat's pile is taken from and starts again every hand)
            obs[_S_DISCARD[card]] = 1.0
    if state.taken is not None:
        obs[_S_TAKEN[state.taken]] = 1.0
    lives, out = state.lives, state.out
    for at, other in SEATS_FROM[players][seat]:
        obs[_S_LIVES + at] = lives[other]
        if out[other]:
            obs[_S_OUT + at] = 1.0
    if state.turn is not None:
        obs[_S_TURN + (state.turn - seat) % players] = 1.0
    if state.knocker is not None:
        obs[_S_KNOCKER + (state.knocker - seat) % players] = 1.0
    if state.dealer is not None:
        obs[_S_DEALER + (state.dealer - seat) % players] = 1.0
    phase = state.phase
    _S_CLOSING.pack_into(obs, _S_CLOSING_AT, len(state.stock), phase == DRAW, phase == DISCARD,
                         value_of(state, hand) if hand else 0, state.hand_number)
    return np.frombuffer(obs, F32)


#: By game: (the vector of a seat, its layout).
VECTORS: dict[str, tuple[Callable[[Any, int], np.ndarray], tuple[tuple[str, int, str], ...]]] = {
    "craits": (craits_vector, CRAITS_LAYOUT),
    "scat": (scat_vector, SCAT_LAYOUT),
}


def vector_size(game: str) -> int:
    """How many numbers a seat's vector of ``game`` holds."""
    return sum(size for _, size, _ in VECTORS[game][1])


def markdown(game: str) -> str:
    """The layout of ``game``'s vector as ``docs/env.md`` shows it."""
    lines = ["| slots | name | what |", "|---|---|---|"]
    at = 0
    for name, size, what in VECTORS[game][1]:
        slots = str(at) if size == 1 else f"{at}–{at + size - 1}"
        lines.append(f"| {slots} | `{name}` | {what} |")
        at += size
    return "\n".join(lines)

"""Cards, suits, colours and card codes (rule C1) and seats (C2).

A card is its two-character code: rank ``A23456789TJQK`` then suit ``CDHS``
(``TH`` is the ten of hearts). Codes are plain strings so that hands, piles and
events stay cheap to copy, compare and serialise.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "CDHS"
RANKS = "A23456789TJQK"
BLACK = frozenset("CS")
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
DECK_SET = frozenset(DECK)

#: Ace low: A=1 … K=13 (C4's dealer draw; Scat's straights use their own order).
RANK_NUMBER = {rank: index + 1 for index, rank in enumerate(RANKS)}


def is_card(code: object) -> bool:
    """Whether ``code`` is one of the 52 card codes."""
    return isinstance(code, str) and code in DECK_SET




def is_suit(code: object) -> bool:
    """Whether ``code`` is one of the four suit letters."""
    return isinstance(code, str) and len(code) == 1 and code in SUITS



def partner_suit(suit: str) -> str:
    """The other suit of the same colour (H↔D, C↔S)."""
    return {"H": "D", "D": "H", "C": "S", "S": "C"}[suit]


def is_full_deck(cards: Iterable[object]) -> bool:
    """Whether ``cards`` is a permutation of the 52 cards."""
    cards = list(cards)
    return len(cards) == 52 and all(is_card(card) for card in cards) and set(cards) == DECK_SET


def next_seat(seat: int, players: int, direction: int = 1) -> int:
    """The seat after ``seat`` going ``direction`` (1 clockwise = next higher number)."""
    return (seat + direction) % players

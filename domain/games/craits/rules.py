"""Craits constants and pure helpers: hand sizes, points, matching (C3, C7, C10, C14, C15)."""

from __future__ import annotations

from domain.cards import partner_suit

#: Cards dealt per player in each round (C3); ``short`` plays the first eight.
HAND_SIZES = (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)
SHORT_ROUNDS = 8
#: The most seats at a table.
MAX_PLAYERS = 5

#: Points a card left in hand scores (C14); 3s are settled by C15.
CARD_POINTS = {"A": 1, "2": 20, "3": 0, "4": 15, "5": 30, "6": 30, "7": 20, "8": 50,
               "9": 30, "T": 25, "J": 10, "Q": 10, "K": 10}
LEFTOVER_THREE = -50
CRANK_VALUE = {"A": 1, "2": 2}

DEALER_DRAW, DEAL, PLAY, OVER = "dealer_draw", "deal", "play", "over"


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

#: C18 (rules version 2): the most events a game's log holds; the game ends when it holds this many.
MAX_EVENTS = 10_000

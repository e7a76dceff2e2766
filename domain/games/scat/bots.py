"""The greedy Scat house bot: chase one suit, take the pile only when it helps, knock when strong.

It works from the seat's view only (its own hand, the discard pile, the
variants in play). In order: declare 31 whenever it may (S11); throw down or
knock when its hand is worth at least :data:`KNOCK_AT` (S9, S5); take the top
of the discard pile when keeping it makes the best three cards worth more,
else draw from the stock (S5); discard the card whose loss keeps the best
value, the lowest such card on a tie.

The game offers it as its ``greedy`` bot (:meth:`Scat.house_bot`); the house
hands it the view and a random source, the only randomness it draws.
"""

from __future__ import annotations

from typing import Any

from domain.game import Rng
from domain.games.scat.rules import hand_value

KNOCK_AT = 25  # about the value at which most opponents are beaten (S10)
DRAW_STOCK = {"type": "draw", "source": "stock"}
DRAW_PILE = {"type": "draw", "source": "discard"}


def _value(cards: list[str], variants: dict[str, Any]) -> int:
    return hand_value(cards, variants.get("three_of_a_kind", False), variants.get("straight_flush", False))


def best_discard(hand: list[str], allowed: list[str], variants: dict[str, Any]) -> str:
    """The allowed card whose discard leaves the most valuable hand (the lowest card on a tie)."""
    def kept_value(card: str) -> tuple[int, int]:
        rest = list(hand)
        rest.remove(card)
        return _value(rest, variants), -hand_value([card])

    return max(allowed, key=kept_value)


def _draw_or_knock(hand: list[str], moves: list[dict[str, Any]], state: dict[str, Any]) -> dict[str, Any]:
    variants = state.get("variants", {})
    value = _value(hand, variants)
    for strong_move in ({"type": "throw_down"}, {"type": "knock"}):
        if strong_move in moves and value >= KNOCK_AT:
            return strong_move
    top = state["top_card"]
    if DRAW_PILE in moves and top is not None:
        with_top = max(_value([*[c for c in hand if c != out], top], variants) for out in hand)
        if with_top > value or DRAW_STOCK not in moves:
            return DRAW_PILE
    return DRAW_STOCK if DRAW_STOCK in moves else moves[0]


def greedy(view: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """The greedy bot's move for the seat whose ``view`` (with ``legal_moves``) this is."""
    moves = view["legal_moves"]
    state = view["state"]
    hand = state["hand"]
    if {"type": "declare_31"} in moves:
        return {"type": "declare_31"}
    discards = [move["card"] for move in moves if move["type"] == "discard"]
    if discards:
        return {"type": "discard", "card": best_discard(hand, discards, state.get("variants", {}))}
    if DRAW_STOCK in moves or DRAW_PILE in moves:
        return _draw_or_knock(hand, moves, state)
    return rng.choice(moves)

"""The greedy Craits house bot: shed points fast, keep 8s for need, never let a last card slide.

It works from the seat's view only. In order: call out anyone who may be
called (C12); announce its own last card; after an 8 or 9 up-card name the
suit it holds most of; otherwise play the card that scores best by
:func:`play_value` (the points it sheds, plus what its ability does to the
others), announcing when the play leaves one card; draw only when it must.

The game offers it as its ``greedy`` bot (:meth:`Craits.house_bot`); the house
hands it the view and a random source, the only randomness it draws.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from domain.game import Rng
from domain.games.craits.rules import CARD_POINTS

#: Bonus for what a card's ability does to the opponents (C10).
ABILITY_BONUS = {"2": 25, "4": 12, "5": 15, "6": 8, "7": 15}
WILD_PENALTY = 60  # an 8 kept is a way out of any dead end
THREE_PENALTY = 45  # a 3 kept cancels a dear card when the round ends (C15)
NOISE, STALLED_NOISE = 4, 40


def play_value(card: str, hand: list[str], players: int, cards_to_draw: int) -> float:
    """How good shedding ``card`` is now (``cards_to_draw``: draw pile and reshuffle)."""
    if len(hand) == 1:
        return 1000.0  # going out
    rank = card[0]
    value = float(CARD_POINTS[rank])
    if cards_to_draw >= players:  # with no cards to hand out, making others draw is no threat
        value += ABILITY_BONUS.get(rank, 0) * (1 if rank != "5" else players - 1)
    if rank == "8":
        value -= WILD_PENALTY
    if rank == "3":
        value -= THREE_PENALTY
    return value


def best_suit(hand: list[str], allowed: list[str]) -> str:
    """The allowed suit the hand holds most of (8s, being wild, do not count)."""
    counts = Counter(card[1] for card in hand if card[0] != "8")
    return max(allowed, key=lambda suit: (counts[suit], -allowed.index(suit)))


def greedy(view: dict[str, Any], rng: Rng) -> dict[str, Any]:
    """The greedy bot's move."""
    moves = view["legal_moves"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for move in moves:
        by_type.setdefault(move["type"], []).append(move)
    if "call" in by_type:
        return by_type["call"][0]
    if "announce" in by_type:
        return by_type["announce"][0]
    state = view["state"]
    hand = list(state["hand"] or [])
    if "choose_suit" in by_type:
        return {"type": "choose_suit", "suit": best_suit(hand, [m["suit"] for m in by_type["choose_suit"]])}
    plays = by_type.get("play")
    if not plays:
        return by_type.get("draw", moves)[0]
    cards = sorted({move["card"] for move in plays})
    players = len(state["hand_sizes"])
    cards_to_draw = state["draw_pile"] + len(state["discard"]) - 1
    # noise breaks the endless loops deterministic players fall into when the cards
    # played are the only ones left to draw (e.g. 5s handed round and round)
    noise = NOISE if cards_to_draw >= players else STALLED_NOISE
    card = max(cards, key=lambda c: play_value(c, hand, players, cards_to_draw) + noise * rng.random())
    return _play(card, hand, plays)


def _play(card: str, hand: list[str], plays: list[dict[str, Any]]) -> dict[str, Any]:
    rest = [c for c in hand if c != card]
    options = [move for move in plays if move["card"] == card]
    suits = [move.get("suit") or card[1] for move in options]
    move: dict[str, Any] = {"type": "play", "card": card}
    if card[0] in "89":
        suit = best_suit(rest, list(dict.fromkeys(suits)))
        if suit != card[1] or card[0] == "8":  # a 9 keeping its suit is listed without one
            move["suit"] = suit
    if len(rest) == 1:
        move["announce"] = True
    return move

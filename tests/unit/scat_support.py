"""Stacked decks and small helpers for Scat's scenario tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from domain.cards import DECK
from service.local import LocalGame


def stacked_deck(
    hands: Mapping[int, Sequence[str]],
    up: str,
    stock: Sequence[str] = (),
    dealer: int = 0,
    players: int | None = None,
) -> list[str]:
    """A full 52-card order dealing ``hands`` (by seat; seats missing are out), ``up`` and then ``stock``.

    The deal goes one card at a time from the dealer's left (S4); the rest of the
    deck follows ``stock`` in a fixed order.
    """
    players = players or max(hands) + 1
    seats = [(dealer + step) % players for step in range(1, players + 1) if (dealer + step) % players in hands]
    order = [hands[seat][index] for index in range(3) for seat in seats] + [up, *stock]
    assert len(set(order)) == len(order), "a card is stacked twice"
    return order + [card for card in DECK if card not in order]


def scat_game(
    hands: Mapping[int, Sequence[str]] | Sequence[Sequence[str]],
    up: str,
    stock: Sequence[str] = (),
    dealer: int = 0,
    **options: Any,
) -> LocalGame:
    """A game whose first hand deals ``hands`` (a list by seat, or a dict) with ``dealer`` dealing."""
    if not isinstance(hands, Mapping):
        hands = dict(enumerate(hands))
    deck = stacked_deck(hands, up, stock, dealer)
    decks = [deck, *options.pop("more_decks", [])]
    return LocalGame("scat", len(hands), {"decks": decks, "first_dealer": dealer, **options})


def draw(game: LocalGame, seat: int, source: str = "stock") -> None:
    """``seat`` draws from ``stock`` or ``discard``."""
    game.move(seat, {"type": "draw", "source": source})


def discard(game: LocalGame, seat: int, card: str) -> None:
    """``seat`` discards ``card``."""
    game.move(seat, {"type": "discard", "card": card})


def turn(game: LocalGame, seat: int, card: str, source: str = "stock") -> None:
    """A whole turn: draw from ``source``, then discard ``card``."""
    draw(game, seat, source)
    discard(game, seat, card)


def knock(game: LocalGame, seat: int) -> None:
    """``seat`` knocks."""
    game.move(seat, {"type": "knock"})


def declare_31(game: LocalGame, seat: int) -> None:
    """``seat`` declares 31."""
    game.move(seat, {"type": "declare_31"})


def state_of(game: LocalGame, seat: int | None = None) -> dict[str, Any]:
    """The game's own fields as ``seat`` sees them."""
    return game.view(seat)["state"]


POINTS = {"A": 11, "K": 10, "Q": 10, "J": 10, "T": 10}
STRAIGHT_ORDER = "23456789TJQKA"


def reference_value(cards: Sequence[str], three_of_a_kind: bool = False, straight_flush: bool = False) -> int:
    """S8/S9 counted independently of the engine: every suit's total, then the options' fixed scores."""
    best = max(sum(POINTS.get(c[0]) or int(c[0]) for c in cards if c[1] == suit) for suit in "CDHS")
    ranks = sorted(STRAIGHT_ORDER.index(c[0]) for c in cards)
    if three_of_a_kind and ranks[0] == ranks[2]:
        best = max(best, 30)
    same_suit = cards[0][1] == cards[1][1] == cards[2][1]
    if straight_flush and same_suit and ranks == list(range(ranks[0], ranks[0] + 3)):
        best = max(best, 31 if ranks[0] == STRAIGHT_ORDER.index("Q") else 30)
    return best

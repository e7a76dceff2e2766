"""Helpers for Craits scenario tests: stacked decks and a few move shorthands."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from domain.cards import DECK
from domain.errors import IllegalMove
from service.local import LocalGame

#: Cards used to fill what a test leaves open: court cards first, wild cards last.
FILLERS = tuple(
    rank + suit for rank in "KQJ3A945T762" + "8" for suit in "CDHS"
)
assert sorted(FILLERS) == sorted(DECK)


def stack(
    hands: Sequence[Sequence[str]],
    up: str,
    pile: Sequence[str] = (),
    *,
    dealer: int = 0,
    size: int = 8,
) -> list[str]:
    """A full deck dealing ``hands`` (by seat; short hands are filled), turning up ``up``,
    then drawing ``pile`` first; the remaining cards follow (C5's deal order)."""
    players = len(hands)
    used = {card for hand in hands for card in hand} | {up, *pile}
    assert len(used) == sum(map(len, hands)) + 1 + len(pile), "a card is used twice"
    spare = [card for card in FILLERS if card not in used]
    dealt: list[str | None] = [None] * (size * players)
    for seat, hand in enumerate(hands):
        cards = list(hand) + [spare.pop(0) for _ in range(size - len(hand))]
        offset = (seat - dealer - 1) % players
        for index, card in enumerate(cards):
            dealt[index * players + offset] = card
    deck = [*dealt, up, *pile, *spare]
    assert sorted(deck) == sorted(DECK)
    return deck  # type: ignore[return-value]


def new_game(
    hands: Sequence[Sequence[str]],
    up: str,
    pile: Sequence[str] = (),
    *,
    dealer: int = 0,
    more_decks: Sequence[Sequence[str]] = (),
    short: bool = False,
) -> LocalGame:
    """A game whose first round is dealt from ``stack(hands, up, pile)``."""
    first = stack(hands, up, pile, dealer=dealer)
    options = {"decks": [first, *map(list, more_decks)], "first_dealer": dealer, "short": short}
    return LocalGame("craits", len(hands), options)


def play(game: LocalGame, seat: int, card: str, **fields: Any) -> list:
    """Seat ``seat`` plays ``card`` (with ``suit`` / ``announce`` if given)."""
    return game.move(seat, {"type": "play", "card": card, **fields})


def draw(game: LocalGame, seat: int) -> list:
    """Seat ``seat`` draws."""
    return game.move(seat, {"type": "draw"})


def seen(game: LocalGame, seat: int | None = None) -> dict[str, Any]:
    """The game's state object as ``seat`` sees it."""
    return game.view(seat)["state"]


def hand(game: LocalGame, seat: int) -> list[str]:
    """The cards ``seat`` holds."""
    return list(game.state.hands[seat])


def rig(game: LocalGame, **changes: Any) -> None:
    """Put the game in a state hard to reach by play (e.g. an exhausted deck)."""
    game.table = dataclasses.replace(game.table, state=dataclasses.replace(game.state, **changes))


def to_act(game: LocalGame) -> list[int]:
    """The seats the game waits for."""
    return game.view(None)["to_act"]


def refused(rule: str, action: Any, *args: Any, **kwargs: Any) -> IllegalMove:
    """Run ``action``, which must be refused as an illegal move naming ``rule``."""
    with pytest.raises(IllegalMove) as error:
        action(*args, **kwargs)
    assert error.value.rule == rule
    return error.value


def autoplay(game: LocalGame, round_number: int | None = None) -> None:
    """Play the first legal move of the seat to act until ``round_number`` is dealt, or to the end."""
    while not game.over and (round_number is None or game.state.round < round_number):
        (seat,) = to_act(game)
        game.move(seat, game.legal_moves(seat)[0])


def rig_hands(game: LocalGame, **hands_by_seat: Sequence[str]) -> None:
    """Give seats (``seat1=["QH"]``) just these cards; the cards they held go under the pile."""
    state = game.state
    hands = list(state.hands)
    given = {card for cards in hands_by_seat.values() for card in cards}
    freed = [c for seat in range(state.players) if f"seat{seat}" in hands_by_seat for c in hands[seat]]
    for name, cards in hands_by_seat.items():
        hands[int(name.removeprefix("seat"))] = tuple(cards)
    others = [tuple(c for c in hand if c not in given) if f"seat{s}" not in hands_by_seat else hand
              for s, hand in enumerate(hands)]
    pile = tuple(c for c in (*state.pile, *freed) if c not in given and c not in state.discard)
    rig(game, hands=tuple(others), pile=pile)

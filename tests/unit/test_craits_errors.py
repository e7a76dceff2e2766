"""Craits: bad input raises the typed error with a clear message and changes nothing."""

from __future__ import annotations

import pytest

from domain.errors import DomainError, IllegalMove, InvalidMove, NotYourTurn
from service.local import LocalGame
from tests.unit.craits_support import new_game, rig_hands


@pytest.fixture
def game() -> LocalGame:
    return new_game([[], ["QH", "5C"], []], "KH")


@pytest.mark.parametrize(
    ("seat", "move", "error", "words"),
    [
        (1, {"type": "fold"}, InvalidMove, "unknown move type"),
        (1, {"card": "QH"}, InvalidMove, "unknown move type"),
        (1, {"type": "play"}, InvalidMove, "needs the field 'card'"),
        (1, {"type": "play", "card": "1H"}, InvalidMove, "card code"),
        (1, {"type": "play", "card": "qh"}, InvalidMove, "card code"),
        (1, {"type": "play", "card": "QH", "suit": "D"}, InvalidMove, "takes none"),
        (1, {"type": "play", "card": "QH", "suit": "X"}, InvalidMove, "'suit' must be"),
        (1, {"type": "play", "card": "QH", "colour": "red"}, InvalidMove, "takes no field"),
        (1, {"type": "play", "card": "AS"}, IllegalMove, "does not hold AS"),
        (1, {"type": "call", "target": 7}, InvalidMove, "'target' must be a seat"),
        (1, {"type": "call", "target": -1}, InvalidMove, "'target' must be"),
        (1, {"type": "announce"}, IllegalMove, "announces"),
        (2, {"type": "play", "card": "QH"}, NotYourTurn, "may not act"),
        (0, {"type": "draw"}, NotYourTurn, "may not act"),
    ],
)
def test_bad_input_raises_a_typed_error_and_leaves_the_game_unchanged(game, seat, move, error, words):
    before, events = game.table, len(game.events)
    with pytest.raises(error, match=words) as raised:
        game.move(seat, move)
    assert isinstance(raised.value, DomainError) and raised.value.message
    assert game.table is before and game.state == before.state and len(game.events) == events


def test_a_seat_that_may_act_out_of_turn_still_cannot_play_on_anothers_turn(game):
    rig_hands(game, seat1=["QH", "5C"])
    game.move(1, {"type": "play", "card": "QH"})  # seat 1 left with one unannounced card
    assert {"type": "call", "target": 1} in game.legal_moves(0)
    with pytest.raises(NotYourTurn, match="seat 2's turn"):
        game.move(0, {"type": "play", "card": game.state.hands[0][0]})


def test_an_illegal_move_names_the_rule_it_breaks(game):
    with pytest.raises(IllegalMove) as raised:
        game.move(1, {"type": "play", "card": "5C"})
    assert raised.value.rule == "C7" and raised.value.code == "illegal_move"

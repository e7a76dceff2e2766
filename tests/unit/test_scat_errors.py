"""Scat: bad moves are refused with a typed error and a clear message, and change nothing."""

from __future__ import annotations

import pytest

from domain.errors import IllegalMove, InvalidMove, NotYourTurn
from tests.unit.scat_support import draw, scat_game

HANDS = [["KS", "QS", "4C"], ["AH", "KH", "3C"], ["5C", "6D", "7H"]]


def refused(game, seat, move, error):
    """Make ``move`` expecting ``error``; check the game did not change. Returns the error."""
    before, events = game.table, len(game.events)
    with pytest.raises(error) as caught:
        game.move(seat, move)
    assert game.table == before and len(game.events) == events
    assert caught.value.message
    return caught.value


def test_an_unknown_move_type_is_invalid():
    error = refused(scat_game(HANDS, up="9S"), 1, {"type": "play", "card": "AH"}, InvalidMove)
    assert "unknown move type" in error.message and "declare_31" in error.message


def test_a_malformed_card_code_is_invalid():
    game = scat_game(HANDS, up="9S")
    draw(game, 1)
    error = refused(game, 1, {"type": "discard", "card": "1H"}, InvalidMove)
    assert "card code" in error.message


def test_an_unknown_draw_source_is_invalid():
    refused(scat_game(HANDS, up="9S"), 1, {"type": "draw", "source": "deck"}, InvalidMove)


def test_discarding_a_card_not_in_hand_is_illegal():
    game = scat_game(HANDS, up="9S")
    draw(game, 1)
    error = refused(game, 1, {"type": "discard", "card": "2H"}, IllegalMove)
    assert error.rule == "S5" and "2H is not in your hand" in error.message


def test_a_seat_whose_turn_it_is_not_may_not_move():
    game = scat_game(HANDS, up="9S")
    error = refused(game, 2, {"type": "draw", "source": "stock"}, NotYourTurn)
    assert "[1]" in error.message


def test_a_seat_holding_31_out_of_turn_may_declare_but_not_draw():
    game = scat_game([["2C", "3C", "4D"], ["5C", "6D", "7H"], ["AS", "KS", "QS"]], up="9S")
    refused(game, 2, {"type": "draw", "source": "stock"}, NotYourTurn)


def test_discarding_the_card_just_taken_from_the_discard_pile_is_illegal():
    game = scat_game(HANDS, up="9S")
    draw(game, 1, "discard")
    error = refused(game, 1, {"type": "discard", "card": "9S"}, IllegalMove)
    assert error.rule == "S5" and "just taken from the discard pile" in error.message

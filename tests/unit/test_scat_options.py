"""Scat's options (S2 ``lives``, S9 ``three_of_a_kind``, ``straight_flush``, ``min_knock``, ``throw_down``)."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.errors import IllegalMove, InvalidOptions
from tests.unit.scat_support import declare_31, draw, knock, scat_game, state_of, turn


def knock_round(hands, **options):
    """Two players, seat 0 deals; seat 1 knocks, seat 0 draws the 2D and throws it back."""
    game = scat_game(hands, up="9S", stock=["2D"], **options)
    knock(game, 1)
    turn(game, 0, "2D")
    return state_of(game)["last_settlement"]


def test_the_lives_option_sets_every_players_starting_lives():
    game = scat_game([["KS", "QS", "4C"], ["AH", "KH", "3C"]], up="9S", lives=7)
    assert state_of(game)["lives"] == [7, 7]


@pytest.mark.parametrize("lives", [0, 11, True, "3"])
def test_the_lives_option_is_an_integer_from_1_to_10(lives):
    with pytest.raises(InvalidOptions):
        tables.create("scat", 2, {"lives": lives})


def test_three_of_a_kind_is_worth_30_at_a_showdown_with_the_option():
    hands = [["AH", "KH", "8H"], ["7C", "7D", "7S"]]
    assert knock_round(hands)["values"] == [29, 7]
    settled = knock_round(hands, three_of_a_kind=True)
    assert settled["values"] == [29, 30] and settled["lost"] == [1, 0]


def test_a_straight_flush_is_worth_30_at_a_showdown_with_the_option():
    hands = [["AH", "KH", "8H"], ["2C", "3C", "4C"]]
    assert knock_round(hands)["values"] == [29, 9]
    settled = knock_round(hands, straight_flush=True)
    assert settled["values"] == [29, 30] and settled["lost"] == [1, 0]


def test_ace_king_queen_of_a_suit_may_be_declared_as_31_with_the_straight_flush_option():
    game = scat_game([["2C", "3C", "4D"], ["QH", "KH", "AH"]], up="9S", straight_flush=True)
    declare_31(game, 1)
    assert state_of(game)["lives"] == [2, 3]


def test_a_knock_below_min_knock_is_refused():
    game = scat_game([["2C", "3C", "4D"], ["AH", "KH", "3S"]], up="9S", min_knock=22)
    assert {"type": "knock"} not in game.legal_moves(1)
    with pytest.raises(IllegalMove) as refused:
        knock(game, 1)
    assert refused.value.rule == "S9"


def test_a_knock_at_min_knock_is_accepted():
    game = scat_game([["2C", "3C", "4D"], ["AH", "KH", "3S"]], up="9S", min_knock=21)
    assert {"type": "knock"} in game.legal_moves(1)
    knock(game, 1)
    assert state_of(game)["knocker"] == 1


@pytest.mark.parametrize("min_knock", [-1, 32])
def test_min_knock_is_between_0_and_31(min_knock):
    with pytest.raises(InvalidOptions):
        tables.create("scat", 2, {"min_knock": min_knock})


HANDS_3 = [["KS", "QS", "4C"], ["AH", "KH", "3C"], ["5C", "6D", "7H"]]


def test_a_throw_down_shows_every_hand_at_once_as_a_knock():
    game = scat_game(HANDS_3, up="9S", throw_down=True)
    assert {"type": "throw_down"} in game.legal_moves(1)
    game.move(1, {"type": "throw_down"})
    settled = state_of(game)["last_settlement"]
    assert (settled["reason"], settled["knocker"]) == ("throw_down", 1)
    assert settled["hands"] == HANDS_3 and settled["lost"] == [0, 0, 1]
    assert state_of(game)["hand_number"] == 2


def test_a_throw_down_is_each_players_first_action_of_the_hand_only():
    game = scat_game(HANDS_3, up="9S", stock=["2D", "3D", "4D", "5D"], throw_down=True)
    turn(game, 1, "2D")
    game.move(2, {"type": "throw_down"})
    assert state_of(game)["last_settlement"]["knocker"] == 2
    game = scat_game(HANDS_3, up="9S", stock=["2D", "3D", "4D", "5D"], throw_down=True)
    for seat, card in ((1, "2D"), (2, "3D"), (0, "4D")):
        turn(game, seat, card)
    assert {"type": "throw_down"} not in game.legal_moves(1)
    with pytest.raises(IllegalMove) as refused:
        game.move(1, {"type": "throw_down"})
    assert refused.value.rule == "S9"


def test_no_throw_down_after_a_knock_or_after_drawing():
    game = scat_game(HANDS_3, up="9S", stock=["2D"], throw_down=True)
    knock(game, 1)
    assert {"type": "throw_down"} not in game.legal_moves(2)
    draw(game, 2)
    with pytest.raises(IllegalMove) as refused:
        game.move(2, {"type": "throw_down"})
    assert refused.value.rule == "S9"


def test_no_throw_down_without_the_option():
    game = scat_game(HANDS_3, up="9S")
    assert {"type": "throw_down"} not in game.legal_moves(1)
    with pytest.raises(IllegalMove) as refused:
        game.move(1, {"type": "throw_down"})
    assert refused.value.rule == "S9"

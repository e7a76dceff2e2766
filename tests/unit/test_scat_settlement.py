"""Scat: settling a hand (S10), declaring 31 (S11), lives, the county and the end (S2, S12)."""

from __future__ import annotations

import pytest

from domain.errors import IllegalMove
from tests.unit.scat_support import (
    declare_31,
    discard,
    draw,
    knock,
    scat_game,
    stacked_deck,
    state_of,
    turn,
)

STOCK = ["3D", "4D", "5S", "6S"]


def showdown(hands, **options):
    """Three players, seat 0 deals, seat 1 knocks at once; seats 2 and 0 draw and throw back a stock card."""
    game = scat_game(hands, up="9S", stock=STOCK, **options)
    knock(game, 1)
    turn(game, 2, "3D")
    turn(game, 0, "4D")
    return game


def test_the_single_lowest_hand_loses_one_life():
    game = showdown([["KS", "QS", "4C"], ["AH", "KH", "3C"], ["5C", "6D", "7H"]])
    settled = state_of(game)["last_settlement"]
    assert settled["reason"] == "showdown"
    assert settled["values"] == [20, 21, 7]
    assert settled["lost"] == [0, 0, 1]
    assert settled["why"] == [None, None, "the lowest hand"]
    assert state_of(game)["lives"] == [3, 3, 2]


def test_a_knocker_tied_for_lowest_is_saved_and_the_others_with_that_value_lose_a_life():
    game = showdown([["KS", "QS", "4C"], ["9H", "6H", "2C"], ["8D", "7D", "3S"]])
    assert state_of(game)["last_settlement"]["values"] == [20, 15, 15]
    assert state_of(game)["lives"] == [3, 3, 2]


def test_a_knocker_alone_lowest_loses_two_lives():
    game = showdown([["KS", "QS", "4C"], ["9H", "2C", "3S"], ["AH", "KH", "2H"]])
    assert state_of(game)["last_settlement"]["values"] == [20, 9, 23]
    assert state_of(game)["last_settlement"]["why"][1] == "the knocker alone had the lowest hand"
    assert state_of(game)["lives"] == [3, 1, 3]


def test_several_players_other_than_the_knocker_tied_lowest_each_lose_a_life():
    game = showdown([["TS", "2S", "4C"], ["AH", "KH", "3C"], ["TD", "2D", "4H"]])
    values = state_of(game)["last_settlement"]["values"]
    assert values[0] == values[2] == 12 and values[1] == 21
    assert state_of(game)["lives"] == [2, 3, 2]


def test_when_everyone_ties_the_knocker_alone_keeps_their_lives():
    game = showdown([["KS", "4C", "5D"], ["KH", "4S", "5C"], ["KD", "4H", "5H"]])
    assert state_of(game)["last_settlement"]["values"] == [10, 10, 10]
    assert state_of(game)["lives"] == [2, 3, 2]


def test_31_may_be_declared_with_the_cards_as_dealt_before_any_move():
    game = scat_game([["2C", "3C", "4D"], ["5C", "6D", "7H"], ["AS", "KS", "QS"]], up="9S")
    assert {"type": "declare_31"} in game.legal_moves(2)
    declare_31(game, 2)
    settled = state_of(game)["last_settlement"]
    assert (settled["reason"], settled["declarer"], settled["lost"]) == ("thirty_one", 2, [1, 1, 0])
    assert settled["why"] == ["seat 2 declared 31", "seat 2 declared 31", None]
    assert settled["hands"] == [None, None, ["AS", "KS", "QS"]]
    assert state_of(game)["lives"] == [2, 2, 3]
    assert state_of(game)["hand_number"] == 2


def test_31_may_be_declared_out_of_turn_without_putting_the_declarer_in_to_act():
    game = scat_game([["2C", "3C", "4D"], ["5C", "6D", "7H"], ["AS", "KS", "2H"]], up="9H", stock=["8C", "QS"])
    turn(game, 1, "8C")
    turn(game, 2, "2H")
    assert game.view(2)["to_act"] == [0]
    assert {"type": "declare_31"} in game.legal_moves(2)
    declare_31(game, 2)
    assert state_of(game)["lives"] == [2, 2, 3]


def test_31_may_be_declared_after_a_knock_and_the_knocker_loses_a_life_too():
    game = scat_game([["2C", "3C", "4D"], ["AH", "KH", "7H"], ["AS", "KS", "2H"]], up="9H", stock=["QS", "8C"])
    knock(game, 1)
    turn(game, 2, "2H")
    declare_31(game, 2)
    settled = state_of(game)["last_settlement"]
    assert (settled["knocker"], settled["lost"]) == (1, [1, 1, 0])


def test_31_cannot_be_declared_while_holding_four_cards():
    game = scat_game([["2C", "3C", "4D"], ["AS", "KS", "QS"]], up="9H", stock=["8C"])
    draw(game, 1)
    assert {"type": "declare_31"} not in game.legal_moves(1)
    with pytest.raises(IllegalMove) as refused:
        declare_31(game, 1)
    assert refused.value.rule == "S11"
    discard(game, 1, "8C")
    declare_31(game, 1)
    assert state_of(game)["lives"] == [2, 3]


def test_a_hand_not_worth_31_cannot_be_declared():
    game = scat_game([["2C", "3C", "4D"], ["AS", "KS", "2S"]], up="9H")
    with pytest.raises(IllegalMove) as refused:
        declare_31(game, 1)
    assert refused.value.rule == "S11"


def test_a_player_who_loses_their_last_life_is_on_the_county_and_still_plays():
    game = showdown([["KS", "QS", "4C"], ["AH", "KH", "3C"], ["5C", "6D", "7H"]], lives=1)
    seen = state_of(game)
    assert seen["lives"] == [1, 1, 0]
    assert seen["county"] == [2] and seen["out"] == []
    assert seen["hand_sizes"] == [3, 3, 3]


def test_a_life_lost_on_the_county_puts_a_player_out_and_the_deal_passes_over_them():
    second = {0: ["KS", "QS", "4C"], 1: ["AH", "KH", "3C"], 2: ["2C", "3D", "4H"], 3: ["TD", "9D", "5S"]}
    game = scat_game(
        [["2D", "3H", "4S"], ["5C", "6D", "7H"], ["8C", "9H", "TS"], ["AS", "KS", "QS"]],
        up="9S",
        lives=1,
        more_decks=[stacked_deck(second, up="8S", stock=["6C", "7C", "8C"], dealer=1)],
    )
    declare_31(game, 3)
    assert state_of(game)["county"] == [0, 1, 2]
    knock(game, 2)
    turn(game, 3, "6C")
    turn(game, 0, "7C")
    turn(game, 1, "8C")
    seen = state_of(game)
    assert seen["last_settlement"]["eliminated"] == [2]
    assert seen["out"] == [2]
    assert seen["dealer"] == 3 and seen["turn"] == 0
    assert seen["hand_sizes"] == [3, 3, 0, 3]


def test_the_last_player_standing_wins_and_no_hand_is_dealt_after():
    second = {0: ["2C", "3C", "4D"], 1: ["AS", "KS", "QS"], 2: ["5C", "6D", "7H"]}
    game = scat_game(
        [["2C", "3C", "4D"], ["AS", "KS", "QS"], ["5C", "6D", "7H"]],
        up="9S",
        lives=1,
        more_decks=[stacked_deck(second, up="9S", dealer=1)],
    )
    declare_31(game, 1)
    assert state_of(game)["lives"] == [0, 1, 0]
    declare_31(game, 1)
    assert game.over
    assert state_of(game)["hand_number"] == 2
    assert state_of(game)["out"] == [0, 2]
    assert game.view(None)["result"] == {"winners": [1], "lives": [0, 1, 0]}


def test_a_knocker_with_one_life_alone_lowest_goes_past_the_county_and_out():
    game = scat_game([["KS", "QS", "4C"], ["9H", "2C", "3S"]], up="9S", stock=STOCK, lives=1)
    knock(game, 1)
    turn(game, 0, "3D")
    assert game.over
    assert game.view(None)["result"] == {"winners": [0], "lives": [1, 0]}
    assert state_of(game)["last_settlement"]["eliminated"] == [1]


def test_the_game_goes_on_while_two_or_more_players_remain():
    game = showdown([["KS", "QS", "4C"], ["9H", "2C", "3S"], ["AH", "KH", "2H"]], lives=1)
    seen = state_of(game)
    assert seen["out"] == [1]
    assert not game.over
    assert seen["dealer"] == 2 and seen["turn"] == 0
    assert seen["hand_sizes"] == [3, 0, 3]

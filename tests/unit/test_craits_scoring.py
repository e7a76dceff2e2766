"""Craits scenarios: scoring, totals and winners, and what each seat sees (C14–C17)."""

from __future__ import annotations

import dataclasses

import pytest

from domain import table as tables
from domain.games.craits import GAME, OVER, RoundDealt, hand_score
from service.local import LocalGame
from tests.unit.craits_support import autoplay, new_game, play, rig_hands, seen


# C14
@pytest.mark.parametrize(
    ("card", "points"),
    [("AC", 1), ("2C", 20), ("4C", 15), ("5C", 30), ("6C", 30), ("7C", 20), ("8C", 50), ("9C", 30),
     ("TC", 25), ("JC", 10), ("QC", 10), ("KC", 10)],
)
def test_each_card_left_in_hand_scores_its_points(card, points):
    assert hand_score((card,)) == points


def test_the_player_who_went_out_scores_zero_and_the_others_their_hands():
    game = new_game([[], [], []], "KH")
    rig_hands(game, seat1=["QH"], seat2=["8C", "AD"], seat0=["9S", "TD"])
    play(game, 1, "QH")
    assert seen(game)["round_scores"] == [[55, 0, 51]]


# C15
@pytest.mark.parametrize(
    ("hand", "points"),
    [(("3C", "2C", "8C"), 20), (("3C", "3D"), -100), (("3C", "3D", "KC"), -50), (("3C", "KC", "QC"), 10),
     (("3C",), -50), (("3C", "5D", "5H"), 30)],
)
def test_each_three_cancels_the_highest_other_card_and_leftover_threes_count_minus_fifty(hand, points):
    assert hand_score(hand) == points


def test_a_hand_of_threes_left_at_the_end_of_a_round_scores_below_zero():
    game = new_game([[], []], "KH")
    rig_hands(game, seat1=["QH"], seat0=["3C", "3D"])
    play(game, 1, "QH")
    assert seen(game)["round_scores"] == [[-100, 0]]


# C16
def test_scores_add_up_over_the_rounds():
    game = LocalGame("craits", 3, {"seed": 5, "short": True})
    autoplay(game)
    state = seen(game)
    assert state["scores"] == [sum(column) for column in zip(*state["round_scores"])]
    assert game.view(0)["result"]["scores"] == state["scores"]


def test_the_lowest_total_wins():
    state = dataclasses.replace(GAME.start(3, {}), phase=OVER, scores=(40, 12, 90))
    assert GAME.result(state) == {"winners": [1], "scores": [40, 12, 90]}


def test_equal_lowest_totals_share_the_win():
    state = dataclasses.replace(GAME.start(3, {}), phase=OVER, scores=(12, 30, 12))
    assert GAME.result(state)["winners"] == [0, 2]


# C17
def test_a_player_sees_their_own_hand_and_only_the_sizes_of_the_others():
    game = LocalGame("craits", 3, {"seed": 9})
    state = seen(game, 1)
    assert state["hand"] == list(game.state.hands[1])
    assert state["hands"][1] == state["hand"] and state["hands"][0] is None and state["hands"][2] is None
    assert state["hand_sizes"] == [len(h) for h in game.state.hands]
    assert state["draw_pile"] == len(game.state.pile) and "pile" not in state


def test_a_spectator_sees_no_hand():
    game = LocalGame("craits", 3, {"seed": 9})
    state = seen(game, None)
    assert state["hand"] is None and state["hands"] == [None, None, None]


def test_the_deals_card_order_is_hidden_until_the_game_is_over_then_everything_is_public():
    game = LocalGame("craits", 2, {"seed": 4, "short": True})
    dealt = next(e for e in game.events if isinstance(e, RoundDealt))
    assert tables.redact(game.table, dealt, 0) == {"order": None, "salt": None, "commitment": dealt.commitment}
    autoplay(game)
    shown = tables.redact(game.table, dealt, 0)
    assert shown["order"] == list(dealt.order) and shown["salt"] == dealt.salt
    assert seen(game, None)["hands"] == [list(h) for h in game.state.hands]


def test_the_view_shows_the_public_table():
    game = new_game([[], [], []], "KH")
    state = seen(game, 2)
    for key in ("dealer", "top_card", "discard", "round", "rounds", "hand_size", "direction", "active_suit",
                "crank", "draw_pile", "announced", "skip_next", "scores", "round_scores"):
        assert key in state
    assert state["dealer"] == 0 and state["top_card"] == "KH" and state["round"] == 1 and state["hand_size"] == 8

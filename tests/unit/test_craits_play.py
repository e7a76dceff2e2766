"""Craits scenarios: a turn, the draw pile, abilities and the crank (C7–C11)."""

from __future__ import annotations

import pytest

from domain.errors import InvalidMove
from domain.games.craits import PileReshuffled
from tests.unit.craits_support import (
    draw,
    hand,
    new_game,
    play,
    refused,
    rig,
    seen,
    to_act,
)

NO_HEARTS = ["KC", "KD", "KS", "QC", "QD", "QS", "JC"]






# C7
def test_a_card_of_the_active_suit_may_be_played():
    game = new_game([[], ["5H"]], "TH")
    play(game, 1, "5H")
    assert seen(game)["top_card"] == "5H" and to_act(game) == [0]


def test_a_card_of_the_top_cards_rank_may_be_played():
    game = new_game([[], ["TC"]], "TH")
    play(game, 1, "TC")
    assert seen(game)["active_suit"] == "C"


def test_an_eight_may_be_played_on_anything():
    game = new_game([[], ["8C"]], "5D")
    play(game, 1, "8C", suit="S")
    assert seen(game)["active_suit"] == "S"


def test_a_card_matching_neither_suit_nor_rank_is_refused():
    game = new_game([[], ["5C"]], "TH")
    assert "matches neither" in refused("C7", play, game, 1, "5C").message


def test_a_card_of_the_same_colour_but_another_suit_is_refused():
    game = new_game([[], ["5D"]], "TH")
    refused("C7", play, game, 1, "5D")


def test_play_starts_with_the_dealers_left_neighbour():
    game = new_game([[], [], []], "KC", dealer=1)
    assert to_act(game) == [2]


# C8
def test_a_player_who_cannot_play_draws_one_and_the_turn_ends_even_if_it_could_be_played():
    game = new_game([[], ["KC", "KS", "QC", "QS", "JC", "JS", "3C", "3S"]], "AH", ["6H"])
    assert game.legal_moves(1) == [{"type": "draw"}]
    draw(game, 1)
    assert "6H" in hand(game, 1) and to_act(game) == [0]


def test_drawing_is_refused_while_a_card_can_be_played():
    game = new_game([[], ["AC"]], "AH")
    refused("C8", draw, game, 1)


# C9
def test_an_empty_draw_pile_is_refilled_lazily_from_the_discard_but_its_top_card():
    game = new_game([[], ["5D"], ["5H"], [], []], "5C")  # seats 1-4 draw for the up-card
    play(game, 1, "5D")  # four more draws leave three cards
    assert len(game.state.pile) == 3
    events = play(game, 2, "5H")  # seats 3, 4, 0 empty the pile; seat 1 needs a reshuffle
    assert [type(e) for e in events].count(PileReshuffled) == 1
    assert "5C" in hand(game, 1)  # stacked: turned over, the card played first is drawn first
    assert game.state.pile == ("5D",) and game.state.discard == ("5H",)


def test_a_draw_with_no_card_left_anywhere_is_skipped():
    game = new_game([[], NO_HEARTS + ["JS"]], "AH")
    rig(game, hands=(game.state.hands[0] + game.state.pile, game.state.hands[1]), pile=())
    draw(game, 1)
    assert seen(game)["hand_sizes"] == [43, 8] and to_act(game) == [0]


def test_a_round_ends_as_a_block_when_every_player_in_turn_can_neither_play_nor_draw():
    game = new_game([[], []], "AH")
    rig(game, hands=(("KC", "QS"), ("JC", "QC")), pile=())
    draw(game, 1)
    draw(game, 0)
    assert seen(game)["round_scores"] == [[20, 20]] and seen(game)["blocked_rounds"] == [1]


# C10
@pytest.mark.parametrize("card", ["AH", "3H", "JH", "QH", "KS"])
def test_aces_threes_and_court_cards_have_no_ability_in_normal_play(card):
    game = new_game([[], [card], []], "KH")
    play(game, 1, card)
    state = seen(game)
    assert to_act(game) == [2] and state["hand_sizes"] == [8, 7, 8] and state["crank"] == 0


def test_a_four_skips_the_next_player():
    game = new_game([[], ["4H"], []], "KH")
    play(game, 1, "4H")
    assert to_act(game) == [0]


def test_a_five_makes_every_other_player_draw_one_in_turn_order_from_the_next():
    game = new_game([[], ["5H"], []], "KH", ["6C", "6D"])
    play(game, 1, "5H")
    assert "6C" in hand(game, 2) and "6D" in hand(game, 0) and to_act(game) == [2]


def test_a_six_gives_its_player_another_turn_on_it():
    game = new_game([[], ["6H", "QH"], []], "KH")
    play(game, 1, "6H")
    assert to_act(game) == [1]
    play(game, 1, "QH")
    assert to_act(game) == [2]


def test_a_player_who_cannot_play_on_their_own_six_draws_one():
    game = new_game([[], ["6H", *NO_HEARTS], []], "KH")
    play(game, 1, "6H")
    assert game.legal_moves(1) == [{"type": "draw"}]
    draw(game, 1)
    assert seen(game)["hand_sizes"] == [8, 8, 8] and to_act(game) == [2]


def test_a_seven_makes_the_next_player_draw_one_then_play():
    game = new_game([[], ["7H"], []], "KH")
    play(game, 1, "7H")
    assert seen(game)["hand_sizes"] == [8, 7, 9] and to_act(game) == [2]


def test_a_seven_makes_whoever_actually_plays_next_draw_when_the_next_player_lost_their_turn():
    game = new_game([[], ["7H"], []], "KH")
    rig(game, skip_next=(2,))
    play(game, 1, "7H")
    state = seen(game)
    assert state["hand_sizes"] == [9, 7, 8] and to_act(game) == [0] and state["skip_next"] == []


def test_sevens_do_not_accumulate():
    game = new_game([[], ["7H"], ["7C"]], "KH")
    play(game, 1, "7H")
    play(game, 2, "7C")
    assert seen(game)["hand_sizes"] == [9, 7, 8]


def test_an_eight_names_any_suit():
    game = new_game([[], ["8C"], []], "KH")
    play(game, 1, "8C", suit="D")
    assert seen(game)["active_suit"] == "D"


def test_an_eight_without_a_suit_is_refused_as_invalid():
    game = new_game([[], ["8C"], []], "KH")
    with pytest.raises(InvalidMove, match="suit"):
        play(game, 1, "8C")


def test_a_nine_may_switch_to_the_other_suit_of_its_colour():
    game = new_game([[], ["9H"], []], "KH")
    play(game, 1, "9H", suit="D")
    assert seen(game)["active_suit"] == "D"


def test_a_nine_may_keep_its_own_suit():
    game = new_game([[], ["9H"], []], "KH")
    play(game, 1, "9H")
    assert seen(game)["active_suit"] == "H"


def test_a_nine_cannot_switch_to_a_suit_of_the_other_colour():
    game = new_game([[], ["9H"], []], "KH")
    refused("C10", play, game, 1, "9H", suit="C")


def test_a_ten_reverses_the_direction_of_play():
    game = new_game([[], ["TH"], []], "KH")
    play(game, 1, "TH")
    assert to_act(game) == [0] and seen(game)["direction"] == -1


def test_a_ten_between_two_players_reverses_without_skipping_anyone():
    game = new_game([[], ["TH"]], "KH")
    play(game, 1, "TH")
    assert to_act(game) == [0] and seen(game)["direction"] == -1


# C11
def test_a_two_starts_a_crank_that_only_aces_and_twos_answer():
    game = new_game([[], ["2H"], ["AS", "5H"]], "KH")
    play(game, 1, "2H")
    assert seen(game)["crank"] == 2
    moves = game.legal_moves(2)
    assert {"type": "play", "card": "AS"} in moves
    assert all(move["type"] == "play" and move["card"][0] in "A2" for move in moves)


def test_each_ace_or_two_of_any_suit_adds_its_value_to_the_crank():
    game = new_game([["2C"], ["2H"], ["AS"]], "KH")
    play(game, 1, "2H")
    play(game, 2, "AS")
    play(game, 0, "2C")
    assert seen(game)["crank"] == 5


def test_the_first_player_without_an_ace_or_two_draws_the_whole_count_and_play_passes_on():
    game = new_game([["2C"], ["2H", *NO_HEARTS], ["AS"]], "KH")
    play(game, 1, "2H")
    play(game, 2, "AS")
    play(game, 0, "2C")
    draw(game, 1)
    state = seen(game)
    assert state["hand_sizes"][1] == 12 and state["crank"] == 0 and to_act(game) == [2]
    assert state["active_suit"] == "C"


def test_a_player_holding_an_ace_or_two_must_answer_the_crank():
    game = new_game([[], ["2H"], ["AS", "5H"]], "KH")
    play(game, 1, "2H")
    refused("C11", draw, game, 2)
    refused("C11", play, game, 2, "5H")


def test_an_eight_cannot_be_played_in_a_crank():
    game = new_game([[], ["2H"], ["8H"]], "KH")
    play(game, 1, "2H")
    refused("C11", play, game, 2, "8H", suit="C")

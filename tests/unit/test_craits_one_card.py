"""Craits scenarios: one card left, and going out (C12, C13)."""

from __future__ import annotations

from domain.cards import DECK
from domain.games.craits import Call, hand_score
from service.local import LocalGame
from tests.unit.craits_support import (
    autoplay,
    draw,
    hand,
    new_game,
    play,
    refused,
    rig_hands,
    seen,
    stack,
    to_act,
)


def call(game: LocalGame, seat: int, target: int) -> list:
    return game.move(seat, {"type": "call", "target": target})




def three_players(seat1=("QH", "5C"), seat2=("QS",), seat0=("QC", "4S"), pile=("JD", "JS")) -> LocalGame:
    return new_game([list(seat0), list(seat1), list(seat2)], "KH", list(pile))


# C12
def test_a_play_leaving_one_card_may_be_announced_with_it():
    game = three_players()
    rig_hands(game, seat1=["QH", "5C"])
    play(game, 1, "QH", announce=True)
    assert seen(game)["announced"] == [1]
    assert {"type": "call", "target": 1} not in game.legal_moves(2)
    refused("C12", call, game, 2, 1)


def test_a_player_who_forgot_may_announce_later_out_of_turn():
    game = three_players()
    rig_hands(game, seat1=["QH", "5C"])
    play(game, 1, "QH")
    assert {"type": "announce"} in game.legal_moves(1) and to_act(game) == [2]
    game.move(1, {"type": "announce"})
    assert seen(game)["announced"] == [1] and game.legal_moves(0) == []


def test_an_opponent_out_of_turn_calls_out_an_unannounced_last_card_for_two_cards_and_a_lost_turn():
    game = three_players()
    rig_hands(game, seat1=["QH", "5C"])
    play(game, 1, "QH")
    call(game, 0, 1)
    assert seen(game)["hand_sizes"][1] == 3 and seen(game)["skip_next"] == [1]
    play(game, 2, "QS")
    play(game, 0, "QC")
    assert to_act(game) == [2] and seen(game)["skip_next"] == []


def test_a_call_on_a_player_who_announced_is_refused_with_no_penalty_to_anyone():
    game = three_players()
    rig_hands(game, seat1=["QH", "5C"])
    play(game, 1, "QH", announce=True)
    before = game.table
    refused("C12", call, game, 2, 1)
    refused("C12", game.table.game.decide, game.state, 0, Call(target=1))  # seat 0 may do nothing at all now
    assert game.table is before


def test_a_call_on_a_player_holding_more_than_one_card_is_refused():
    game = three_players()
    refused("C12", call, game, 1, 2)


def test_a_called_player_on_their_own_turn_finishes_it_and_loses_the_next():
    game = three_players(seat1=("6H", "QH"))
    rig_hands(game, seat1=["6H", "QH"])
    play(game, 1, "6H")
    call(game, 2, 1)
    assert to_act(game) == [1] and seen(game)["hand_sizes"][1] == 3
    play(game, 1, "QH")
    play(game, 2, "QS")
    play(game, 0, "QC")
    assert to_act(game) == [2]


def test_a_lost_turn_is_used_up_by_being_passed_over_by_a_four():
    game = three_players()
    rig_hands(game, seat1=["QH", "5C"])
    play(game, 1, "QH")
    call(game, 2, 1)
    play(game, 2, "QS")
    play(game, 0, "4S")
    assert to_act(game) == [2] and seen(game)["skip_next"] == []


def test_a_lost_turn_not_yet_used_lapses_when_the_round_ends():
    game = three_players()
    rig_hands(game, seat1=["QH", "5C"], seat2=["QS"])
    play(game, 1, "QH")
    call(game, 2, 1)
    play(game, 2, "QS")
    assert game.state.round == 2 and seen(game)["skip_next"] == []


def test_announcing_a_play_that_does_not_leave_one_card_is_refused():
    game = three_players()
    refused("C12", play, game, 1, "QH", announce=True)


def test_announcing_without_a_last_card_from_ones_own_play_is_refused():
    game = three_players()
    refused("C12", game.move, 1, {"type": "announce"})


def _round_eight_game(deck8: list[str]) -> LocalGame:
    decks = [list(DECK)] * 7 + [deck8]
    game = LocalGame("craits", 2, {"decks": decks, "first_dealer": 0})
    autoplay(game, round_number=8)
    return game


def test_a_single_card_dealt_in_round_eight_needs_no_announcement_and_may_go_out_at_once():
    game = _round_eight_game(stack([["KS"], ["QC"]], "KC", dealer=1, size=1))
    assert seen(game)["hand_size"] == 1 and seen(game)["unannounced"] == []
    assert {"type": "call", "target": 1} not in game.legal_moves(0)
    refused("C12", call, game, 0, 1)
    play(game, 0, "KS")
    assert seen(game)["round_scores"][7] == [0, 10]


# C13
def test_playing_the_last_card_ends_the_round_and_scores_zero():
    game = three_players()
    rig_hands(game, seat1=["QH"], seat2=["KS", "QS"], seat0=["QC", "4S"])
    play(game, 1, "QH")
    assert seen(game)["round_scores"] == [[25, 0, 20]] and game.state.round == 2


def test_a_last_seven_still_makes_the_next_player_draw():
    game = three_players(seat1=("7H",), pile=("5C",))
    rig_hands(game, seat1=["7H"], seat2=["KS"], seat0=["QC"])
    play(game, 1, "7H")
    assert seen(game)["round_scores"] == [[10, 0, 40]]


def test_a_last_five_makes_every_other_player_draw():
    game = three_players(seat1=("5H",), pile=("5C", "7D"))
    rig_hands(game, seat1=["5H"], seat2=["KS"], seat0=["QC"])
    play(game, 1, "5H")
    assert seen(game)["round_scores"] == [[30, 0, 40]]


def test_a_last_six_gives_another_turn_so_its_player_draws_and_is_not_out():
    game = three_players()
    rig_hands(game, seat1=["6H"])
    play(game, 1, "6H")
    assert game.legal_moves(1) == [{"type": "draw"}]
    draw(game, 1)
    assert game.state.round == 1 and seen(game)["hand_sizes"][1] == 1 and to_act(game) == [2]


def test_a_player_out_with_a_two_is_out_once_the_crank_is_drawn():
    game = three_players(seat2=("KS", "QS"), pile=("JD", "JS"))
    rig_hands(game, seat1=["2H"], seat2=["KS", "QS"], seat0=["QC"])
    play(game, 1, "2H")
    assert game.state.round == 1
    draw(game, 2)
    assert seen(game)["round_scores"] == [[10, 0, 40]]


def test_a_player_out_with_a_two_draws_the_count_when_the_crank_comes_back():
    game = new_game([["AS"], ["2H"]], "KH", ["JD", "JS", "JH"])
    rig_hands(game, seat1=["2H"], seat0=["AS", "QC"])
    play(game, 1, "2H")
    play(game, 0, "AS", announce=True)
    assert game.legal_moves(1) == [{"type": "draw"}]
    draw(game, 1)
    assert game.state.round == 1 and hand(game, 1) == ["JD", "JS", "JH"] and to_act(game) == [0]


def test_scores_use_the_independent_points_of_c14():
    assert hand_score(("QC", "4S")) == 25

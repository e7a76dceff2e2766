"""Craits scenarios: cards, seats, rounds, the dealer and the deal (C1–C6)."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.cards import DECK
from domain.errors import IllegalMove, InvalidMove, InvalidOptions, NotYourTurn
from domain.games.craits import GAME, HAND_SIZES, DealerDrawShuffled
from service.local import LocalGame
from tests.unit.craits_support import (
    autoplay,
    hand,
    new_game,
    play,
    seen,
    stack,
    to_act,
)


# C1
def test_every_one_of_the_52_cards_is_dealt_turned_up_or_left_in_the_pile():
    game = LocalGame("craits", 4, {"seed": 7, "first_dealer": 0})
    state = game.state
    cards = [c for h in state.hands for c in h] + list(state.pile) + list(state.discard)
    assert sorted(cards) == sorted(DECK)


def test_a_malformed_card_code_is_refused_as_invalid():
    game = new_game([["TH"], ["TC"]], "5H")
    with pytest.raises(InvalidMove, match="card code"):
        play(game, 1, "10H")


# C2
@pytest.mark.parametrize("players", [1, 6])
def test_craits_is_for_two_to_five_players(players):
    with pytest.raises(InvalidOptions, match="2 to 5"):
        tables.create("craits", players, {})


def test_the_player_left_of_the_last_seat_is_seat_zero():
    game = new_game([[], [], [], [], []], "KC", dealer=4)
    assert to_act(game) == [0]


# C3
def test_a_full_game_deals_eight_down_to_one_and_back_up_to_eight():
    game = LocalGame("craits", 2, {"seed": 3, "first_dealer": 0})
    sizes = []
    while not game.over:
        if len(sizes) < game.state.round:
            sizes.append(seen(game)["hand_size"])
        (seat,) = to_act(game)
        game.move(seat, game.legal_moves(seat)[0])
    assert sizes == list(HAND_SIZES) and seen(game)["rounds"] == 15


def test_a_short_game_plays_only_the_first_eight_rounds():
    game = LocalGame("craits", 2, {"seed": 3, "first_dealer": 0, "short": True})
    autoplay(game)
    assert len(seen(game)["round_scores"]) == 8 and seen(game)["rounds"] == 8


# C4
def _drawn(state, order):
    return GAME.evolve(state, DealerDrawShuffled(None, order=tuple(order)))


def test_the_player_drawing_the_lowest_card_deals():
    state = _drawn(GAME.start(3, {}), ["9C", "AS", "KD"])
    assert state.dealer == 1 and GAME.chance(state).kind == "deal"


def test_tied_lowest_players_draw_again_among_themselves_from_a_new_deck():
    state = _drawn(GAME.start(4, {}), ["4C", "9S", "4D", "4H"])
    request = GAME.chance(state)
    assert request.kind == "dealer_draw" and state.dealer is None
    state = _drawn(state, ["JC", "3S", "2D"])  # seats 0, 2, 3 draw in seat order
    assert state.dealer == 3
    assert GAME.view(state, None)["dealer_draws"] == [
        [[0, "4C"], [1, "9S"], [2, "4D"], [3, "4H"]],
        [[0, "JC"], [2, "3S"], [3, "2D"]],
    ]


def test_a_seeded_game_draws_for_dealer_and_shows_the_cards_to_all():
    game = LocalGame("craits", 3, {"seed": 11})
    draws = seen(game, None)["dealer_draws"]
    lowest = min(draws[-1], key=lambda pair: "A23456789TJQK".index(pair[1][0]))
    assert game.state.dealer == lowest[0] and game.state.round == 1


def test_the_deal_passes_to_the_left_after_each_round():
    game = new_game([[], []], "5C", more_decks=[list(DECK)])
    dealers = {game.state.round: game.state.dealer}
    while game.state.round < 3:
        (seat,) = to_act(game)
        game.move(seat, game.legal_moves(seat)[0])
        dealers.setdefault(game.state.round, game.state.dealer)
    assert dealers == {1: 0, 2: 1, 3: 0}


def test_first_dealer_skips_the_draw():
    game = LocalGame("craits", 3, {"first_dealer": 2, "seed": 1})
    assert game.state.dealer == 2 and seen(game)["dealer_draws"] == []


# C5
def test_the_deal_starts_left_of_the_dealer_one_card_at_a_time():
    game = LocalGame("craits", 3, {"decks": [list(DECK)], "first_dealer": 1})
    assert hand(game, 2) == list(DECK[0:24:3])
    assert hand(game, 0) == list(DECK[1:24:3])
    assert hand(game, 1) == list(DECK[2:24:3])
    assert game.state.discard == (DECK[24],) and game.state.pile == DECK[25:]


# C6
def test_a_seven_turned_up_makes_the_dealers_left_neighbour_draw():
    game = new_game([[], [], []], "7C")
    assert seen(game)["hand_sizes"] == [8, 9, 8] and to_act(game) == [1]


def test_a_four_turned_up_skips_the_dealers_left_neighbour():
    game = new_game([[], [], []], "4C")
    assert to_act(game) == [2]


def test_a_ten_turned_up_lets_the_dealers_right_neighbour_play_first():
    game = new_game([[], [], []], "TC")
    assert to_act(game) == [2] and seen(game)["direction"] == -1


def test_a_five_turned_up_makes_everyone_but_the_dealer_draw():
    game = new_game([[], [], []], "5C")
    assert seen(game)["hand_sizes"] == [8, 9, 9]


def test_a_two_turned_up_starts_a_crank_the_next_player_must_answer():
    game = new_game([[], ["AH"]], "2C")
    assert seen(game)["crank"] == 2
    assert game.legal_moves(1) == [{"type": "play", "card": "AH"}]


def test_an_eight_turned_up_lets_the_dealer_name_the_suit_first():
    game = new_game([[], []], "8C")
    assert to_act(game) == [0]
    assert game.legal_moves(0) == [{"type": "choose_suit", "suit": s} for s in "CDHS"]
    with pytest.raises(NotYourTurn):
        play(game, 1, hand(game, 1)[0])
    game.move(0, {"type": "choose_suit", "suit": "H"})
    assert seen(game)["active_suit"] == "H" and to_act(game) == [1]


def test_a_nine_turned_up_lets_the_dealer_switch_to_the_other_suit_of_its_colour():
    game = new_game([[], []], "9H")
    assert game.legal_moves(0) == [{"type": "choose_suit", "suit": "H"}, {"type": "choose_suit", "suit": "D"}]
    with pytest.raises(IllegalMove) as refused:
        game.move(0, {"type": "choose_suit", "suit": "C"})
    assert refused.value.rule == "C6"
    game.move(0, {"type": "choose_suit", "suit": "D"})
    assert seen(game)["active_suit"] == "D"


def test_the_dealer_may_keep_the_suit_of_a_nine_turned_up():
    game = new_game([[], []], "9H")
    game.move(0, {"type": "choose_suit", "suit": "H"})
    assert seen(game)["active_suit"] == "H" and to_act(game) == [1]


def test_a_six_turned_up_gives_the_dealer_a_turn():
    game = new_game([["6D", "QC"], []], "6C")
    assert to_act(game) == [0]
    play(game, 0, "6D")
    assert to_act(game) == [0]


def test_choosing_a_suit_is_refused_when_no_eight_or_nine_was_turned_up():
    game = new_game([[], ["KC"]], "QC")
    with pytest.raises(IllegalMove) as refused:
        game.move(1, {"type": "choose_suit", "suit": "H"})
    assert refused.value.rule == "C6"


def test_a_stack_helper_puts_every_hand_where_the_deal_sends_it():
    deck = stack([["AC"], ["AD"], ["AH"]], "2S", ["3S"], dealer=2)
    game = LocalGame("craits", 3, {"decks": [deck], "first_dealer": 2})
    assert [hand(game, seat)[0] for seat in range(3)] == ["AC", "AD", "AH"]
    assert game.state.pile[0] == "3S"

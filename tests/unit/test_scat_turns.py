"""Scat: players, the dealer, the deal and the turn (S1, S3–S8)."""

from __future__ import annotations

import pytest

from domain import table as tables
from domain.cards import DECK
from domain.errors import IllegalMove, InvalidOptions
from domain.games.scat.events import DealerDrawShuffled
from service.local import LocalGame
from tests.unit.scat_support import (
    discard,
    draw,
    knock,
    scat_game,
    stacked_deck,
    state_of,
    turn,
)

HANDS_3 = [["KS", "QS", "4C"], ["AH", "KH", "3C"], ["5C", "6D", "7H"]]


@pytest.mark.parametrize("players", [1, 10])
def test_scat_is_for_two_to_nine_players(players):
    with pytest.raises(InvalidOptions):
        tables.create("scat", players, {})


def test_nine_players_are_dealt_from_one_deck():
    game = LocalGame("scat", 9, {"seed": 3, "first_dealer": 0})
    seen = state_of(game)
    assert seen["hand_sizes"] == [3] * 9 and seen["stock"] == 52 - 27 - 1


def draw_for_dealer(players, *orders):
    """A table after dealer draws whose shuffles put ``orders`` (the cards each contender draws) on top."""
    log = [tables.create("scat", players, {})]
    for seat in range(players):
        log.append(tables.take_seat(tables.replay(log), name=f"p{seat}"))
    for top in orders:
        log.append(DealerDrawShuffled(None, order=tuple(top) + tuple(c for c in DECK if c not in top)))
    return tables.replay(log)


def test_the_lowest_card_of_the_dealer_draw_deals_and_the_cards_are_public():
    table = draw_for_dealer(3, ["9C", "4S", "KD"])
    seen = tables.view(table, None)["state"]
    assert seen["dealer"] == 1
    assert seen["dealer_draw"] == [[{"seat": 0, "card": "9C"}, {"seat": 1, "card": "4S"}, {"seat": 2, "card": "KD"}]]
    assert tables.chance(table).kind == "deal"


def test_players_tied_lowest_draw_again_among_themselves_with_the_ace_low():
    table = draw_for_dealer(4, ["AC", "5S", "AD", "2H"])
    assert tables.chance(table).kind == "dealer_draw"
    table = draw_for_dealer(4, ["AC", "5S", "AD", "2H"], ["7C", "3S"])
    seen = tables.view(table, None)["state"]
    assert seen["dealer_draw"][1] == [{"seat": 0, "card": "7C"}, {"seat": 2, "card": "3S"}]
    assert seen["dealer"] == 2


def test_the_dealer_draw_never_uses_a_stacked_deck():
    game = LocalGame("scat", 2, {"decks": [stacked_deck({0: ["AS", "KS", "QS"], 1: ["2C", "3C", "4C"]}, "5D")]})
    assert state_of(game)["dealer_draw"]
    assert state_of(game, state_of(game)["dealer"])["hand"] != []


def test_the_same_seed_and_the_same_moves_give_the_same_game():
    games = [LocalGame("scat", 4, {"seed": 99}) for _ in range(2)]
    for game in games:
        seat = state_of(game)["turn"]
        draw(game, seat)
        discard(game, seat, state_of(game, seat)["hand"][0])
    assert games[0].table == games[1].table  # (each shuffle has its own salt: the cards are the same)
    other_seed = LocalGame("scat", 4, {"seed": 98}).table
    assert other_seed.state.hands != games[0].table.state.hands


def test_first_dealer_skips_the_dealer_draw():
    game = scat_game(HANDS_3, up="9S", dealer=2)
    assert state_of(game)["dealer"] == 2 and state_of(game)["dealer_draw"] == []


def test_the_deal_starts_left_of_the_dealer_and_turns_up_the_next_card():
    deck = [f"{rank}{suit}" for suit in "SHDC" for rank in "AKQJT98765432"]
    game = LocalGame("scat", 3, {"decks": [deck], "first_dealer": 1})
    seen = [state_of(game, seat)["hand"] for seat in range(3)]
    assert seen[2] == [deck[0], deck[3], deck[6]]
    assert seen[0] == [deck[1], deck[4], deck[7]]
    assert seen[1] == [deck[2], deck[5], deck[8]]
    assert state_of(game)["discard"] == [deck[9]]
    assert state_of(game)["stock"] == 42


def test_the_player_left_of_the_dealer_moves_first_and_play_goes_clockwise():
    game = scat_game(HANDS_3, up="9S", stock=["2D", "3D", "4D"], dealer=1)
    assert game.view(None)["to_act"] == [2]
    turn(game, 2, "2D")
    assert game.view(None)["to_act"] == [0]
    turn(game, 0, "3D")
    assert game.view(None)["to_act"] == [1]


def test_a_turn_is_a_draw_from_the_stock_or_the_pile_then_a_discard():
    game = scat_game(HANDS_3, up="9S", stock=["2D"])
    assert game.legal_moves(1) == [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
        {"type": "knock"},
    ]
    draw(game, 1, "discard")
    assert state_of(game, 1)["hand"] == ["AH", "KH", "3C", "9S"]
    assert state_of(game)["taken_from_discard"] == "9S" and state_of(game)["phase"] == "discard"
    discard(game, 1, "3C")
    assert state_of(game)["discard"] == ["3C"] and state_of(game, 1)["hand"] == ["AH", "KH", "9S"]


def test_the_card_taken_from_the_discard_pile_cannot_be_discarded_the_same_turn():
    game = scat_game(HANDS_3, up="9S")
    draw(game, 1, "discard")
    assert {"type": "discard", "card": "9S"} not in game.legal_moves(1)
    with pytest.raises(IllegalMove) as refused:
        discard(game, 1, "9S")
    assert refused.value.rule == "S5"


def test_a_card_drawn_from_the_stock_may_be_discarded_at_once():
    game = scat_game(HANDS_3, up="9S", stock=["2D"])
    turn(game, 1, "2D")
    assert state_of(game)["top_card"] == "2D" and state_of(game, 1)["hand"] == ["AH", "KH", "3C"]


def test_a_player_must_draw_before_discarding_and_discard_before_anything_else():
    game = scat_game(HANDS_3, up="9S", stock=["2D"])
    with pytest.raises(IllegalMove) as refused:
        discard(game, 1, "3C")
    assert refused.value.rule == "S5"
    draw(game, 1)
    for move in ({"type": "draw", "source": "stock"}, {"type": "knock"}):
        with pytest.raises(IllegalMove) as refused:
            game.move(1, move)
        assert refused.value.rule == "S5"


def test_a_knock_keeps_the_hand_and_ends_the_turn_even_as_the_first_move():
    game = scat_game(HANDS_3, up="9S")
    knock(game, 1)
    seen = state_of(game, 1)
    assert seen["knocker"] == 1 and seen["hand"] == ["AH", "KH", "3C"] and seen["turn"] == 2


def test_after_a_knock_every_other_player_has_one_more_turn_then_hands_are_shown():
    game = scat_game(HANDS_3, up="9S", stock=["2D", "3D"])
    knock(game, 1)
    assert {"type": "knock"} not in game.legal_moves(2)
    with pytest.raises(IllegalMove) as refused:
        knock(game, 2)
    assert refused.value.rule == "S6"
    turn(game, 2, "2D")
    assert state_of(game)["hand_number"] == 1
    turn(game, 0, "3D")
    settled = state_of(game)["last_settlement"]
    assert settled["hand_number"] == 1 and settled["knocker"] == 1
    assert settled["hands"] == HANDS_3
    assert state_of(game)["hand_number"] == 2


def test_a_showdown_counts_each_hand_by_its_best_suit():
    game = scat_game(HANDS_3, up="9S", stock=["2D", "3D"])
    knock(game, 1)
    turn(game, 2, "2D")
    turn(game, 0, "3D")
    assert state_of(game)["last_settlement"]["values"] == [20, 21, 7]


def run_out_the_stock(game, players):
    """Every player draws from the stock and throws that card back until one card is left; the next seat."""
    seat = 1
    while state_of(game)["stock"] > 1:
        draw(game, seat)
        discard(game, seat, state_of(game, seat)["hand"][-1])
        seat = (seat + 1) % players
    return seat


def test_the_hand_is_void_when_the_last_stock_card_is_drawn_with_nobody_knocked():
    game = scat_game(HANDS_3, up="9S")
    seat = run_out_the_stock(game, 3)
    draw(game, seat)
    assert state_of(game)["stock"] == 0 and state_of(game)["hand_number"] == 1
    discard(game, seat, state_of(game, seat)["hand"][-1])
    seen = state_of(game)
    assert seen["last_settlement"]["reason"] == "void" and seen["last_settlement"]["lost"] == [0, 0, 0]
    assert seen["lives"] == [3, 3, 3]
    assert seen["hand_number"] == 2 and seen["dealer"] == 1


def test_after_a_knock_a_player_facing_an_empty_stock_draws_from_the_discard_pile():
    game = scat_game(HANDS_3, up="9S")
    seat = run_out_the_stock(game, 3)
    knock(game, seat)
    following = (seat + 1) % 3
    draw(game, following)
    discard(game, following, state_of(game, following)["hand"][-1])
    last = (following + 1) % 3
    assert state_of(game)["stock"] == 0
    assert game.legal_moves(last) == [{"type": "draw", "source": "discard"}]
    with pytest.raises(IllegalMove) as refused:
        draw(game, last)
    assert refused.value.rule == "S7"
    draw(game, last, "discard")
    discard(game, last, state_of(game, last)["hand"][0])
    assert state_of(game)["last_settlement"]["reason"] == "showdown"

"""Scat: what each player may see (S13), in views and in the log."""

from __future__ import annotations

from domain import table as tables
from tests.unit.scat_support import declare_31, draw, knock, scat_game, state_of, turn

HANDS = [["KS", "QS", "4C"], ["AH", "KH", "3C"], ["5C", "6D", "7H"]]


def redacted(game, seat):
    """The log as ``seat`` may read it: ``(type, seat, data)``."""
    return [(e.type_name(), e.seat, tables.redact(game.table, e, seat)) for e in game.events]


def test_a_player_sees_their_own_hand_and_no_other():
    game = scat_game(HANDS, up="9S")
    seen = state_of(game, 1)
    assert seen["hand"] == HANDS[1]
    assert seen["hands"] == [None, HANDS[1], None]
    assert seen["hand_values"] == [None, 21, None]
    assert seen["top_card"] == "9S" and seen["stock"] == 52 - 10


def test_a_spectator_sees_no_hand():
    seen = state_of(scat_game(HANDS, up="9S"))
    assert seen["hand"] is None and seen["hands"] == [None, None, None]


def test_the_value_of_four_cards_is_that_of_the_best_three():
    game = scat_game(HANDS, up="9S", stock=["TH"])
    draw(game, 1)
    assert state_of(game, 1)["hand_values"][1] == 31


def test_a_card_drawn_from_the_stock_is_hidden_from_the_others_in_the_log():
    game = scat_game(HANDS, up="9S", stock=["2D"])
    draw(game, 1)
    assert redacted(game, 1)[-1] == ("CardDrawn", 1, {"source": "stock", "card": "2D"})
    assert redacted(game, 0)[-1] == ("CardDrawn", 1, {"source": "stock", "card": None})
    assert redacted(game, None)[-1][2]["card"] is None


def test_a_card_taken_from_the_discard_pile_is_public():
    game = scat_game(HANDS, up="9S")
    draw(game, 1, "discard")
    assert redacted(game, 0)[-1][2] == {"source": "discard", "card": "9S"}
    assert state_of(game, 0)["taken_from_discard"] == "9S"


def test_the_shuffles_are_secret_until_the_game_is_over():
    game = scat_game(HANDS, up="9S")
    deals = [data for kind, _, data in redacted(game, 1) if kind == "DeckShuffled"]
    dealt = next(event for event in game.events if event.type_name() == "DeckShuffled")
    assert deals == [{"order": None, "salt": None, "commitment": dealt.commitment}]


def test_hands_shown_at_a_showdown_are_public_in_the_settlement():
    game = scat_game(HANDS, up="9S", stock=["2D", "3D"])
    knock(game, 1)
    turn(game, 2, "2D")
    turn(game, 0, "3D")
    for seat in (None, 0, 1, 2):
        settled = state_of(game, seat)["last_settlement"]
        assert settled["hands"] == HANDS and settled["values"] == [20, 21, 7]
    hands_now = state_of(game, 0)["hands"]
    assert hands_now[1] is None and hands_now[2] is None


def test_a_declared_31_shows_the_declarers_hand_only():
    game = scat_game([["2C", "3C", "4D"], ["5C", "6D", "7H"], ["AS", "KS", "QS"]], up="9S")
    declare_31(game, 2)
    assert state_of(game, 0)["last_settlement"]["hands"] == [None, None, ["AS", "KS", "QS"]]
    declared = [data for kind, _, data in redacted(game, 0) if kind == "ThirtyOneDeclared"]
    assert declared == [{"cards": ["AS", "KS", "QS"]}]


def test_everything_is_public_once_the_game_is_over():
    game = scat_game([["KS", "QS", "4C"], ["9H", "2C", "3S"]], up="9S", stock=["2D"], lives=1)
    knock(game, 1)
    turn(game, 0, "2D")
    assert game.over
    assert state_of(game, None)["hands"] == [["KS", "QS", "4C"], ["9H", "2C", "3S"]]
    assert all(data is not None for _, _, data in redacted(game, None))
    assert redacted(game, 1)[-3][2]["card"] == "2D"

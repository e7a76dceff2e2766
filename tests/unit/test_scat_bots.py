"""Scat house bots: the greedy bot plays legal moves only and beats the random bot clearly."""

from __future__ import annotations

import random

import pytest

import bots
from domain.games.scat.bots import best_discard, greedy
from service.local import LocalGame
from tests.unit.scat_support import draw, scat_game

GAMES = 100


def play_bots(kinds: tuple[str, ...], seed: int, **options) -> LocalGame:
    """A game where each seat's bot moves on its turn, as the service runs them."""
    rng = random.Random(seed)
    game = LocalGame("scat", len(kinds), {"seed": seed, **options})
    while not game.over:
        (seat,) = game.view(None)["to_act"]
        view = game.view(seat)
        move = bots.choose("scat", kinds[seat], view, rng)
        assert move in view["legal_moves"], move
        game.move(seat, move)
    return game


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_beats_random_uniform_moves(players):
    wins = 0
    for seed in range(GAMES):
        greedy_seat = seed % players
        kinds = tuple("greedy" if seat == greedy_seat else "random" for seat in range(players))
        wins += play_bots(kinds, seed).view(None)["result"]["winners"] == [greedy_seat]
    assert wins / GAMES >= 0.8, f"greedy won {wins} of {GAMES}"


@pytest.mark.parametrize("options", [{}, {"three_of_a_kind": True, "straight_flush": True, "throw_down": True},
                                     {"min_knock": 24}])  # (the highest minimum S14 allows five players of three lives)
def test_greedy_bots_finish_games_among_themselves(options):
    assert play_bots(("greedy",) * 5, seed=5, **options).over


def test_the_greedy_bot_declares_31_when_it_may():
    game = scat_game([["2C", "3C", "4D"], ["5C", "6D", "7H"], ["AS", "KS", "QS"]], up="9S")
    assert greedy(game.view(2), random.Random(1)) == {"type": "declare_31"}


def test_the_greedy_bot_takes_the_discard_only_when_it_improves_the_hand():
    game = scat_game([["2C", "3C", "4D"], ["AH", "5C", "7D"]], up="KH")
    assert greedy(game.view(1), random.Random(1)) == {"type": "draw", "source": "discard"}
    game = scat_game([["2C", "3C", "4D"], ["AH", "KH", "7D"]], up="2S")
    assert greedy(game.view(1), random.Random(1)) == {"type": "draw", "source": "stock"}


def test_the_greedy_bot_knocks_on_a_strong_hand():
    game = scat_game([["2C", "3C", "4D"], ["AH", "KH", "5H"]], up="2S")
    assert greedy(game.view(1), random.Random(1)) == {"type": "knock"}


def test_the_greedy_bot_discards_the_card_that_keeps_the_best_value():
    game = scat_game([["2C", "3C", "4D"], ["AH", "9C", "7D"]], up="KH")
    draw(game, 1, "discard")
    assert greedy(game.view(1), random.Random(1)) == {"type": "discard", "card": "7D"}
    assert best_discard(["AH", "KH", "2C", "3D"], ["AH", "KH", "2C", "3D"], {}) == "2C"


def test_the_random_bot_is_shown_only_its_legal_moves_and_plays_as_it_would_on_its_whole_view():
    assert not bots.needs_view("random") and bots.needs_view("greedy")
    game = LocalGame("scat", 3, {"seed": 11})
    for step in range(60):
        if game.over:
            break
        (seat,) = game.view(None)["to_act"]
        view = game.view(seat)
        moves_only = {"legal_moves": view["legal_moves"]}
        whole = bots.choose("scat", "random", view, random.Random(step))
        assert whole == bots.choose("scat", "random", moves_only, random.Random(step))
        assert bots.out_of_turn("scat", "random", view, random.Random(step)) == bots.out_of_turn(
            "scat", "random", moves_only, random.Random(step))
        game.move(seat, whole)

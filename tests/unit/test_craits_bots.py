"""Craits house bots: legal moves only, and greedy beats random clearly."""

from __future__ import annotations

import random

import pytest

import bots
from service.local import LocalGame

GAMES = 200


def play_bots(kinds: tuple[str, ...], seed: int) -> LocalGame:
    """A short game where each seat's bot moves on its turn, as the service runs them."""
    rng = random.Random(seed)
    game = LocalGame("craits", len(kinds), {"seed": seed, "short": True})
    while not game.over:
        (seat,) = game.view(None)["to_act"]
        view = game.view(seat)
        move = bots.choose("craits", kinds[seat], view, rng)
        assert move in view["legal_moves"], move
        game.move(seat, move)
    return game


def test_greedy_beats_random_in_two_player_short_games():
    wins = 0
    for seed in range(GAMES):
        greedy_seat = seed % 2
        kinds = ("greedy", "random") if greedy_seat == 0 else ("random", "greedy")
        result = play_bots(kinds, seed).view(None)["result"]
        wins += result["winners"] == [greedy_seat]
    assert wins / GAMES >= 0.65, f"greedy won {wins} of {GAMES}"


@pytest.mark.parametrize("players", [3, 5])
def test_greedy_bots_finish_games_among_themselves(players):
    assert play_bots(("greedy",) * players, seed=players).over


def test_an_unknown_bot_kind_is_refused():
    with pytest.raises(ValueError, match="unknown bot"):
        bots.choose("craits", "clever", {"legal_moves": [{"type": "draw"}]}, random.Random(1))

"""Craits property tests: thousands of random complete games keep every invariant.

Each game is played through the game interface exactly as the service drives it
(chance outcomes from :mod:`service.chance`); every seat that may act picks
uniformly among its legal moves, so announcements and call-outs happen out of
turn too. Cheap invariants are checked after every event, costly ones on a
seeded sample of states.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.cards import DECK, SUITS
from domain.errors import DomainError
from domain.events import Event
from domain.games.craits import (
    GAME,
    Announce,
    Call,
    ChooseSuit,
    CraitsState,
    Draw,
    Play,
    hand_score,
)
from service.chance import draw
from service.local import LOCAL_SECRET

MAX_EVENTS = 20_000
SAMPLE = 0.02  # share of states that get the costly checks
SNAPSHOT_EVERY = 5  # every fifth game also replays one sampled point

POINTS = {"A": 1, "2": 20, "4": 15, "5": 30, "6": 30, "7": 20, "8": 50, "9": 30, "T": 25, "J": 10, "Q": 10, "K": 10}


def independent_score(hand: tuple[str, ...]) -> int:
    """C14/C15 written another way: cancel the dearest card for each 3, one at a time."""
    left = [POINTS[card[0]] for card in hand if card[0] != "3"]
    total = 0
    for _ in range(sum(card[0] == "3" for card in hand)):
        if left:
            left.remove(max(left))
        else:
            total -= 50
    return total + sum(left)


CARD_STRING = re.compile(r'"([A2-9TJQK][CDHS])"')


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value."""
    return set(CARD_STRING.findall(json.dumps(value)))


def check_cards(state: CraitsState) -> None:
    if state.round == 0:
        return
    cards = [*state.pile, *state.discard]
    for hand in state.hands:
        cards += hand
    assert len(cards) == 52 and len(set(cards)) == 52, "a card is missing or twice"


def check_views(state: CraitsState) -> None:
    public = set(state.discard) | {card for draw in state.dealer_draws for _, card in draw}
    for seat in (*range(state.players), None):
        view = GAME.view(state, seat)
        own = set(state.hands[seat]) if seat is not None else set()
        assert cards_in(view) <= public | own, f"seat {seat} sees a hidden card"
        assert all(hand is None for other, hand in enumerate(view["hands"]) if other != seat)


def random_move(rng: random.Random, players: int) -> Any:
    kind = rng.randrange(5)
    if kind == 0:
        return Play(rng.choice(DECK), rng.choice((None, *SUITS)), rng.random() < 0.3)
    if kind == 1:
        return Draw()
    if kind == 2:
        return ChooseSuit(rng.choice(SUITS))
    if kind == 3:
        return Announce()
    return Call(rng.randrange(players + 1))


def canonical(move: Any) -> Any:
    """A 9 keeping its own suit is listed without a suit."""
    if isinstance(move, Play) and move.card[0] == "9" and move.suit == move.card[1]:
        return Play(move.card, None, move.announce)
    return move


def check_decisions(state: CraitsState, rng: random.Random) -> None:
    for seat in range(state.players):
        legal = GAME.legal_moves(state, seat)
        for move in legal:
            assert GAME.decide(state, seat, move), f"legal {move} refused"
        for _ in range(6):
            move = random_move(rng, state.players)
            if canonical(move) in legal:
                continue
            try:
                GAME.decide(state, seat, move)
            except DomainError:
                continue
            raise AssertionError(f"seat {seat}'s {move} outside {legal} was accepted")


def fold(events: list[Event], players: int, options: dict[str, Any]) -> CraitsState:
    state = GAME.start(players, options)
    for event in events:
        state = GAME.evolve(state, event)
    return state


def play_game(players: int, short: bool, seed: int) -> list[Event]:
    """One random game with every invariant checked; returns its log."""
    rng = random.Random(seed)
    options = GAME.validate_options(players, {"seed": seed, "short": short})
    state = GAME.start(players, options)
    log: list[Event] = []
    snapshots: list[tuple[int, CraitsState]] = []  # one sampled point, replayed at the end
    while not GAME.is_over(state):
        request = GAME.chance(state)
        if request is not None:
            events = [draw(request, options, len(log) + players + 2, LOCAL_SECRET)]
        else:
            assert GAME.to_act(state), "nobody may act and no chance is due"
            seat, move = rng.choice([(s, m) for s in range(players) for m in GAME.legal_moves(state, s)])
            events = GAME.decide(state, seat, move)
        for event in events:
            rounds_scored = len(state.round_scores)
            state = GAME.evolve(state, event)
            log.append(event)
            check_cards(state)
            if len(state.round_scores) > rounds_scored:
                assert list(state.round_scores[-1]) == [independent_score(h) for h in state.hands]
            if rng.random() < SAMPLE:
                check_views(state)
                check_decisions(state, rng)
                if not snapshots and seed % SNAPSHOT_EVERY == 0:
                    snapshots.append((len(log), state))
        assert len(log) < MAX_EVENTS, "the game does not end"
    assert fold(log, players, options) == state
    for length, snapshot in snapshots:
        assert fold(log[:length], players, options) == snapshot
    assert list(state.scores) == [sum(column) for column in zip(*state.round_scores)]
    assert len(state.round_scores) == (8 if short else 15)
    return log


GAMES = {(2, True): 520, (3, True): 440, (4, True): 380, (5, True): 360,
         (2, False): 100, (3, False): 80, (4, False): 70, (5, False): 60}
GAMES_PER_TEST = {True: 60, False: 15}  # about the same time per test, so parallel workers share them evenly


def batches():  # type: ignore[no-untyped-def]
    """Every game of GAMES by player count and length, in batches of GAMES_PER_TEST."""
    for (players, short), games in GAMES.items():
        size = GAMES_PER_TEST[short]
        for first in range(0, games, size):
            indexes = range(first, min(first + size, games))
            yield pytest.param(players, short, indexes,
                               id=f"{players}p-{'short' if short else 'full'}-{first}-{indexes[-1]}")


@pytest.mark.slow
@pytest.mark.parametrize(("players", "short", "indexes"), batches())
def test_random_complete_games_keep_every_invariant(players, short, indexes):
    for index in indexes:
        play_game(players, short, seed=players * 100_000 + short * 10_000 + index)


def test_the_batches_play_every_game_once():
    played = [(param.values[0], param.values[1], index) for param in batches() for index in param.values[2]]
    assert len(played) == len(set(played)) == sum(GAMES.values())


@given(st.lists(st.sampled_from(DECK), max_size=12, unique=True))
def test_hand_scores_agree_with_an_independent_reading_of_c14_and_c15(hand):
    assert hand_score(tuple(hand)) == independent_score(tuple(hand))

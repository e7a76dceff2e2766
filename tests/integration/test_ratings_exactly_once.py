"""Ratings are applied exactly once: rated games finish while two processes apply the projection
and a third is killed (-9) mid-way and started again; every game is applied once, and a rebuild
from the events gives the live table to the last bit."""

from __future__ import annotations

import collections
import itertools
import multiprocessing
import os
import signal

import pytest

import persistence
from service.challenges import Challenges
from service.games import GameService
from service.ratings import Ratings
from service.sweeper import Sweeper
from tests.integration import workers

SPAWN = multiprocessing.get_context("spawn")
GAMES = 60  # (each played to its end by house bots in this process while the others apply)


def finish_rated_games(games: GameService, keys: list[str], count: int) -> None:
    """``count`` rated games between pairs of the keys' accounts, each ended by both seats resigning
    (the house bots play it out, in the steps a server's sweeper plays)."""
    challenges = Challenges(games)
    pairs = itertools.cycle(itertools.combinations(keys, 2))
    for _ in range(count):
        first, second = next(pairs)
        offered = challenges.create(games.accounts.caller(first), "craits", 2, {"short": True}, rated=True)
        game_id = challenges.accept(games.accounts.caller(second), offered["id"])["game_id"]
        games.resign(game_id, first)
        games.resign(game_id, second)
        while Sweeper(games).sweep():
            pass


def applier(url: str) -> multiprocessing.Process:
    process = SPAWN.Process(target=workers.apply_ratings_until, args=(url, GAMES, 500))
    process.start()
    return process


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.timeout(600)
def test_every_rated_game_is_applied_once_across_processes_and_a_restart(backend: str, request) -> None:  # type: ignore[no-untyped-def]
    url = request.getfixturevalue("sqlite_url" if backend == "sqlite" else "postgres_url")
    games = GameService(persistence.open_store(url))
    try:
        keys = [games.accounts.create_account(name, "bot")["key"] for name in ("ana", "bo", "cy", "di")]
        appliers = [applier(url) for _ in range(3)]
        finish_rated_games(games, keys, GAMES // 2)
        os.kill(appliers[2].pid, signal.SIGKILL)  # (perhaps inside its transaction)
        appliers[2].join()
        appliers[2] = applier(url)
        finish_rated_games(games, keys, GAMES - GAMES // 2)
        for process in appliers:
            process.join(500)
            assert process.exitcode == 0
        ratings = Ratings(games)
        assert ratings.ladder.applied() == GAMES and ratings.catch_up() == 0
        rows, changes = ratings.ladder.table()
        assert collections.Counter(change[0] for change in changes) == {seq: 2 for seq in range(1, GAMES + 1)}
        assert len({change[3] for change in changes}) == GAMES  # (every game, each in one finish)
        assert sum(row[5] for row in rows) == 2 * GAMES  # (each account's count of games: two seats a game)
        assert ratings.rebuild() == GAMES
        assert ratings.ladder.table() == (rows, changes)
    finally:
        games.store.close()

"""Each Swiss round is made exactly once: three processes look for rounds that are over while this
one ends each round's games, and one of them is killed (-9) mid-way and started again; the
tournament ends with every round made once, no game made twice or left over, and every participant
told of each round once."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

import persistence
from domain import table as tables
from service.games import GameService
from service.sweeper import Sweeper
from service.tournaments import Tournaments
from tests.integration import workers

SPAWN = multiprocessing.get_context("spawn")
NAMES = ("ana", "bo", "cy", "di", "ed")
ROUNDS = 4


def advancer(url: str, tournament_id: str) -> multiprocessing.Process:
    process = SPAWN.Process(target=workers.advance_tournament_until, args=(url, tournament_id, 300))
    process.start()
    return process


def wait_for_round(tournaments: Tournaments, tournament_id: str, number: int) -> dict:  # type: ignore[type-arg]
    """The tournament once it has made round ``number`` (another process makes it)."""
    until = time.time() + 120
    while (found := tournaments.get(tournament_id))["round"] < number:
        assert time.time() < until, f"round {number} was never made"
        time.sleep(0.02)
    return found


def end_games(games: GameService, keys: dict[str, str], entries: list[dict]) -> None:  # type: ignore[type-arg]
    """Each game ended by its seats resigning: the house bots play it out, as a server's sweeper has them
    (a request plays a bounded number of events, the sweeps the rest)."""
    for entry in entries:
        for name in entry["seats"]:
            if games.table(entry["game_id"]).status not in tables.OVER:
                games.resign(entry["game_id"], keys[name])
    sweeper = Sweeper(games)
    while sweeper.sweep():
        pass


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
@pytest.mark.timeout(600)
def test_every_swiss_round_is_made_once_across_processes_and_a_restart(backend: str, request) -> None:  # type: ignore[no-untyped-def]
    url = request.getfixturevalue("sqlite_url" if backend == "sqlite" else "postgres_url")
    games = GameService(persistence.open_store(url))
    try:
        keys = {name: games.accounts.create_account(name, "bot")["key"] for name in NAMES}
        tournaments = Tournaments(games)
        tournament_id = tournaments.create(games.accounts.caller(keys["ana"]), "craits", list(NAMES), 2, "swiss",
                                           rounds=ROUNDS, duplicate=False)["id"]
        processes = [advancer(url, tournament_id) for _ in range(3)]
        for number in range(1, ROUNDS + 1):
            found = wait_for_round(tournaments, tournament_id, number)
            if number == 2:
                os.kill(processes[2].pid, signal.SIGKILL)  # (perhaps inside its transaction)
                processes[2].join()
                processes[2] = advancer(url, tournament_id)
            end_games(games, keys, [entry for entry in found["games"] if entry["round"] == number])
        for process in processes:
            process.join(300)
            assert process.exitcode == 0
        done = tournaments.get(tournament_id)
        assert (done["status"], done["round"]) == ("finished", ROUNDS) and tournaments.advance_all() == []
        assert [entry["round"] for entry in done["games"]] == [number for number in range(1, ROUNDS + 1)
                                                               for _ in range(2)]
        assert len({bye["account"] for bye in done["byes"]}) == len(done["byes"]) == ROUNDS  # (never a second bye)
        for name in NAMES:
            listed = sum(name in entry["seats"] for entry in done["games"])
            assert games.accounts.store.games_of(name) == (listed, [])  # (no game made beside the listed)
            heard = [event.type for event in games.accounts.store.events(name, 0, 1000)]
            assert heard.count("tournamentRound") == ROUNDS - 1 and heard.count("gameStart") == listed
    finally:
        games.store.close()

"""A tournament survives kill -9 of every server process mid-round and finishes with the same standings
as an uninterrupted run of the same seeds.

Four bot accounts play a duplicate Swiss tournament of Scat (two rounds, two tables a round) over HTTP
with their own keys, each deciding from its own view alone (a greedy player knocking at a threshold of
its own, so the accounts play differently). Played to its end uninterrupted, it stands A. Its replay
(``replay_of``: the same seed, so the same deals and the same Swiss lot) is played by the same bots,
and in the middle of its first round every server process is killed at once, as a crashed host stops,
then started again over the same database; the bots carry on where the games stand. It must stand as
A, every game finished in its players' own moves (no turn timed out: the clock is a minute a move, which
the restart stays well inside even on a busy machine: in CI it once took 10.4 s),
its second round made by a restarted server. SQLite: one server of two workers; PostgreSQL: two
servers of two workers each, as the other kill tests run it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import threading
import time
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import Any

import httpx
import pytest

from domain.games.scat import bots as scat_bots
from domain.games.scat.rules import hand_value
from tests.e2e.server import ServerProcess, start_server
from tests.integration.multiprocess_http import all_events, bearer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

#: Each account's bot knocks (or throws down) once its hand is worth this much, and plays Scat's
#: greedy house strategy otherwise.
KNOCK_AT = {"ana": 18, "bo": 22, "cy": 26, "dee": 29}
STRONG = ({"type": "knock"}, {"type": "throw_down"})
OVER = ("finished", "aborted")
PATIENCE = 120.0  # seconds a tournament may take to be played out
MOVE_SECONDS = 60  # the tournament's clock: a turn that times out (the servers being down longer) fails the test


def decide(name: str, view: dict[str, Any]) -> dict[str, Any]:
    """Account ``name``'s move from its view: the same view, the same move."""
    moves, state = view["legal_moves"], view["state"]
    variants = state.get("variants", {})
    value = hand_value(state["hand"], variants.get("three_of_a_kind", False), variants.get("straight_flush", False))
    strong = [move for move in STRONG if move in moves]
    if strong and value >= KNOCK_AT[name]:
        return strong[0]
    return scat_bots.greedy({**view, "legal_moves": [move for move in moves if move not in STRONG]}, Random(0))


class Bots:
    """The accounts' bots on a tournament: each of its games played by a thread of its own from the moment
    the tournament lists it; a server that does not answer is asked again until it does."""

    def __init__(self, bases: list[str], keys: dict[str, str]) -> None:
        self.bases, self.keys = bases, keys
        self.moves: collections.Counter[int] = collections.Counter()  # by round
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()

    def play(self, tournament_id: str, meanwhile: Callable[[], None] = lambda: None) -> dict[str, Any]:
        """The tournament once it is finished and every game's thread is done; ``meanwhile`` is called
        between looks at it."""
        threads: dict[str, threading.Thread] = {}
        deadline = time.monotonic() + PATIENCE
        while True:
            tournament = self.get(0, f"/v1/tournaments/{tournament_id}")
            for index, entry in enumerate(tournament["games"]):
                if entry["game_id"] not in threads:
                    threads[entry["game_id"]] = thread = threading.Thread(
                        target=self._play_game, args=(index, entry), name=f"game-{entry['game_id']}", daemon=True)
                    thread.start()
            assert not self.errors, self.errors
            if tournament["status"] == "finished":
                for thread in threads.values():
                    thread.join(30)
                assert not self.errors, self.errors
                return tournament
            assert time.monotonic() < deadline, "the tournament was not played out in time"
            meanwhile()
            time.sleep(0.1)

    def get(self, index: int, path: str, key: str | None = None) -> Any:
        """The JSON a GET of ``path`` answers through server ``index`` (modulo), or the next one that answers."""
        deadline = time.monotonic() + PATIENCE
        for tried in itertools.count(index):
            try:
                answer = httpx.get(self.bases[tried % len(self.bases)] + path, headers=bearer(key), timeout=30)
                if answer.status_code != 503:
                    assert answer.status_code == 200, answer.text
                    return answer.json()
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"no server answered GET {path}"
            time.sleep(0.05)
        raise AssertionError("unreachable")

    def _play_game(self, index: int, entry: dict[str, Any]) -> None:
        try:
            self._play(index, entry)
        except BaseException as error:  # reported by play()
            self.errors.append(error)

    def _play(self, index: int, entry: dict[str, Any]) -> None:
        """Every move of the game's seats, each from its own view, until it is over."""
        game_id, seats = entry["game_id"], entry["seats"]
        turn: dict[str, Any] | None = None  # a view whose seat is to act, as the last move's answer gave it
        next_seat: int | None = None  # the seat to act next, as the last move's answer said
        while True:
            if turn is None:
                for name in seats if next_seat is None else [seats[next_seat]]:
                    view = self.get(index, f"/v1/games/{game_id}/state", self.keys[name])
                    if view["status"] in OVER:
                        return
                    if view["seat"] in view["to_act"]:
                        turn = view
                        break
                else:  # (the game went on by itself between two looks)
                    next_seat = None
                    time.sleep(0.02)
                    continue
            name = seats[turn["seat"]]
            move = {**decide(name, turn), "expected_version": turn["version"]}
            try:
                answer = httpx.post(f"{self.bases[index % len(self.bases)]}/v1/games/{game_id}/moves", json=move,
                                    headers=bearer(self.keys[name]), timeout=30)
            except httpx.TransportError:  # (made or not: the game's state says, and the same view the same move)
                turn, next_seat, index = None, None, index + 1  # (through the next server, if there are two)
                continue
            if answer.status_code in (409, 503):  # (made before the server died, its answer lost; or starting)
                turn, next_seat = None, None
                continue
            assert answer.status_code == 201, answer.text
            with self._lock:
                self.moves[entry["round"]] += 1
            body = answer.json()
            turn = body if body["status"] == "active" and body["seat"] in body["to_act"] else None
            next_seat = body["to_act"][0] if turn is None and body["to_act"] else None


def sign_up(base: str, name: str) -> str:
    created = httpx.post(f"{base}/v1/accounts", json={"name": name, "kind": "bot"}, timeout=30)
    assert created.status_code == 201, created.text
    return created.json()["key"]


def create(base: str, key: str, **more: Any) -> dict[str, Any]:
    made = httpx.post(f"{base}/v1/tournaments", headers=bearer(key), timeout=30, json={
        "game": "scat", "format": "swiss", "accounts": list(KNOCK_AT), "players_per_table": 2, "rounds": 2,
        "duplicate": True, "move_seconds": MOVE_SECONDS, **more})
    assert made.status_code == 201, made.text
    return made.json()


def dealt_as(tournament: dict[str, Any]) -> list[tuple[int, int, int, list[str]]]:
    """Who sat where in each game of the tournament."""
    return [(entry["round"], entry["table"], entry["turn"], entry["seats"]) for entry in tournament["games"]]


def restart(servers: list[ServerProcess], database: str, directory: Path,
            starting: concurrent.futures.Executor) -> list[concurrent.futures.Future[ServerProcess]]:
    """Every server process SIGKILLed at once; then the first server started again on its port and the
    database, answering when this returns, and the others started by ``starting`` behind it (the bots
    turn to the first meanwhile: servers started together on a busy machine slow each other down)."""
    for server in servers:
        server.kill()
    servers[0] = start_server(directory, database=database, workers=2, port=servers[0].port, log_name="again0.log")
    return [starting.submit(start_server, directory, database=database, workers=2, port=servers[number].port,
                            log_name=f"again{number}.log") for number in range(1, len(servers))]


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_a_tournament_killed_mid_round_finishes_as_an_uninterrupted_run_of_its_seeds(backend, request, tmp_path):  # type: ignore[no-untyped-def]
    if backend == "sqlite":
        database, count = f"sqlite:///{tmp_path / 'cardhall.db'}", 1
    else:
        database, count = request.getfixturevalue("postgres_database")(), 2
    servers = [start_server(tmp_path, database=database, workers=2, log_name=f"server{number}.log")
               for number in range(count)]
    starting = concurrent.futures.ThreadPoolExecutor(1)
    later: list[concurrent.futures.Future[ServerProcess]] = []  # the servers started again behind the first
    try:
        bases = [server.base_url for server in servers]
        keys = {name: sign_up(bases[0], name) for name in KNOCK_AT}
        uninterrupted = Bots(bases, keys)
        first = uninterrupted.play(create(bases[0], keys["ana"])["id"])

        replayed = Bots(bases, keys)
        kill_at = uninterrupted.moves[1] // 2  # (half-way through the first round: every table is playing)
        killed: list[int] = []  # the moves made when it was
        down: list[float] = []  # seconds from the kill until the servers answered again

        def kill_once_half_way() -> None:
            if not killed and replayed.moves[1] >= kill_at:
                killed.append(replayed.moves[1])
                began = time.monotonic()
                later.extend(restart(servers, database, tmp_path, starting))
                down.append(time.monotonic() - began)  # (until the first answered)

        second = replayed.play(create(bases[0], keys["bo"], replay_of=first["id"])["id"], kill_once_half_way)
        assert killed and killed[0] < uninterrupted.moves[1] < sum(replayed.moves.values())  # (killed mid-round 1)
        assert second["replay_of"] == first["id"]
        for tournament in (first, second):
            assert [entry["status"] for entry in tournament["games"]] == ["finished"] * 8
        logs = {entry["game_id"]: [(event["type"], event["seat"]) for event in all_events(bases[0], entry["game_id"])]
                for entry in first["games"] + second["games"]}
        for game_id, logged in logs.items():  # (every move the bots' own)
            assert not {kind for kind, _ in logged} & {"TurnTimedOut", "SeatAbandoned", "SeatResigned"}, \
                f"game {game_id}: a turn timed out (the servers were down {down[0]:.1f} s)"
        assert dealt_as(second) == dealt_as(first)  # (the same Swiss lot and standings: round 2 paired alike)
        for before, after in zip(first["games"], second["games"], strict=True):
            assert logs[after["game_id"]] == logs[before["game_id"]]  # (the same games, move for move)
        assert [(row["account"], row["points"], row["games"]) for row in second["standings"]] == \
            [(row["account"], row["points"], row["games"]) for row in first["standings"]]
        assert second["standings"] == first["standings"] and second["crosstable"] == first["crosstable"]
    finally:
        starting.shutdown()  # (once the servers it starts answer)
        for server in servers + [started.result() for started in later if started.exception() is None]:
            server.stop()  # (a killed one's stop does nothing)

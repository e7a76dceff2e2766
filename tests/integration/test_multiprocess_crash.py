"""kill -9 one of two server processes in the middle of play: nothing acknowledged is lost, play goes on."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import httpx
import pytest

from domain import table as tables
from tests.e2e.server import start_server
from tests.integration.multiprocess_http import (
    actor,
    all_events,
    as_json,
    assert_versions_whole,
    new_game,
    next_turn,
    post_move,
    replayed,
    servers_over,
    turn_move,
)

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(240)]
GAMES = [("craits", 3, 1, {"short": True}), ("scat", 3, 2, {}), ("craits", 2, 1, {"short": True}),
         ("scat", 4, 1, {})]
KILL_AFTER_MOVES = 30


class Player(threading.Thread):
    """Plays one game to its end through whichever servers answer; records every event a 201 acknowledged."""

    def __init__(self, bases: list[str], game_id: str, tokens: list[str], seed: int) -> None:
        super().__init__(name=f"player-{game_id}", daemon=True)
        self.bases, self.game_id, self.tokens = bases, game_id, tokens
        self.rng = random.Random(seed)
        self.acknowledged: list[tuple[int, str, int | None]] = []
        self.moves = 0
        self.next_turn: tuple[str, dict[str, Any]] | None = None
        self.error: Exception | None = None

    def run(self) -> None:
        try:
            while self._one_move():
                pass
        except (AssertionError, httpx.HTTPError) as error:  # reported by the test
            self.error = error

    def _one_move(self) -> bool:
        turn, self.next_turn = self.next_turn or self._turn(), None
        if turn is None:
            return False
        token, view = turn
        move = {**turn_move(view, self.rng), "expected_version": view["version"]}
        answer = post_move(self.bases, self.game_id, token, move, f"move-{view['version']}", self.rng)
        assert answer.status_code == 201, answer.text
        body = answer.json()
        self.acknowledged.extend((e["version"], e["type"], e["seat"]) for e in body["events"])
        self.moves += 1
        self.next_turn = next_turn(token, body)
        return True

    def _turn(self) -> tuple[str, dict[str, Any]] | None:
        """Whose turn it is, asking any server that answers."""
        while True:
            try:
                with httpx.Client(base_url=self.rng.choice(self.bases), timeout=30) as http:
                    return actor(http, self.game_id, self.tokens)
            except httpx.TransportError:
                time.sleep(0.05)


def wait_for_moves(players: list[Player], count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while sum(player.moves for player in players) < count:
        assert time.monotonic() < deadline, "play is too slow"
        assert not any(player.error for player in players), [p.error for p in players if p.error]
        time.sleep(0.05)


def assert_game_replays(base: str, player: Player) -> None:
    """The finished log holds every acknowledged event, replays through the reducers to what the server shows."""
    events = all_events(base, player.game_id)
    assert_versions_whole(events)
    logged = {(e["version"], e["type"], e["seat"]) for e in events}
    assert set(player.acknowledged) <= logged
    table = replayed(events)
    assert table.status == tables.FINISHED and table.version == len(events)
    with httpx.Client(base_url=base, timeout=30) as http:
        assert http.get(f"/v1/games/{player.game_id}/state").json() == as_json(tables.view(table, None))
        middle = len(events) // 2
        then = tables.replay(tables.decode(events[0]["data"]["game"], e["type"], e["seat"], e["data"])
                             for e in events[:middle])
        assert http.get(f"/v1/games/{player.game_id}/state", params={"at": middle}).json() == as_json(
            tables.view(then, None, reveal_all=True, with_moves=False))


def test_a_server_killed_mid_play_loses_no_acknowledged_move_and_play_continues_after_its_restart(
    postgres_database, tmp_path
):
    database = postgres_database()
    with servers_over(database, tmp_path) as servers:
        bases = [server.base_url for server in servers]
        games = [new_game(bases[n % 2], game, players, humans, seed=100 + n, **options)
                 for n, (game, players, humans, options) in enumerate(GAMES)]
        players = [Player(bases, game_id, tokens, seed=n) for n, (game_id, tokens) in enumerate(games)]
        for player in players:
            player.start()
        wait_for_moves(players, KILL_AFTER_MOVES)
        victim = servers[0]
        victim.kill()
        killed_at = sum(player.moves for player in players)
        wait_for_moves(players, killed_at + 15)  # the other server carries play alone
        servers[0] = start_server(tmp_path, database=database, workers=2, port=victim.port, log_name="server0.log")
        restarted_at = sum(player.moves for player in players)
        for player in players:
            player.join(timeout=150)
        assert not any(player.is_alive() for player in players), "a game did not finish"
        assert not [player.error for player in players if player.error]
        assert sum(player.moves for player in players) > restarted_at  # play went on through both again
        for player in players:
            assert_game_replays(servers[player.moves % 2].base_url, player)

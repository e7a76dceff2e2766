"""Two server processes over one PostgreSQL, their sweepers racing over 50 games whose deadlines
have all passed: each turn times out once, a full turn after it began."""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter

import pytest

import persistence
from domain import table as tables
from service.games import GameService
from service.tables import decode
from tests.integration.multiprocess_http import servers_over

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(240)]
GAMES = 50
SECONDS = 1


def expired_games(url: str, count: int) -> list[str]:
    """``count`` two-seat games, an idle person and a house bot, whose turns began a minute ago."""
    past = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)
    games = GameService(persistence.open_store(url), clock=lambda: past)
    ids = []
    for seed in range(count):
        game_id = games.create_game("craits", 2, {"seed": seed, "short": True, "move_seconds": SECONDS})["id"]
        games.join(game_id, "idle")
        games.join(game_id, bot="greedy")
        ids.append(game_id)
    games.store.close()
    return ids


def test_racing_sweepers_time_each_turn_out_once(postgres_url, tmp_path):
    store = persistence.open_store(postgres_url)
    with servers_over(postgres_url, tmp_path, count=2, workers=2) as servers:
        ids = expired_games(postgres_url, GAMES)  # (the four sweepers are running: they race for them at once)
        until = time.monotonic() + 120
        while any(store.get_game(game_id).status != "finished" for game_id in ids):
            assert time.monotonic() < until, "the sweepers did not finish every game"
            time.sleep(0.5)
    for server in servers:  # a sweeper logs what it could not do and goes on: nothing was logged
        assert "Traceback" not in server.log_path.read_text()
    timed_out: Counter[tuple[str, int]] = Counter()
    for game_id in ids:
        stored = store.read(game_id)
        assert [event.version for event in stored] == list(range(1, len(stored) + 1))
        table = None
        for event in stored:
            if event.type == "TurnTimedOut":
                assert table is not None and table.clock is not None
                began = stored[table.clock.turn_version - 1].recorded_at
                assert event.recorded_at - began >= dt.timedelta(seconds=SECONDS), (game_id, event.version)
                timed_out[game_id, table.clock.turn_version] += 1
            table = tables.evolve(table, decode("craits", event))
        assert [event.type for event in stored].count("SeatAbandoned") == 1
    assert set(timed_out.values()) == {1} and len(timed_out) == 3 * GAMES
    store.close()

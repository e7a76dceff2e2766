"""Turn clocks through the service and a real store, with a fake clock and the sweeper's one sweep."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator
from typing import Any

import pytest

import persistence
from domain import table as tables
from domain.errors import AbandonedSeat
from service.games import GameService
from service.sweeper import Sweeper
from service.tables import TableCache, fold

SECONDS = 30
START = dt.datetime(2026, 12, 1, 9, 0, tzinfo=dt.UTC)


class FakeClock:
    """The time the service reads: set by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> dt.datetime:
        return self.now

    def pass_seconds(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture(params=["memory", "sqlite"])
def clocked(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[tuple[GameService, FakeClock]]:
    url = "memory://" if request.param == "memory" else f"sqlite:///{tmp_path / 'cardhall.db'}"
    if request.param != "memory":
        persistence.upgrade(url)
    clock = FakeClock()
    service = GameService(persistence.open_store(url), clock=clock)
    service.cache = TableCache(service.store, snapshot_every=10)  # snapshots are taken, and loaded
    yield service, clock
    service.store.close()


def started(service: GameService, game: str, players: int, **options: Any) -> tuple[str, list[str]]:
    game_id = service.create_game(game, players, {"move_seconds": SECONDS, **options})["id"]
    return game_id, [service.join(game_id, f"p{seat}")["token"] for seat in range(players)]


def turn_move(view: dict[str, Any]) -> dict[str, Any]:
    return next(move for move in view["legal_moves"] if move["type"] not in ("announce", "call", "declare_31"))


def test_a_view_carries_the_deadline_the_turn_began_with(clocked):
    service, clock = clocked
    game_id, tokens = started(service, "scat", 2, seed=4)
    assert service.view(game_id, tokens[0])["deadline"] == "2026-12-01T09:00:30.000Z"
    clock.pass_seconds(12.5)
    seat = service.view(game_id, None)["to_act"][0]
    answer = service.move(game_id, tokens[seat], turn_move(service.view(game_id, tokens[seat]))).body
    assert answer["deadline"] == "2026-12-01T09:00:42.500Z" == service.view(game_id, None)["deadline"]
    assert service.view(game_id, None, at=answer["version"] - 1)["deadline"] == "2026-12-01T09:00:30.000Z"


def test_a_game_without_a_clock_has_no_deadline_in_its_views(clocked):
    service, _ = clocked
    game_id = service.create_game("craits", 2, {"seed": 1})["id"]
    service.join(game_id, "a")
    assert "deadline" not in service.view(game_id, None)
    assert service.store.due_games(START + dt.timedelta(days=400)) == []


def test_a_sweep_times_out_only_the_turns_whose_deadline_has_passed(clocked):
    service, clock = clocked
    late, _ = started(service, "craits", 2, seed=2)
    clock.pass_seconds(10)
    early, _ = started(service, "craits", 2, seed=3)
    clock.pass_seconds(SECONDS - 10)
    assert service.store.due_games(clock()) == [(late, service.table(late).version)]
    assert Sweeper(service).sweep() == 1
    assert [e["type"] for e in service.events(early, None)["events"]].count("TurnTimedOut") == 0
    assert [e["type"] for e in service.events(late, None)["events"]].count("TurnTimedOut") == 1
    assert Sweeper(service).sweep() == 0  # the new turn's deadline is ahead


def test_a_move_after_the_deadline_but_before_the_sweep_is_played_as_usual(clocked):
    service, clock = clocked
    game_id, tokens = started(service, "scat", 2, seed=5)
    clock.pass_seconds(SECONDS + 5)
    seat = service.view(game_id, None)["to_act"][0]
    version = service.table(game_id).version
    assert service.move(game_id, tokens[seat], turn_move(service.view(game_id, tokens[seat]))).body["version"] > version
    assert not service.act_when_due(game_id, version)  # the sweeper came second: the move stands
    assert Sweeper(service).sweep() == 0
    assert all(e["type"] != "TurnTimedOut" for e in service.events(game_id, None)["events"])


def test_replay_of_a_game_with_timeouts_equals_the_live_table_at_every_version(clocked):
    service, clock = clocked
    rng = random.Random(7)
    game_id, tokens = started(service, "craits", 3, seed=7, short=True)
    live = {service.table(game_id).version: service.table(game_id)}
    sweeper = Sweeper(service)
    while service.table(game_id).status == tables.ACTIVE:
        clock.pass_seconds(1)
        view = service.view(game_id, None)
        if rng.random() < 0.2:
            clock.pass_seconds(SECONDS)
            assert sweeper.sweep() == 1
        elif view["to_act"] and service.table(game_id).seats[view["to_act"][0]].bot is None:
            token = tokens[view["to_act"][0]]
            service.move(game_id, token, turn_move(service.view(game_id, token)))
        live[service.table(game_id).version] = service.table(game_id)
    stored = service.store.read(game_id)
    assert any(event.type == "TurnTimedOut" for event in stored)
    for version, table in live.items():
        assert fold(None, stored[:version]) == table
    cold = GameService(service.store, clock=clock)
    assert cold.table(game_id) == fold(None, stored)


def test_an_abandoned_seats_token_sees_no_legal_moves_and_is_refused_while_the_others_play_on(clocked):
    service, clock = clocked
    game_id = service.create_game("craits", 3, {"move_seconds": SECONDS, "seed": 12, "short": True})["id"]
    idle, active = (service.join(game_id, name)["token"] for name in ("idle", "active"))
    service.join(game_id, bot="greedy")
    while 0 not in service.table(game_id).abandoned:
        clock.pass_seconds(1)
        if service.view(game_id, None)["to_act"] == [0]:
            clock.pass_seconds(SECONDS)
            assert Sweeper(service).sweep() == 1
        else:
            service.move(game_id, active, turn_move(service.view(game_id, active)))
    assert service.view(game_id, None)["status"] == "active"
    assert service.view(game_id, idle)["legal_moves"] == []
    with pytest.raises(AbandonedSeat):
        service.move(game_id, idle, {"type": "draw"})
    service.move(game_id, active, turn_move(service.view(game_id, active)))  # the game goes on

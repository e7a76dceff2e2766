"""Turn clocks over HTTP: the deadline in views, a bad clock refused, an abandoned seat's token refused,
and a real server whose sweeper finishes a game with an idle seat by itself."""

from __future__ import annotations

import datetime as dt
import itertools
import time

import httpx

from api.errors import STATUS_OF_CODE
from cardhall_client.errors import ERRORS, SeatAbandoned, error_from
from service.sweeper import Sweeper
from tests.e2e.server import running_server
from tests.e2e.test_games_resource import assert_problem


def test_a_clocked_games_views_carry_an_rfc3339_utc_deadline(http):
    game_id, tokens = http.started("scat", 2, seed=4, move_seconds=45)
    view = http.state(game_id, tokens[0]).json
    deadline = dt.datetime.fromisoformat(view["deadline"])
    assert view["deadline"].endswith("Z") and view["to_act"]
    assert dt.timedelta(seconds=40) < deadline - dt.datetime.now(dt.UTC) <= dt.timedelta(seconds=45)
    assert "deadline" not in http.state(http.started("scat", 2)[0]).json


def test_a_clock_out_of_range_is_a_422_and_creates_nothing(http):
    before = http.client.get("/v1/games").json["games"]
    for seconds in (0, 86_401, "60", 2.5):
        response = http.client.post("/v1/games", json={"game": "craits", "players": 2,
                                                       "options": {"move_seconds": seconds}})
        assert_problem(response, 422, "validation_error")
    assert http.client.get("/v1/games").json["games"] == before


def test_after_three_timeouts_in_a_row_the_seats_token_gets_409_seat_abandoned(http, games):
    clock = [dt.datetime.now(dt.UTC)]
    games.clock = lambda: clock[0]
    game_id = http.create("craits", 2, seed=9, move_seconds=5, short=True)
    token = http.join(game_id, "idle")
    assert http.bot(game_id, "random").status_code == 201
    for _ in range(3):
        clock[0] += dt.timedelta(seconds=5)
        assert Sweeper(games).sweep() == 1
    summary = http.played_out(game_id)
    assert summary["seats"][0]["bot"] == "random" and summary["status"] == "finished"
    version = summary["version"]
    assert_problem(http.move(game_id, token, {"type": "draw"}), 409, "seat_abandoned")
    assert http.version(game_id) == version
    types = [event["type"] for event in http.events(game_id, limit=1000).json["events"]]
    assert types.count("TurnTimedOut") == 3 and types.count("SeatAbandoned") == 1


def test_a_real_server_finishes_a_two_seat_game_with_an_idle_seat_by_itself(tmp_path):
    with running_server(tmp_path) as base, httpx.Client(base_url=base, timeout=30) as client:
        game_id = client.post("/v1/games", json={"game": "craits", "players": 2,
                                                 "options": {"move_seconds": 1, "short": True}}).json()["id"]
        client.post(f"/v1/games/{game_id}/seats", json={"name": "idle"})
        client.post(f"/v1/games/{game_id}/seats", json={"bot": "random"})
        started = time.monotonic()
        while (summary := client.get(f"/v1/games/{game_id}").json())["status"] != "finished":
            assert time.monotonic() - started < 30, summary
            time.sleep(0.2)
        events = client.get(f"/v1/games/{game_id}/events", params={"limit": 1000}).json()["events"]
    timeouts = [event for event in events if event["type"] == "TurnTimedOut"]
    assert [event["seat"] for event in timeouts] == [0, 0, 0]
    assert summary["seats"][0]["bot"] == "random"
    gaps = [dt.datetime.fromisoformat(later["recorded_at"]) - dt.datetime.fromisoformat(earlier["recorded_at"])
            for earlier, later in itertools.pairwise(timeouts)]
    assert all(dt.timedelta(seconds=1) <= gap < dt.timedelta(seconds=10) for gap in gaps), gaps


def test_the_client_has_an_exception_for_seat_abandoned_and_every_other_code_the_server_maps():
    assert isinstance(error_from(409, {"code": "seat_abandoned", "detail": "a bot plays it"}), SeatAbandoned)
    assert set(STATUS_OF_CODE) - {"unavailable"} <= set(ERRORS)

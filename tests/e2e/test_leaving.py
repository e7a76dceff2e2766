"""Games always end: a seat resigns (a house bot plays it on, rule L1 of each game), a seated player aborts a
waiting game, and the sweeper ends games nobody changed for too long — each an event in the log."""

from __future__ import annotations

import datetime as dt
import time

import httpx
import pytest

from domain.leaving import IdleLimits
from service.sweeper import Sweeper
from tests.e2e.server import start_server
from tests.e2e.test_games_resource import assert_problem


def resign(http, game_id: str, token: str | None):  # type: ignore[no-untyped-def]
    return http.client.post(f"/v1/games/{game_id}/resign", headers=http.auth(token))


def abort(http, game_id: str, token: str | None):  # type: ignore[no-untyped-def]
    return http.client.post(f"/v1/games/{game_id}/abort", headers=http.auth(token))


def summary(http, game_id: str):  # type: ignore[no-untyped-def]
    return http.client.get(f"/v1/games/{game_id}").json


def types(http, game_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [event["type"] for event in http.events(game_id, limit=1000).json["events"]]


@pytest.mark.parametrize("game", ["craits", "scat"])
def test_a_resigned_seat_is_played_on_by_the_random_house_bot_and_its_token_can_no_longer_move(http, game):
    game_id, tokens = http.started(game, 3, seed=5)
    before = http.version(game_id)
    answer = resign(http, game_id, tokens[1])
    assert answer.status_code == 200, answer.json
    assert answer.json["seat"] == 1 and answer.json["legal_moves"] == []
    assert answer.json["events"][0] == {**answer.json["events"][0], "type": "SeatResigned", "seat": 1,
                                        "data": {"bot": "random"}, "version": before + 1}
    seat = summary(http, game_id)["seats"][1]
    assert {key: seat[key] for key in ("seat", "name", "bot", "taken", "bot_since")} == {
        "seat": 1, "name": "p1", "bot": "random", "taken": True, "bot_since": before + 1}
    assert_problem(resign(http, game_id, tokens[1]), 409, "seat_abandoned")
    assert_problem(http.move(game_id, tokens[1], {"type": "draw"}), 409, "seat_abandoned")
    # The others play on: whenever seat 1 is to act, its bot has already moved.
    assert 1 not in http.state(game_id, tokens[0]).json["to_act"]
    assert summary(http, game_id)["seats"][0]["bot_since"] is None


def test_when_the_last_person_resigns_the_house_bots_play_the_game_to_its_end(http):
    game_id = http.create("scat", 2, seed=3)
    token = http.join(game_id, "ana")
    assert http.bot(game_id, "greedy").status_code == 201
    assert resign(http, game_id, token).status_code == 200
    assert summary(http, game_id)["status"] == "finished"
    assert "SeatResigned" in types(http, game_id)


def test_a_waiting_game_is_aborted_by_any_seated_player_and_takes_no_more_seats(http):
    game_id = http.create("craits", 3)
    token = http.join(game_id, "ana")
    assert_problem(resign(http, game_id, token), 409, "game_not_active")
    answer = abort(http, game_id, token)
    assert answer.status_code == 200, answer.json
    assert answer.json["status"] == "aborted" and answer.json["state"] is None
    assert answer.json["events"][0]["type"] == "GameAborted"
    assert answer.json["events"][0]["data"] == {"reason": "aborted"}
    assert summary(http, game_id)["status"] == "aborted"
    assert_problem(http.client.post(f"/v1/games/{game_id}/seats", json={"name": "bo"}), 409, "seat_unavailable")
    assert_problem(abort(http, game_id, token), 409, "game_not_active")
    listed = http.client.get("/v1/games", query_string={"status": "aborted"}).json["games"]
    assert [game["id"] for game in listed] == [game_id]


def test_only_a_seated_player_may_abort_and_only_while_the_game_waits(http):
    game_id, tokens = http.started("craits", 2)
    waiting = http.create("craits", 2)
    assert_problem(abort(http, game_id, tokens[0]), 409, "game_not_active")
    assert_problem(abort(http, waiting, None), 401, "unauthorized")
    assert_problem(abort(http, waiting, tokens[0]), 403, "forbidden")
    assert_problem(abort(http, "0" * 32, tokens[0]), 404, "not_found")
    assert summary(http, waiting)["status"] == "waiting"


def test_the_sweeper_expires_waiting_games_and_hands_idle_games_to_house_bots_once_past_the_limits(http, games):
    clock = [dt.datetime.now(dt.UTC)]
    games.clock = lambda: clock[0]
    waiting = http.create("scat", 3)
    http.join(waiting, "ana")
    idle, _ = http.started("craits", 2, short=True)
    sweeper = Sweeper(games, idle=IdleLimits(waiting=600, active=3600))
    clock[0] += dt.timedelta(seconds=599)
    assert sweeper.sweep_idle() == 0
    clock[0] += dt.timedelta(seconds=2)
    assert sweeper.sweep_idle() == 1
    assert summary(http, waiting)["status"] == "aborted"
    assert http.events(waiting).json["events"][-1]["data"] == {"reason": "expired"}
    assert summary(http, idle)["status"] == "active"
    clock[0] += dt.timedelta(hours=1)
    moved, _ = http.started("craits", 2, short=True)  # (created now: not idle)
    assert sweeper.sweep_idle() == 1
    for _ in range(100):  # the house bots play it on, a bounded step every sweep
        if summary(http, idle)["status"] != "active":
            break
        assert sweeper.sweep() == 1
    ended = summary(http, idle)
    assert ended["status"] == "finished"
    assert [seat["bot"] for seat in ended["seats"]] == ["random", "random"]
    assert types(http, idle).count("SeatAbandoned") == 2
    assert summary(http, moved)["status"] == "active"
    assert sweeper.sweep_idle() == 0


def test_cardhall_serve_abandon_after_ends_an_idle_game_by_itself(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDHALL_IDLE_SWEEP_SECONDS", "0.2")
    server = start_server(tmp_path, options=("--abandon-after", "1s", "--expire-waiting-after", "1s"))
    try:
        with httpx.Client(base_url=server.base_url, timeout=30) as client:
            created = [client.post("/v1/games", json={"game": game, "players": 2}).json()["id"]
                       for game in ("craits", "scat")]
            for seat in range(2):
                client.post(f"/v1/games/{created[0]}/seats", json={"name": f"p{seat}"})
            statuses: list[str] = []
            for _ in range(150):
                statuses = [client.get(f"/v1/games/{game_id}").json()["status"] for game_id in created]
                if statuses == ["finished", "aborted"]:
                    break
                time.sleep(0.1)
            assert statuses == ["finished", "aborted"]
    finally:
        server.stop()


def test_the_listing_takes_several_statuses_so_games_not_over_can_be_listed_alone(http):
    aborted = http.create("craits", 2)
    abort(http, aborted, http.join(aborted, "ana"))
    finished = http.create("scat", 2)
    http.bot(finished, "greedy"), http.bot(finished, "greedy")
    active, _ = http.started("craits", 2)
    waiting = http.create("scat", 3)
    listed = http.client.get("/v1/games?status=waiting&status=active").json["games"]
    assert [game["id"] for game in listed] == [waiting, active]
    everything = http.client.get("/v1/games").json["games"]
    assert [game["status"] for game in everything] == ["waiting", "active", "finished", "aborted"]
    assert_problem(http.client.get("/v1/games?status=waiting&status=over"), 422, "validation_error")


@pytest.mark.parametrize(("body", "content_type", "status"), [
    (b'{"seat": 1}', "application/json", 422), (b"[1]", "application/json", 422), (b'"x"', "application/json", 422),
    (b"{", "application/json", 400), (b"x", "text/plain", 415)])
def test_a_resignation_or_abort_with_a_body_that_says_anything_is_refused_and_gives_nothing_up(http, body, content_type,
                                                                                                status):
    """They take no body; one that says something is a client's mistake, refused before the seat is given up."""
    game_id, [token, _] = http.started("scat", 2)
    answer = http.client.post(f"/v1/games/{game_id}/resign", data=body, content_type=content_type, headers=http.auth(token))
    problem = assert_problem(answer, status, {400: "validation_error", 415: "unsupported_media_type",
                                              422: "validation_error"}[status])
    assert summary(http, game_id)["status"] == "active"
    waiting = http.create("scat", 2)
    token = http.join(waiting, "ana")
    assert_problem(http.client.post(f"/v1/games/{waiting}/abort", data=body, content_type=content_type,
                                    headers=http.auth(token)), status, problem["code"])
    assert summary(http, waiting)["status"] == "waiting"


@pytest.mark.parametrize("body", [b"", b"{}", b"null"])
def test_a_resignation_takes_no_body_or_an_empty_one(http, body):
    game_id, [token, _] = http.started("scat", 2)
    answer = http.client.post(f"/v1/games/{game_id}/resign", data=body, content_type="application/json",
                              headers=http.auth(token))
    assert answer.status_code == 200 and answer.json["events"][0]["type"] == "SeatResigned"

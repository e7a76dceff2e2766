"""Views, replays at a version, the event log, long-polling and Server-Sent Events over HTTP."""

from __future__ import annotations

import json
import threading
import time

import pytest

from domain import table as tables
from service.sweeper import Sweeper
from tests.e2e.test_games_resource import assert_problem

SHUFFLES = {"DealerDrawShuffled", "RoundDealt", "PileReshuffled", "DeckShuffled"}


def test_a_spectator_sees_no_hand_and_a_player_sees_only_their_own(http):
    game_id, tokens = http.started("craits", 3, seed=21)
    spectator = http.state(game_id).json
    assert spectator["seat"] is None and spectator["state"]["hand"] is None
    assert spectator["legal_moves"] == [] and spectator["state"]["hands"] == [None, None, None]
    for seat, token in enumerate(tokens):
        view = http.state(game_id, token).json
        hands = view["state"]["hands"]
        assert view["seat"] == seat and hands[seat] == view["state"]["hand"]
        assert all(hand is None for other, hand in enumerate(hands) if other != seat)


def test_views_carry_the_version_as_an_etag(http):
    game_id, tokens = http.started("scat", 2, seed=22)
    response = http.state(game_id, tokens[0])
    assert response.headers["ETag"] == f'"{response.json["version"]}"'
    assert http.client.get(f"/v1/games/{game_id}").headers["ETag"] == response.headers["ETag"]


@pytest.mark.parametrize("at", [0, -1, 10_000, "x"])
def test_a_view_at_a_version_that_does_not_exist_is_refused(http, at):
    game_id, _ = http.started("craits", 2, seed=23)
    expected = (404, "not_found") if at == 10_000 else (422, "validation_error")
    assert_problem(http.state(game_id, at=at), *expected)


@pytest.mark.parametrize("game,players,options", [("craits", 3, {"short": True}), ("scat", 4, {"lives": 1})])
def test_every_version_of_a_finished_game_replays_over_http_as_it_does_locally(http, game, players, options):
    game_id = http.create(game, players, seed=24, **options)
    token = http.join(game_id, "me")
    for _ in range(players - 1):
        http.bot(game_id, "greedy")
    http.play_out(game_id, [token])
    log = http.events(game_id, limit=1000).json
    assert log["last_version"] == len(log["events"]) or log["last_version"] > 1000
    events = [tables.decode(game, e["type"], e["seat"], e["data"]) for e in log["events"]]
    table = None
    for version, event in enumerate(events, start=1):
        table = tables.evolve(table, event)
        local = json.loads(json.dumps(tables.view(table, 0, reveal_all=True, with_moves=False)))
        remote = http.state(game_id, token, at=version).json
        assert remote == local, f"version {version}"


def test_the_event_log_pages_with_after_and_limit(http):
    game_id, _ = http.started("craits", 2, seed=25)
    every = http.events(game_id).json
    assert [e["version"] for e in every["events"]] == list(range(1, every["last_version"] + 1))
    page = http.events(game_id, after=2, limit=2).json
    assert [e["version"] for e in page["events"]] == [3, 4]
    assert page["last_version"] == every["last_version"]
    assert all(e["recorded_at"] for e in every["events"])


@pytest.mark.parametrize("query", [{"after": -1}, {"limit": 0}, {"limit": 1001}, {"wait": 31}, {"wait": "soon"},
                                   {"wait": 1, "after": -1}, {"wait": 1, "limit": 0}])
def test_bad_event_queries_are_422(asgi_http, query):
    game_id, _ = asgi_http.started("craits", 2)
    assert_problem(asgi_http.events(game_id, **query), 422, "validation_error")


def test_shuffles_are_hidden_until_the_game_is_over_and_public_after(http):
    game_id = http.create("craits", 2, seed=26, short=True)
    token = http.join(game_id, "me")
    http.bot(game_id, "random")
    shuffles = [e for e in http.events(game_id, token).json["events"] if e["type"] in SHUFFLES]
    assert shuffles and all(e["data"]["order"] is None and e["data"]["salt"] is None for e in shuffles)
    commitments = [e["data"]["commitment"] for e in shuffles]
    http.play_out(game_id, [token])
    shuffles = [e for e in http.events(game_id, token).json["events"] if e["type"] in SHUFFLES]
    assert all(len(e["data"]["order"]) >= 1 and len(e["data"]["salt"]) == 32 for e in shuffles)
    assert [e["data"]["commitment"] for e in shuffles[: len(commitments)]] == commitments


def test_a_long_poll_returns_as_soon_as_the_next_event_is_appended(asgi_http):
    http = asgi_http
    game_id, tokens = http.started("craits", 2, seed=27)
    _, token, view = http.actor(game_id, tokens)
    answers = {}

    def poll() -> None:
        answers["page"] = http.events(game_id, after=view["version"], wait=10).json

    waiter = threading.Thread(target=poll)
    started = time.monotonic()
    waiter.start()
    time.sleep(0.2)
    http.move(game_id, token, view["legal_moves"][0])
    waiter.join(15)
    assert answers["page"]["events"] and answers["page"]["events"][0]["version"] == view["version"] + 1
    assert time.monotonic() - started < 5  # (woken by the move: not at the end of its 10 s)


def test_a_long_poll_with_nothing_new_returns_empty_after_the_wait(asgi_http):
    http = asgi_http
    game_id, _ = http.started("craits", 2, seed=28)
    version = http.version(game_id)
    started = time.monotonic()
    page = http.events(game_id, after=version, wait=0.3).json
    assert page["events"] == [] and page["last_version"] == version
    assert time.monotonic() - started >= 0.25


def _sse_events(text: str) -> list[dict]:
    frames = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":")
                      and ": " in line)
        if "id" in fields:
            frames.append({"id": int(fields["id"]), "event": fields["event"], "data": json.loads(fields["data"])})
    return frames


def test_the_event_stream_sends_every_event_and_resumes_after_last_event_id(asgi_http, games):
    http = asgi_http
    game_id = http.create("craits", 2, seed=29, short=True)
    for kind in ("random", "greedy"):
        http.bot(game_id, kind)
    # (a request plays a bounded number of the house's events, and a seed deals other cards in each game: the
    # sweeps a server's sweeper makes play this one to its end, so that its stream ends)
    while Sweeper(games).sweep():
        pass
    assert http.client.get(f"/v1/games/{game_id}").json["status"] == "finished"
    last = http.version(game_id)
    response = http.client.get(f"/v1/games/{game_id}/events/stream")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    frames = _sse_events(response.get_data(as_text=True))
    assert [f["id"] for f in frames] == list(range(1, last + 1))
    assert all(f["event"] == f["data"]["type"] for f in frames)
    resumed = http.client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": str(last - 3)})
    assert [f["id"] for f in _sse_events(resumed.get_data(as_text=True))] == [last - 2, last - 1, last]


def test_the_event_stream_of_a_running_game_sends_heartbeats_and_closes_at_its_timeout(asgi_http):
    http = asgi_http
    game_id, _ = http.started("craits", 2, seed=30)
    response = http.client.get(f"/v1/games/{game_id}/events/stream", query_string={"timeout": 0.5})
    text = response.get_data(as_text=True)
    assert ": heartbeat" in text
    assert [f["id"] for f in _sse_events(text)] == list(range(1, http.version(game_id) + 1))

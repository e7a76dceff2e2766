"""The account's events as it waits for them, on the ASGI app a server runs: the long-poll, the stream
(resumed with Last-Event-ID, nothing lost or doubled), keep-alives, and the cap on an account's streams."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from api import create_app
from api.asgi import create_asgi
from service.games import GameService
from tests.e2e.test_accounts import NO_TOKEN, UNKNOWN_TOKEN, bearer, refusal
from tests.waiting import until

CHALLENGE = {"game": "craits", "players": 2, "to": ["bo"], "expires_in": 600}


@pytest.fixture
def client(games: GameService) -> Iterator[TestClient]:
    app = create_app(games, CARDHALL_RATE_LIMIT="off", CARDHALL_ACCOUNT_HEARTBEAT=0.2, CARDHALL_ACCOUNT_STREAMS=2)
    with TestClient(create_asgi(app, 8)) as client:
        yield client


def sign_up(client: TestClient, name: str) -> str:
    return client.post("/v1/accounts", json={"name": name, "kind": "bot"}).json()["key"]


def frames(text: str) -> list[dict[str, str]]:
    """The events of a stream's text (comments left out): their fields."""
    found = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if fields:
            found.append(fields)
    return found


def test_a_long_poll_is_answered_when_an_event_arrives(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bo")
    answers: list[Any] = []
    waiting = threading.Thread(target=lambda: answers.append(
        client.get("/v1/account/events", params={"wait": 10}, headers=bearer(bo))))
    waiting.start()
    client.post("/v1/challenges", json=CHALLENGE, headers=bearer(ana))
    waiting.join(30)
    assert answers[0].status_code == 200
    assert [event["type"] for event in answers[0].json()["events"]] == ["challenge"]


def test_a_long_poll_with_nothing_new_ends_empty_after_its_wait(client: TestClient) -> None:
    bo = sign_up(client, "bo")
    answer = client.get("/v1/account/events", params={"wait": 0.3, "after": 0}, headers=bearer(bo))
    assert answer.status_code == 200 and answer.json() == {"events": [], "last_id": 0}


def test_the_stream_resumes_after_last_event_id_with_nothing_lost_or_doubled(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bo")
    client.post("/v1/challenges", json=CHALLENGE, headers=bearer(ana))
    first = client.get("/v1/account/stream", params={"timeout": 0.5}, headers=bearer(bo))
    assert first.status_code == 200 and first.headers["content-type"].startswith("text/event-stream")
    seen = frames(first.text)
    assert [(frame["id"], frame["event"]) for frame in seen] == [("1", "challenge")]
    for _ in range(2):  # (sent while the bot is away)
        client.post("/v1/challenges", json=CHALLENGE, headers=bearer(ana))
    resumed = client.get("/v1/account/stream", params={"timeout": 0.5}, headers={**bearer(bo), "Last-Event-ID": "1"})
    assert [(frame["id"], frame["event"]) for frame in frames(resumed.text)] == [("2", "challenge"), ("3", "challenge")]


@pytest.mark.parametrize("last_event_id", ["2147483648", "9999999999", "x", "-1", "\u00b2", "1.5"])
def test_a_last_event_id_that_is_no_event_id_is_422_on_every_way_of_reading_the_events(client: TestClient,
                                                                                        last_event_id: str) -> None:
    """It was taken as 0 (every event again from the first), and up to ten digits as a number: past the ids'
    32-bit range, a 500 on PostgreSQL. A game's stream refuses such a header; the account's does as well."""
    bo = sign_up(client, "bo")
    headers = {**bearer(bo), "Last-Event-ID": last_event_id.encode()}
    for params in ({}, {"wait": 0.1}, {"wait": 0}):
        answer = client.get("/v1/account/events", params=params, headers=headers)
        assert answer.status_code == 422 and answer.json()["code"] == "validation_error", (params, answer.text)
        assert "Last-Event-ID" in answer.json()["detail"]
    answer = client.get("/v1/account/stream", params={"timeout": 0.1}, headers=headers)
    assert answer.status_code == 422 and answer.headers["content-type"] == "application/problem+json"
    highest = {**bearer(bo), "Last-Event-ID": "2147483647"}
    assert client.get("/v1/account/events", headers=highest).json() == {"events": [], "last_id": 2147483647}


def test_the_stream_sends_keep_alives_and_needs_the_read_scope(client: TestClient) -> None:
    bo = sign_up(client, "bo")
    quiet = client.get("/v1/account/stream", params={"timeout": 1}, headers=bearer(bo))
    assert ": keep-alive" in quiet.text and frames(quiet.text) == []
    player = client.post("/v1/account/keys", json={"scopes": ["play"]}, headers=bearer(bo)).json()["key"]
    refused = client.get("/v1/account/stream", headers=bearer(player))
    assert refused.status_code == 403 and refused.json()["code"] == "insufficient_scope"
    assert client.get("/v1/account/stream").status_code == 401


def test_the_waiting_routes_tell_no_key_from_a_key_the_server_does_not_know_as_the_others_do(
        client: TestClient) -> None:
    """The account's stream and long-poll, and a game's, are answered by the ASGI app: their 401s are the
    REST routes' (a bare challenge with no token; ``invalid_token`` for a garbage or revoked one, with one
    detail on the account's routes, where neither is a key it knows)."""
    bo = sign_up(client, "bo")
    revoked = client.post("/v1/account/keys", json={"scopes": ["read"]}, headers=bearer(bo)).json()["key"]
    assert client.delete(f"/v1/account/keys/{revoked[4:16]}", headers=bearer(bo)).status_code == 204
    game_id = client.post("/v1/games", json={"game": "scat", "players": 2}).json()["id"]
    for path, query in (("/v1/account/stream", {}), ("/v1/account/events", {"wait": 5}),
                        (f"/v1/games/{game_id}/events/stream", {}), (f"/v1/games/{game_id}/events", {"wait": 5})):
        account = path.startswith("/v1/account")
        unknown = {refusal(client.get(path, params=query, headers=bearer(token))) for token in ("garbage", revoked)}
        assert {told[:3] for told in unknown} == {(401, "unauthorized", UNKNOWN_TOKEN)}, path
        if account:
            assert len(unknown) == 1 and refusal(client.get(path, params=query))[:3] == (401, "unauthorized", NO_TOKEN)


def test_a_long_poll_whose_key_is_revoked_while_it_waits_is_refused_not_answered_the_events_that_come(
        games: GameService) -> None:
    """A stream of a revoked key ends; a long-poll waiting on one was answered the account's next events (a
    challenge made after the revocation)."""
    app = create_app(games, CARDHALL_RATE_LIMIT="off")
    with TestClient(create_asgi(app, 8)) as client:
        refused = _long_poll_revoked_while_waiting(client, app.extensions["cardhall_followers"])
    assert refused.status_code == 401 and refused.json()["code"] == "unauthorized", refused.text[:300]


def _long_poll_revoked_while_waiting(client: TestClient, followers: Any) -> Any:
    """The answer to a long-poll whose key is revoked once it waits, and a challenge is made for its account."""
    ana, bo = sign_up(client, "ana"), sign_up(client, "bo")
    reader = client.post("/v1/account/keys", json={"scopes": ["read"]}, headers=bearer(bo)).json()["key"]
    answers: list[Any] = []
    waiting = threading.Thread(target=lambda: answers.append(
        client.get("/v1/account/events", params={"wait": 20}, headers=bearer(reader))))
    waiting.start()
    until(lambda: followers._open == 1, "the long-poll holds its slot (its key checked)")
    assert client.delete(f"/v1/account/keys/{reader[4:16]}", headers=bearer(bo)).status_code == 204
    assert client.post("/v1/challenges", json=CHALLENGE, headers=bearer(ana)).status_code == 201
    waiting.join(30)
    return answers[0]


def test_an_account_past_its_cap_of_streams_has_its_oldest_closed_and_a_revoked_key_ends_its_streams(
        client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bo")
    received: list[list[str]] = [[], [], []]
    opened = [threading.Event() for _ in range(3)]

    def follow(index: int) -> None:
        with client.stream("GET", "/v1/account/stream", params={"timeout": 60}, headers=bearer(bo)) as stream:
            for line in stream.iter_lines():
                if line.startswith(":"):
                    opened[index].set()
                if line.startswith("event: "):
                    received[index].append(line)

    streams = []
    for index in range(3):
        streams.append(threading.Thread(target=follow, args=(index,)))
        streams[-1].start()
        assert opened[index].wait(30)
    streams[0].join(30)
    assert not streams[0].is_alive() and all(stream.is_alive() for stream in streams[1:])
    client.post("/v1/challenges", json=CHALLENGE, headers=bearer(ana))
    client.post("/v1/challenges", json={**CHALLENGE, "to": None}, headers=bearer(bo))  # (nothing for bo's stream)
    for stream in streams[1:]:
        assert stream.is_alive()
    deadline = time.monotonic() + 30  # (the challenge reaches both open streams before the key is revoked)
    while not all(received[1:]) and time.monotonic() < deadline:
        time.sleep(0.02)
    revoked = client.delete(f"/v1/account/keys/{bo[4:16]}", headers=bearer(bo))  # (ends the streams of the key)
    assert revoked.status_code == 204
    for stream in streams[1:]:
        stream.join(30)
        assert not stream.is_alive()
    assert received == [[], ["event: challenge"], ["event: challenge"]]

"""Hundreds of followers on one process hold no thread: everything else answers as before, and they free all at once.

A real server (uvicorn, one worker, its default 32 threads) over SQLite; the followers are raw
connections that never read their answer, then hang up.
"""

from __future__ import annotations

import socket
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.server import start_server
from tests.e2e.test_followers_cap import long_poll, open_follower, stream, waiting_game

pytestmark = pytest.mark.timeout(180)
FOLLOWERS = 300


def open_followers(base: str) -> float:
    """The followers open now on the server, as its /metrics counts them."""
    families = text_string_to_metric_families(httpx.get(f"{base}/metrics", timeout=10).text)
    return sum(sample.value for family in families if family.name == "cardhall_followers_open"
               for sample in family.samples)


def until_followers(base: str, count: int, seconds: float) -> float:
    """How long until /metrics counts ``count`` followers open, failing after ``seconds``."""
    start = time.monotonic()
    while open_followers(base) != count:
        assert time.monotonic() - start < seconds, f"{open_followers(base)} followers open, not {count}"
        time.sleep(0.1)
    return time.monotonic() - start


def a_move(http: httpx.Client) -> None:
    created = http.post("/v1/games", json={"game": "craits", "players": 2, "options": {"seed": 3}}).json()
    token = http.post(f"/v1/games/{created['id']}/seats", json={"name": "me"}).json()["token"]
    http.post(f"/v1/games/{created['id']}/seats", json={"bot": "random"})
    auth = {"Authorization": f"Bearer {token}"}
    view = http.get(f"/v1/games/{created['id']}/state", headers=auth).json()
    assert http.post(f"/v1/games/{created['id']}/moves", json=view["legal_moves"][0], headers=auth).status_code == 201


def test_three_hundred_followers_leave_healthz_and_moves_quick_and_all_free_within_five_seconds(tmp_path):
    server = start_server(tmp_path, threads=32, options=("--max-connections-per-address", str(FOLLOWERS + 50)))
    try:
        base = server.base_url
        game_id, version = waiting_game(base)
        held: list[socket.socket] = []
        try:
            for number in range(FOLLOWERS):
                path = stream if number % 2 else long_poll
                held.append(open_follower(base, path(game_id, version)))
            until_followers(base, FOLLOWERS, 30)
            with httpx.Client(base_url=base, timeout=10) as http:  # (with a thread each, it never answered)
                assert http.get("/healthz").status_code == 200
                a_move(http)
            assert open_followers(base) == FOLLOWERS  # (answered while every follower still waits: none gave way)
        finally:
            for connection in held:
                connection.close()
        assert until_followers(base, 0, 5.0) < 5.0
    finally:
        server.stop()

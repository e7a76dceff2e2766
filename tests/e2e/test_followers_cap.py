"""Followers past a process's cap get 503; everything else is still served; a follower that leaves frees its slot.

A real server (uvicorn, 6 threads, at most 2 followers) over SQLite: the test
client has no socket, so only a real one shows a client going away.
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.server import start_server

pytestmark = pytest.mark.timeout(120)
CAP = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    started = start_server(tmp_path_factory.mktemp("followers"), threads=6,
                           options=("--max-followers", str(CAP)))
    try:
        yield started.base_url
    finally:
        started.stop()


def waiting_game(base: str) -> tuple[str, int]:
    """A game nobody will move in (it waits for a second player): its id and version."""
    created = httpx.post(f"{base}/v1/games", json={"game": "scat", "players": 2}).json()
    httpx.post(f"{base}/v1/games/{created['id']}/seats", json={"name": "alone"})
    return created["id"], httpx.get(f"{base}/v1/games/{created['id']}").json()["version"]


def open_follower(base: str, path: str) -> socket.socket:
    """A raw connection holding a follower request open (its answer never read)."""
    host, port = base.removeprefix("http://").split(":")
    connection = socket.create_connection((host, int(port)))
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    return connection


def long_poll(game_id: str, version: int) -> str:
    return f"/v1/games/{game_id}/events?after={version}&wait=30"


def stream(game_id: str, version: int) -> str:
    return f"/v1/games/{game_id}/events/stream?after={version}&timeout=60"


@contextlib.contextmanager
def cap_reached(base: str, game_id: str, version: int, path) -> Iterator[list[socket.socket]]:  # type: ignore[no-untyped-def]
    """CAP followers holding their slots; closed (abandoned, never read) at the end."""
    held = [open_follower(base, path(game_id, version)) for _ in range(CAP)]
    deadline = time.monotonic() + 10
    try:
        # (the server takes them all before anyone else asks: else a quick first probe could take the last slot
        # and leave a held follower refused, its 503 never read)
        while sum(float(line.rsplit(" ", 1)[1]) for line in httpx.get(f"{base}/metrics").text.splitlines()
                  if line.startswith("cardhall_followers_open{")) < CAP:
            assert time.monotonic() < deadline, "the server never took the held followers"
            time.sleep(0.05)
        deadline = time.monotonic() + 10
        while httpx.get(f"{base}{long_poll(game_id, version)}".replace("wait=30", "wait=0.1")).status_code != 503:
            assert time.monotonic() < deadline, "the cap was never reached"
            time.sleep(0.1)
        yield held
    finally:
        for connection in held:
            connection.close()


def slot_free_within(base: str, game_id: str, version: int, seconds: float) -> float:
    """How long until a long-poll is served again (200), failing after ``seconds``."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if httpx.get(f"{base}/v1/games/{game_id}/events", params={"after": version, "wait": 0.1}).status_code == 200:
            return time.monotonic() - start
        time.sleep(0.1)
    raise AssertionError(f"no follower slot came free within {seconds} s")


@pytest.mark.parametrize("follow", [long_poll, stream], ids=["long-poll", "stream"])
def test_past_the_cap_a_follower_gets_503_with_retry_after_and_an_abandoned_one_frees_its_slot(server, follow):
    game_id, version = waiting_game(server)
    with cap_reached(server, game_id, version, follow):
        for path in (long_poll(game_id, version), stream(game_id, version)):
            refused = httpx.get(f"{server}{path}", timeout=5)
            assert (refused.status_code, refused.json()["code"]) == (503, "unavailable"), path
            assert int(refused.headers["Retry-After"]) >= 1
    # The followers hung up without reading a byte: each notices within a few seconds.
    for _ in range(CAP):
        assert slot_free_within(server, game_id, version, 5.0) < 5.0


def test_with_the_cap_reached_healthz_and_a_move_answer_as_quickly_as_ever(server):
    followed, version = waiting_game(server)
    created = httpx.post(f"{server}/v1/games", json={"game": "craits", "players": 2, "options": {"seed": 3}}).json()
    token = httpx.post(f"{server}/v1/games/{created['id']}/seats", json={"name": "me"}).json()["token"]
    httpx.post(f"{server}/v1/games/{created['id']}/seats", json={"bot": "random"})
    auth = {"Authorization": f"Bearer {token}"}
    with cap_reached(server, followed, version, long_poll), httpx.Client(base_url=server, timeout=5) as http:
        started = time.monotonic()
        assert http.get("/healthz").status_code == 200
        view = http.get(f"/v1/games/{created['id']}/state", headers=auth).json()
        moved = http.post(f"/v1/games/{created['id']}/moves", json=view["legal_moves"][0], headers=auth)
        assert moved.status_code == 201, moved.text
        # (answered while the followers, which wait 30 s, still hold every slot: nothing waited for them)
        still = http.get(long_poll(followed, version).replace("wait=30", "wait=0.1"))
        assert still.status_code == 503 and time.monotonic() - started < 30


def test_one_address_holds_at_most_its_share_of_the_followers_and_another_is_still_served(tmp_path):
    started = start_server(tmp_path, threads=6, options=("--max-followers", "4", "--max-followers-per-client", "2"))
    try:
        base = started.base_url
        game_id, version = waiting_game(base)
        held = [open_follower(base, long_poll(game_id, version)) for _ in range(2)]
        try:
            deadline = time.monotonic() + 10
            while sum(float(line.rsplit(" ", 1)[1]) for line in httpx.get(f"{base}/metrics").text.splitlines()
                      if line.startswith("cardhall_followers_open{")) < 2:
                assert time.monotonic() < deadline, "the server never took the held followers"
                time.sleep(0.05)
            refused = httpx.get(f"{base}/v1/games/{game_id}/events", params={"after": version, "wait": 0.1}, timeout=5)
            assert (refused.status_code, refused.json()["code"]) == (503, "unavailable")
            assert int(refused.headers["Retry-After"]) >= 1
            with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), timeout=5) as other:
                served = other.get(f"{base}/v1/games/{game_id}/events", params={"after": version, "wait": 0.1})
            assert served.status_code == 200 and served.json()["events"] == []
        finally:
            for connection in held:
                connection.close()
    finally:
        started.stop()

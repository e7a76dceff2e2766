"""Webhook bots served by a server with two workers over PostgreSQL: every turn is called once across
the workers, and a call whose worker is killed -9 is made again, with the same ``webhook-id``, and
played once.

Both workers scan for the turns webhook bots owe and race to claim each one (its call's row); the
bots (tests/webhook_bots.py, on 127.0.0.1) count the calls. The games are Scat with two lives each
(some 30 turns a game, where a short Craits between random bots runs to hundreds); GAMES of them
run at once, which takes about half a minute on a shared 2-core machine.
"""

from __future__ import annotations

import collections
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.server import ServerProcess, start_server
from tests.e2e.test_webhooks import Api, until
from tests.e2e.test_worker_restart import workers
from tests.integration.multiprocess_http import assert_versions_whole
from tests.webhook_bots import Bots, Received

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(300)]
GAMES = 50
OPTIONS = ("--webhooks-allow-private", "--webhook-scan-seconds", "0.2")
CLOCKED = {"lives": 2, "move_seconds": 30}  # (a clock no call here comes near: every turn is the bot's)
TIMEOUT_MS = 5000  # the held call's lease runs out this long (and a second) after its claim


@pytest.fixture(scope="module")
def bots() -> Iterator[Bots]:
    found = Bots()
    yield found
    found.released.set()
    found.close()


@pytest.fixture(scope="module")
def server(postgres_database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:  # type: ignore[no-untyped-def]
    running = start_server(tmp_path_factory.mktemp("webhooks"), database=postgres_database(), workers=2,
                           options=OPTIONS)
    yield running
    running.stop()


def webhook_pair(api: Api, bots: Bots, first: str, second: str) -> tuple[str, str]:
    """Two webhook bots' keys; no turn here waits for another because of a bot's concurrency."""
    return (api.webhook_bot(bots, first, timeout_ms=TIMEOUT_MS, concurrency=1000),
            api.webhook_bot(bots, second, timeout_ms=TIMEOUT_MS, concurrency=1000))


def move_calls(bots: Bots, game_id: str) -> list[Received]:
    return [call for call in bots.calls(kind="move") if call.payload["game_id"] == game_id]


def process_of(port: int, candidates: set[int]) -> int:
    """The process among ``candidates`` whose TCP socket has local port ``port`` (a call's peer)."""
    inodes = {f"socket:[{line.split()[9]}]" for table in ("/proc/net/tcp", "/proc/net/tcp6")
              for line in Path(table).read_text().splitlines()[1:]
              if int(line.split()[1].rsplit(":", 1)[1], 16) == port}
    for pid in candidates:
        for descriptor in Path(f"/proc/{pid}/fd").iterdir():
            try:
                if os.readlink(descriptor) in inodes:
                    return pid
            except OSError:  # (closed meanwhile)
                continue
    raise AssertionError(f"no worker of {candidates} holds the socket on port {port}")


def test_webhook_games_on_two_workers_call_every_turn_exactly_once_and_all_end(server: ServerProcess,
                                                                              bots: Bots) -> None:
    api = Api(server.base_url)
    ann, bo = webhook_pair(api, bots, "ann", "bo")
    game_ids = [api.challenge(ann, bo, "bo", CLOCKED, game="scat") for _ in range(GAMES)]
    for game_id in game_ids:
        until(lambda game_id=game_id: api.finished(game_id), patience=120)
    assert all(call.verified for call in bots.calls())
    by_id = collections.Counter(call.headers["webhook-id"] for call in bots.calls(kind="move"))
    assert set(by_id.values()) == {1}, [key for key, count in by_id.items() if count > 1]
    for game_id in game_ids:
        called = collections.Counter((call.payload["version"], call.payload["seat"]) for call in move_calls(bots, game_id))
        assert called and set(called.values()) == {1}
        calls = api.call("GET", f"/v1/games/{game_id}/webhook-calls").json()["calls"]
        moves = [call for call in calls if call["kind"] == "move"]
        assert {(call["version"], call["seat"]) for call in moves} == set(called)
        assert {(call["outcome"], call["calls"]) for call in moves} == {("played", 1)}
        events = api.events(game_id)
        assert_versions_whole(events)
        assert not [event for event in events if event["type"] == "TurnTimedOut"]


def test_a_call_whose_worker_is_killed_is_made_again_with_its_webhook_id_and_played_once(server: ServerProcess,
                                                                                        bots: Bots) -> None:
    api = Api(server.base_url)
    hal, ivy = webhook_pair(api, bots, "hal", "ivy")
    bots.modes["hal"] = "hold"
    game_id = api.challenge(hal, ivy, "ivy", CLOCKED, game="scat")
    held = until(lambda: bots.calls("hal", "move"), patience=60)[0]
    before = workers(server.process.pid)
    victim = process_of(held.peer[1], before)
    os.kill(victim, signal.SIGKILL)
    until(lambda: len(now := workers(server.process.pid)) == len(before) and victim not in now, patience=60)
    bots.released.set()  # (the held answer goes to a dead connection)
    until(lambda: api.finished(game_id), patience=120)

    again = [call for call in bots.calls("hal", "move") if call.headers["webhook-id"] == held.headers["webhook-id"]]
    assert len(again) == 2 and again[1].payload["version"] == held.payload["version"]
    assert again[1].at - held.at >= TIMEOUT_MS / 1000  # (made again once the lease ran out)
    version, seat = held.payload["version"], held.payload["seat"]
    calls = api.call("GET", f"/v1/games/{game_id}/webhook-calls").json()["calls"]
    assert [(call["calls"], call["outcome"]) for call in calls
            if (call["version"], call["seat"], call["kind"]) == (version, seat, "move")] == [(2, "played")]
    events = api.events(game_id)
    assert_versions_whole(events)
    assert events[version]["seat"] == seat and events[version]["type"] != "TurnTimedOut"
    assert not [event for event in events if event["type"] == "TurnTimedOut"]
    others = collections.Counter(call.headers["webhook-id"] for call in move_calls(bots, game_id))
    assert others.pop(held.headers["webhook-id"]) == 2 and set(others.values()) == {1}

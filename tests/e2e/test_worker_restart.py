"""gunicorn replaces a worker that dies, and /metrics forgets what the dead one held; a stopped server
leaves none of its temporary files behind.

A real server with two workers over SQLite; its workers are killed as a crash would end them.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.server import start_server
from tests.e2e.test_followers_cap import long_poll, open_follower, waiting_game
from tests.e2e.test_many_followers import until_followers

pytestmark = pytest.mark.timeout(120)
FOLLOWERS = 6


def workers(master: int) -> set[int]:
    """The worker processes of the server whose master is ``master``."""
    return {int(pid) for pid in Path(f"/proc/{master}/task/{master}/children").read_text().split()}


def replaced(master: int, dead: set[int], base: str) -> None:
    """Wait until the master runs as many workers as before, none of them ``dead``, and /healthz answers (a new
    worker answers once it has made its app: on a loaded machine, seconds after its process is there)."""
    deadline = time.monotonic() + 60
    while not (len(now := workers(master)) == len(dead) and not now & dead):
        assert time.monotonic() < deadline, f"workers {now}, were {dead}"
        time.sleep(0.1)
    while True:
        try:
            assert httpx.get(f"{base}/healthz", timeout=max(1.0, deadline - time.monotonic())).status_code == 200
            return
        except httpx.TimeoutException:
            assert time.monotonic() < deadline, "no worker answered /healthz within a minute of being replaced"


def test_killed_workers_are_replaced_and_their_followers_leave_metrics_and_a_stop_leaves_no_files(tmp_path):
    server = start_server(tmp_path, workers=2)
    run = Path(server.environment()["CARDHALL_RUN_DIRECTORY"])  # (its own: another killed on this port may have left one)
    try:
        assert run.is_dir() and run.parent == Path(tempfile.gettempdir())
        game_id, version = waiting_game(server.base_url)
        followers = [open_follower(server.base_url, long_poll(game_id, version)) for _ in range(FOLLOWERS)]
        until_followers(server.base_url, FOLLOWERS, 30)
        dead = workers(server.process.pid)
        for pid in dead:
            os.kill(pid, signal.SIGKILL)
        replaced(server.process.pid, dead, server.base_url)
        until_followers(server.base_url, 0, 30)
        for follower in followers:
            follower.close()
    finally:
        server.stop()
    assert not run.exists()

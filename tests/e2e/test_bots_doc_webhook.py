"""docs/bots.md, "A webhook bot", is true: its shell block runs as written against a server started with the
operator's --webhooks-allow-private, and the example bot it starts plays the game to its end, answering its calls
with legal moves.
(Only the server's address and the bot's port are this test's own.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.e2e.server import ROOT, ServerProcess, free_port, start_server

BOTS_MD = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
DOC_SERVER, DOC_PORT = "http://127.0.0.1:8000", "9000"
STRICT_CURL = 'curl() { command curl --fail-with-body "$@"; }\n'


def walkthrough() -> str:
    """The shell block of the section "A webhook bot"."""
    section = BOTS_MD.split("## A webhook bot", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = start_server(tmp_path_factory.mktemp("bots-doc"), options=("--webhooks-allow-private",))
    yield running
    running.stop()


def test_the_webhook_walkthrough_plays_its_game_to_the_end_every_turn_answered_by_the_example_bot(
        server: ServerProcess) -> None:
    if shutil.which("curl") is None:
        pytest.fail("the walkthrough needs curl on this machine")
    block = walkthrough()
    assert DOC_SERVER in block and f"http://127.0.0.1:{DOC_PORT}" in block and f"webhook_bot.py {DOC_PORT}" in block
    port = str(free_port())
    script = (STRICT_CURL + "trap 'kill $(jobs -p) 2>/dev/null' EXIT\n"
              + block.replace(DOC_SERVER, server.base_url).replace(f"127.0.0.1:{DOC_PORT}", f"127.0.0.1:{port}")
              .replace(f"webhook_bot.py {DOC_PORT}", f"webhook_bot.py {port}")
              # (then, the test's own: wait for the game's end, and show its calls again)
              + 'for _ in $(seq 600); do curl -s $S/v1/games/$GAME | grep -q \'"status":"finished"\' && break; '
                "sleep 0.1; done\n"
              + "echo; curl -s $S/v1/games/$GAME; echo; curl -s $S/v1/games/$GAME/webhook-calls\n")
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=180,
                         cwd=ROOT)
    assert run.returncode == 0, run.stderr
    game, calls = (json.loads(line) for line in [line for line in run.stdout.splitlines() if line.startswith("{")][-2:])
    assert game["status"] == "finished" and game["seats"][0]["account"] == "hooky"
    moves = [call for call in calls["calls"] if call["kind"] == "move"]
    # Every answer the bot gave was a legal move. (The walkthrough gives each call 500 ms: on a machine loaded by a
    # whole test run a call may miss it, "failed" or "late", and the clock moves for that turn; none may be refused.)
    outcomes = [call["outcome"] for call in moves]
    assert "played" in outcomes and set(outcomes) <= {"played", "failed", "late"}, outcomes
    assert f"webhook bot listening on http://127.0.0.1:{port}" in run.stderr

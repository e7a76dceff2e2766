"""The README is true: its curl walkthrough runs as written against a real server, and CI runs its test command."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess

import pytest

from tests.e2e.server import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
DEFAULT_SERVER = "http://127.0.0.1:8000"
# Any answer of 400 or more fails the command, so the walkthrough cannot pass on error pages.
STRICT_CURL = 'curl() { command curl --fail-with-body "$@"; }\n'


def walkthrough() -> str:
    """The shell block of the README's section "A whole game with curl"."""
    section = README.split("## A whole game with curl", 1)[1]
    return re.search(r"```sh\n(.*?)```", section, re.S).group(1)


def commands() -> list[str]:
    """The README's first code block: install and serve, install and test."""
    block = re.search(r"```\n(.*?)```", README, re.S).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def run(live_server: str) -> subprocess.CompletedProcess[str]:
    if shutil.which("curl") is None:
        pytest.fail("the README's walkthrough needs curl on this machine")
    script = STRICT_CURL + walkthrough().replace(DEFAULT_SERVER, live_server)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_the_walkthrough_uses_the_server_the_first_command_started():
    assert DEFAULT_SERVER in walkthrough() and "cardhall serve" not in walkthrough()


def test_every_step_of_the_walkthrough_succeeds(run):
    assert run.returncode == 0, run.stderr


def test_creating_a_game_shows_201_and_its_location(run):
    assert re.search(r"^HTTP/1\.1 201 ", run.stderr, re.M)
    assert re.search(r"^Location: /v1/games/[0-9a-f]+\r?$", run.stderr, re.M | re.I)


def test_the_wait_starts_after_the_moves_answer_and_the_log_holds_what_the_move_set_off(run):
    documents = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    answer = next(document for document in documents if "events" in document and "legal_moves" in document)
    waited, log = (document for document in documents if document.keys() == {"events", "last_version"})
    assert answer["events"][0]["seat"] == 0 and 0 in answer["to_act"]  # the house bot answered within the move
    assert waited == {"events": [], "last_version": answer["version"]}  # nothing came after the answer's version
    assert {event["version"] for event in answer["events"]} <= {event["version"] for event in log["events"]}


def test_ci_installs_and_runs_what_the_readmes_test_command_does():
    install, test = next(line for line in commands() if "pytest" in line).split(" && ")
    ci = [shlex.split(line) for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
          if line.startswith("python3 -m ")]
    ci_install = next(words for words in ci if words[:4] == ["python3", "-m", "pip", "install"])
    ci_test = next(words for words in ci if words[:3] == ["python3", "-m", "pytest"])
    assert shlex.split(install)[-1] == ci_install[-1]  # the same extras
    assert set(shlex.split(install)) <= set(ci_install)  # the same distributions (the client's too)
    assert set(shlex.split(test)) <= set(ci_test)  # the same options (CI may add its own)

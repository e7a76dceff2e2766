"""A client generated from ``openapi.yaml`` by openapi-python-client plays a whole game against a real server.

This proves the published spec is complete and correct for people who never read our code.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
#: Warnings the generator is known to give, each harmless for a bot: /openapi.yaml answers YAML, not JSON.
KNOWN_WARNINGS = ("GET /openapi.yaml",)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory):
    """The package openapi-python-client generates from the committed spec, imported."""
    out = tmp_path_factory.mktemp("generated")
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(SPEC),
         "--output-path", str(out / "cardhall_generated"), "--meta", "none"],
        check=False, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    unexpected = [line for line in run.stdout.splitlines()
                  if line.startswith("WARNING") and not any(known in line for known in KNOWN_WARNINGS)]
    assert not unexpected, run.stdout
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("cardhall_generated")
    finally:
        sys.path.remove(str(out))
        for name in [name for name in sys.modules if name.startswith("cardhall_generated")]:
            del sys.modules[name]


def _api(generated, name: str):
    return importlib.import_module(f"cardhall_generated.api.{name}")


def test_the_generated_client_plays_a_whole_scat_game(generated, live_server):
    models = importlib.import_module("cardhall_generated.models")
    anonymous = generated.Client(base_url=live_server)
    summary = _api(generated, "games.post_v1_games").sync(
        client=anonymous, body=models.CreateGame.from_dict({"game": "scat", "players": 2, "options": {"seed": 4}}))
    assert isinstance(summary, models.GameSummary), summary
    joined = _api(generated, "games.post_v1_games_game_id_seats").sync(
        summary.id, client=anonymous, body=models.Join(name="generated"))
    _api(generated, "games.post_v1_games_game_id_seats").sync(
        summary.id, client=anonymous, body=models.Join(bot=models.JoinBot.GREEDY))
    me = generated.AuthenticatedClient(base_url=live_server, token=joined.token)
    state, move = _api(generated, "games.get_v1_games_game_id_state"), _api(generated, "games.post_v1_games_game_id_moves")
    view = state.sync(summary.id, client=me)
    while view.status == models.ViewStatus.ACTIVE:
        assert isinstance(view, models.View), view
        if joined.seat in view.to_act:
            body = models.Move.from_dict({**view.legal_moves[0].to_dict(), "expected_version": view.version})
            answer = move.sync(summary.id, client=me, body=body, idempotency_key=f"move-{view.version}")
            assert isinstance(answer, models.MoveResult), answer
        view = state.sync(summary.id, client=me)
    assert view.status == models.ViewStatus.FINISHED and view.result.to_dict()["winners"]
    events = _api(generated, "games.get_v1_games_game_id_events").sync(summary.id, client=me, limit=1000)
    assert events.last_version == view.version and events.events[0].type_ == "GameCreated"


def test_the_generated_client_reads_problems_with_their_code(generated, live_server):
    models = importlib.import_module("cardhall_generated.models")
    anonymous = generated.Client(base_url=live_server)
    problem = _api(generated, "games.post_v1_games").sync(
        client=anonymous, body=models.CreateGame.from_dict({"game": "chess", "players": 2}))
    assert isinstance(problem, models.Problem) and problem.code == "validation_error" and problem.status == 422
    missing = _api(generated, "games.get_v1_games_game_id").sync("no-such-game", client=anonymous)
    assert isinstance(missing, models.Problem) and missing.code == "not_found"

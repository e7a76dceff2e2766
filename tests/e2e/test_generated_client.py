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
        importlib.import_module("cardhall_generated.models")  # the package, with its models as an attribute
        yield sys.modules["cardhall_generated"]
    finally:
        sys.path.remove(str(out))
        for name in [name for name in sys.modules if name.startswith("cardhall_generated")]:
            del sys.modules[name]


def _operation(name: str):
    """The generated module of an operation, named after its operationId (``createGame`` -> ``create_game``)."""
    package = "health" if name in ("health", "openapi_document") else "games"
    return importlib.import_module(f"cardhall_generated.api.{package}.{name}")


def _move_model(models, game: str, move_type: str):
    """The generated model of one game's move type (the document gives each its own branch)."""
    return getattr(models, "MakeMove" + "".join(part.capitalize() for part in [game, *move_type.split("_")]))


def test_the_generated_client_plays_a_whole_scat_game(generated, live_server):
    models = generated.models
    anonymous = generated.Client(base_url=live_server)
    assert _operation("health").sync(client=anonymous).status == "ok"
    body = models.CreateGameScatFor2.from_dict({"game": "scat", "players": 2, "options": {"seed": 4}})
    summary = _operation("create_game").sync(client=anonymous, body=body)
    assert isinstance(summary, models.GameSummary), summary
    joined = _operation("take_seat").sync(summary.id, client=anonymous, body=models.TakeSeatAPerson(name="generated"))
    bot = models.TakeSeatAHouseBot(bot=models.TakeSeatAHouseBotBot.GREEDY)
    assert _operation("take_seat").sync(summary.id, client=anonymous, body=bot).token is None
    me = generated.AuthenticatedClient(base_url=live_server, token=joined.token)
    state, move = _operation("get_state"), _operation("make_move")
    view = state.sync(summary.id, client=me)
    while view.status == models.ViewStatus.ACTIVE:
        if joined.seat in view.to_act:
            legal = view.legal_moves[0].to_dict()
            body = _move_model(models, "scat", legal["type"]).from_dict({**legal, "expected_version": view.version})
            answer = move.sync(summary.id, client=me, body=body, idempotency_key=f"move-{view.version}")
            assert isinstance(answer, models.MoveResult), answer
        view = state.sync(summary.id, client=me)
    assert view.status == models.ViewStatus.FINISHED and view.result.to_dict()["winners"]
    events = _operation("get_events").sync(summary.id, client=me, limit=1000)
    assert events.last_version == view.version and events.events[0].type_ == "GameCreated"


def test_the_generated_client_reads_problems_with_their_code_and_rule(generated, live_server):
    models = generated.models
    anonymous = generated.Client(base_url=live_server)
    missing = _operation("get_game").sync("no-such-game", client=anonymous)
    assert isinstance(missing, models.Problem) and (missing.status, missing.code) == (404, "not_found")
    body = models.CreateGameScatFor2.from_dict({"game": "scat", "players": 2, "options": {"seed": 4}})
    game_id = _operation("create_game").sync(client=anonymous, body=body).id
    seat = _operation("take_seat").sync(game_id, client=anonymous, body=models.TakeSeatAPerson(name="a"))
    _operation("take_seat").sync(game_id, client=anonymous, body=models.TakeSeatAPerson(name="b"))
    full = _operation("take_seat").sync(game_id, client=anonymous, body=models.TakeSeatAPerson(name="c"))
    assert isinstance(full, models.Problem) and full.code == "seat_unavailable"
    me = generated.AuthenticatedClient(base_url=live_server, token=seat.token)
    discard = _move_model(models, "scat", "discard").from_dict({"type": "discard", "card": "2C"})
    refused = _operation("make_move").sync(game_id, client=me, body=discard)
    assert isinstance(refused, models.Problem) and refused.code in ("illegal_move", "not_your_turn")

"""Games are plug-ins: a third game, registered only by an entry point of its own package, is played over HTTP.

Higher-Lower (``tests/plugins/higher_lower``) comes with a ``*.dist-info`` whose
entry point in the group ``cardhall.games`` names it: putting ``tests/plugins`` on
the path is its whole installation, and nothing in ``api/``, ``service/`` or
``persistence/`` knows it.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

import api.games  # noqa: F401  (it builds its OpenAPI text on import: before Higher-Lower is registered, as elsewhere)
import bots
from api import create_app
from domain import game as registry
from domain.cards import RANK_NUMBER
from domain.games.craits import Craits
from service.games import GameService
from tests.e2e.conftest import Http
from tests.e2e.server import ROOT, start_server

PLUGINS = Path(__file__).resolve().parents[1] / "plugins"


@pytest.fixture
def higher_lower(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Higher-Lower installed for one test: its distribution on the path, the entry points loaded again
    (the registry, the path and PYTHONPATH for server processes as they were after)."""
    registry.all_games()
    monkeypatch.setattr(registry, "GAMES", dict(registry.GAMES))
    monkeypatch.setattr(registry, "RULES", dict(registry.RULES))
    monkeypatch.syspath_prepend(str(PLUGINS))
    monkeypatch.setenv("PYTHONPATH", str(PLUGINS), prepend=os.pathsep)
    registry.load_entry_points()
    yield


def play_to_the_end(http: Http, game_id: str, tokens: list[str]) -> dict[str, Any]:
    """Play the game out with the first legal move of whoever must act; the final view of seat 0."""
    http.play_out(game_id, tokens)
    return http.state(game_id, tokens[0]).json


def test_a_game_registered_by_an_entry_point_is_created_joined_played_to_the_end_and_replayed(
    http, games, higher_lower
):
    game_id, tokens = http.started("higher_lower", 2, seed=11)
    final = play_to_the_end(http, game_id, tokens)
    assert final["status"] == "finished" and final["result"]["winners"]
    assert final["state"]["scores"] == final["result"]["scores"] and len(final["state"]["discard"]) == 7

    log = http.events(game_id, limit=1000).json["events"]
    assert [event["version"] for event in log] == list(range(1, final["version"] + 1))
    assert [event["type"] for event in log[3:]] == ["DeckShuffled"] + ["Guessed"] * 6
    assert http.client.get(f"/v1/games/{game_id}/audit").json["verified"] is True
    assert final["state"]["discard"] == log[3]["data"]["order"][:7]
    for version in range(5, final["version"] + 1):
        assert http.state(game_id, at=version).json["state"]["discard"] == log[3]["data"]["order"][: version - 3]

    replayed = Http(create_app(GameService(games.store), CARDHALL_RATE_LIMIT="off").test_client())
    assert replayed.state(game_id, tokens[0]).json == final


def test_a_bad_move_of_the_plugin_game_is_a_422_naming_what_is_wrong(http, higher_lower):
    game_id, tokens = http.started("higher_lower", 2, seed=12)
    body = http.move(game_id, tokens[0], {"type": "guess", "direction": "sideways"}).json
    assert body["code"] == "validation_error" and "'direction' must be 'higher' or 'lower'" in body["detail"]
    body = http.move(game_id, tokens[0], {"type": "play", "card": "TH"}).json
    assert body["code"] == "validation_error" and "this game knows: guess" in body["detail"]


def test_the_built_in_games_are_still_offered_beside_it(http, higher_lower):
    offered = {entry["game"]: entry for entry in http.client.get("/v1/game-types").json["game_types"]}
    assert set(offered) == {"craits", "scat", "higher_lower"}
    assert offered["higher_lower"]["moves"] == ["guess"] and offered["craits"]["moves"][0] == "play"
    for game, players in (("craits", 3), ("scat", 2)):
        game_id, tokens = http.started(game, players, seed=1)
        _, token, view = http.actor(game_id, tokens)
        assert http.move(game_id, token, view["legal_moves"][0]).status_code == 201


def test_a_server_process_plays_the_plugin_game_documents_its_moves_and_replays_it_after_a_restart(
    tmp_path, higher_lower
):
    server = start_server(tmp_path)
    try:
        with httpx.Client(base_url=server.base_url) as client:
            spec = yaml.safe_load(client.get("/openapi.yaml").text)
            body = spec["paths"]["/v1/games/{game_id}/moves"]["post"]["requestBody"]["content"]["application/json"]
            titles = {branch["title"] for branch in body["schema"]["anyOf"]}
            assert {"higher_lower: guess", "craits: play", "scat: knock"} <= titles
            assert "higher_lower_guess" in body["examples"]
            game_id = client.post("/v1/games", json={"game": "higher_lower", "players": 2}).json()["id"]
            token = client.post(f"/v1/games/{game_id}/seats", json={"name": "me"}).json()["token"]
            client.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy"})
            auth = {"Authorization": f"Bearer {token}"}
            view = client.get(f"/v1/games/{game_id}/state", headers=auth).json()
            while view["status"] != "finished":
                view = client.post(f"/v1/games/{game_id}/moves", json=view["legal_moves"][-1], headers=auth).json()
            final = client.get(f"/v1/games/{game_id}/state", headers=auth).json()
    finally:
        server.stop()
    server = start_server(tmp_path)
    try:
        assert httpx.get(f"{server.base_url}/v1/games/{game_id}/state", headers=auth).json() == final
    finally:
        server.stop()


def test_registering_another_game_leaves_the_built_in_ones_registered():
    script = ("from domain import game; from domain.games.craits import Craits\n"
              "class Other(Craits): name = 'other'\n"
              "game.register(Other()); print(sorted(game.all_games()))")
    printed = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert printed.stdout.strip() == "['craits', 'other', 'scat']"


def test_first_dealer_is_an_option_of_the_games_with_a_dealer_only(http, higher_lower):
    """Craits and Scat draw for the first dealer and take ``first_dealer`` to skip the draw; Higher-Lower,
    with no dealer, neither lists it nor accepts it."""
    offered = {entry["game"]: entry for entry in http.client.get("/v1/game-types").json["game_types"]}
    assert offered["craits"]["options"]["first_dealer"] == {
        "type": "seat", "description": "Seat of the first dealer; skips the dealer draw (C4).", "default": None}
    assert offered["scat"]["options"]["first_dealer"]["description"].endswith("(S3).")
    assert "first_dealer" not in offered["higher_lower"]["options"]
    assert {"seed", "move_seconds", "decks"} <= set(offered["higher_lower"]["options"])
    for game in ("craits", "scat"):
        game_id, tokens = http.started(game, 3, first_dealer=2)
        assert http.state(game_id, tokens[0]).json["state"]["dealer"] == 2
    refused = http.client.post("/v1/games", json={"game": "higher_lower", "players": 2, "options": {"first_dealer": 0}})
    assert refused.status_code == 422 and "unknown option(s): first_dealer" in refused.json["detail"]


def test_a_greedy_house_bot_plays_the_strategy_its_game_brings(http, higher_lower):
    """Higher-Lower's greedy bot comes with the game (``house_bot``), nothing in ``bots/`` or ``service/``
    names it: from a card below 7 it calls higher, from one above lower, every time."""
    game_id = http.create("higher_lower", 4, seed=5)
    token = http.join(game_id, "me")
    for _ in range(3):
        assert http.bot(game_id, "greedy").status_code == 201
    view = http.state(game_id, token).json
    while view["status"] != "finished":
        view = http.move(game_id, token, {"type": "guess", "direction": "higher"}).json
    log = http.events(game_id, limit=1000).json["events"]
    order = log[5]["data"]["order"]
    calls = [(order[turn], event["data"]["direction"]) for turn, event in enumerate(log[6:]) if event["seat"] != 0]
    assert len(calls) == 9  # (by chance, a random bot would call all nine so once in 512 games)
    for face_up, direction in calls:
        rank = RANK_NUMBER[face_up[0]]
        assert direction == ("higher" if rank < 7 else "lower") or rank == 7, (face_up, direction)


def test_a_game_without_a_greedy_strategy_has_its_greedy_bots_play_at_random():
    class Plain(Craits):
        name = "plain"

        def house_bot(self, kind: str) -> None:
            return None

    moves = [{"type": "draw"}, {"type": "play", "card": "7S"}, {"type": "play", "card": "8S", "suit": "H"}]
    view = {"legal_moves": moves, "state": None}  # (a strategy reading the state would fail on it)
    chosen = {json.dumps(bots.choose(Plain(), "greedy", view, random.Random(seed))) for seed in range(40)}
    assert chosen == {json.dumps(move) for move in moves}

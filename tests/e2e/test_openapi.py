"""The OpenAPI document: generated from the code, committed, served."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

import persistence
from api import create_app, games
from api.openapi import generate
from api.parsing import Blueprint
from service.games import GameService

COMMITTED = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_the_committed_openapi_yaml_is_what_the_code_generates():
    assert COMMITTED.read_text() == generate(), "run: python -m api.openapi > openapi.yaml"


def test_documenting_a_view_puts_no_call_around_it():
    """flask-smorest's ``doc`` and ``alt_response`` each wrap a view in a function that only calls it
    (the move's view had 20 layers); ours put the same document on the view itself."""
    blp = Blueprint("documented", __name__)

    def view() -> str:
        return "answered"

    documented = blp.doc(summary="A view")(blp.alt_response(404, description="No such thing")(view))
    assert documented is view
    assert view._apidoc["manual_doc"] == {"summary": "A view"}
    assert [answer["description"] for answer in view._apidoc["response"]["responses"][404]] == ["No such thing"]
    assert sum(1 for _ in _layers(games.Moves.post)) <= 5  # (arguments twice, response, and flask-smorest's own)


def _layers(view):  # type: ignore[no-untyped-def]
    while (view := getattr(view, "__wrapped__", None)) is not None:
        yield view


def test_the_document_is_openapi_3_1_and_covers_every_path_of_the_contract(http):
    response = http.client.get("/openapi.yaml")
    assert response.status_code == 200
    spec = yaml.safe_load(response.get_data(as_text=True))
    assert spec["openapi"].startswith("3.1")
    assert {
        "/v1/game-types", "/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/seats",
        "/v1/games/{game_id}/state", "/v1/games/{game_id}/moves", "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/events/stream", "/healthz",
    } <= set(spec["paths"])
    moves = spec["paths"]["/v1/games/{game_id}/moves"]["post"]
    examples = moves["requestBody"]["content"]["application/json"]["examples"]
    assert {"craits_play", "craits_call", "scat_draw_stock", "scat_declare_31", "scat_throw_down"} <= set(examples)
    assert "application/problem+json" in moves["responses"]["422"]["content"]


def test_interactive_docs_are_served(http):
    response = http.client.get("/docs")
    assert response.status_code == 200 and b"swagger" in response.data.lower()


def test_a_new_apps_document_read_by_many_requests_at_once_is_the_whole_document_for_each():
    """An app documents its views when its document is first read: requests that read it together
    each get all of it (every path, the created game's links), the same as the committed one."""
    games = GameService(persistence.open_store("memory://"))
    app = create_app(games, CARDHALL_RATE_LIMIT="off")

    def read(_: int) -> str:
        return app.test_client().get("/openapi.yaml").get_data(as_text=True)

    try:
        with ThreadPoolExecutor(8) as pool:
            documents = list(pool.map(read, range(8)))
    finally:
        games.store.close()
    assert documents == [COMMITTED.read_text()] * 8

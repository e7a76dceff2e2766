"""A body must be sent as JSON: anything else is 415 ``unsupported_media_type`` and changes nothing."""

from __future__ import annotations

import json

import pytest

from api import create_app
from service.bootstrap import open_service
from tests.e2e.conftest import Http
from tests.e2e.test_games_resource import assert_problem

CREATE = {"game": "scat", "players": 2, "options": {}}
NOT_JSON = [
    pytest.param({"data": json.dumps(CREATE), "content_type": "text/plain"}, id="text-plain"),
    pytest.param({"data": {"game": "scat", "players": "2"}}, id="form-data"),
    pytest.param({"data": json.dumps(CREATE)}, id="no-content-type"),
]


@pytest.fixture
def http() -> Http:
    """The API over the memory store: the media type is checked before any store is touched."""
    return Http(create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="off").test_client())


@pytest.mark.parametrize("sent", NOT_JSON)
def test_a_game_created_without_a_json_body_is_a_415_that_says_to_send_json(http, sent):
    body = assert_problem(http.client.post("/v1/games", **sent), 415, "unsupported_media_type")
    assert "application/json" in body["detail"]
    assert http.client.get("/v1/games").json["games"] == []


@pytest.mark.parametrize("sent", NOT_JSON)
def test_a_seat_or_a_move_sent_without_json_is_a_415_and_changes_nothing(http, sent):
    game_id, tokens = http.started("scat", 2)
    before = http.version(game_id)
    assert_problem(http.client.post(f"/v1/games/{game_id}/seats", **sent), 415, "unsupported_media_type")
    move = http.client.post(f"/v1/games/{game_id}/moves", headers=http.auth(tokens[0]), **sent)
    assert_problem(move, 415, "unsupported_media_type")
    assert http.version(game_id) == before


def test_json_with_a_charset_is_json(http):
    response = http.client.post("/v1/games", data=json.dumps(CREATE), content_type="application/json; charset=utf-8")
    assert response.status_code == 201, response.json


def test_an_unknown_path_is_still_a_404_whatever_the_body(http):
    assert_problem(http.client.post("/v1/nowhere", data="x", content_type="text/plain"), 404, "not_found")


def test_the_openapi_document_lists_415_for_every_operation_that_takes_a_body(http):
    paths = http.client.get("/openapi.json").json["paths"]
    with_body = [operation for item in paths.values() for operation in item.values()
                 if isinstance(operation, dict) and "requestBody" in operation]
    assert with_body and all("415" in operation["responses"] for operation in with_body)


@pytest.mark.parametrize("sent", NOT_JSON)
def test_every_operation_that_takes_a_body_answers_415_to_one_not_sent_as_json(http, sent):
    """A webhook's or a subscription's URL sent as text or a form was read as no body: 422 "url: Missing data"."""
    key = http.client.post("/v1/accounts", json={"name": "ana", "kind": "bot"}).json["key"]
    paths = http.client.get("/openapi.json").json["paths"]
    for template, item in paths.items():
        path = template.replace("{game}", "craits")
        for method, operation in item.items():
            if isinstance(operation, dict) and "requestBody" in operation:
                answer = http.client.open(path.format_map({name: "x1" for name in ("game_id", "id", "challenge_id")}),
                                          method=method, headers=http.auth(key), **sent)
                assert_problem(answer, 415, "unsupported_media_type")

"""``cardhall serve --cors-origin ORIGIN``: other sites' scripts may call the API and its streams."""

from __future__ import annotations

import httpx

from api import create_app
from cardhall_cli import parser
from tests.e2e.server import start_server

SITE = "https://tables.example.org"


def test_no_other_site_is_allowed_unless_the_operator_says_so(app):
    answer = app.test_client().get("/v1/game-types", headers={"Origin": SITE})
    assert answer.status_code == 200
    assert "Access-Control-Allow-Origin" not in answer.headers


def test_an_allowed_site_may_read_answers_and_their_etags_but_another_may_not(games):
    client = create_app(games, CARDHALL_CORS_ORIGINS=[SITE]).test_client()
    created = client.post("/v1/games", json={"game": "craits", "players": 2, "options": {}}, headers={"Origin": SITE})
    assert created.headers["Access-Control-Allow-Origin"] == SITE
    assert "ETag" in created.headers["Access-Control-Expose-Headers"]
    assert "Location" in created.headers["Access-Control-Expose-Headers"]
    other = client.get("/v1/game-types", headers={"Origin": "https://elsewhere.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    missing = client.get("/v1/games/nope", headers={"Origin": SITE})
    assert missing.status_code == 404
    assert missing.headers["Access-Control-Allow-Origin"] == SITE  # the page can read the problem


def test_an_allowed_site_may_send_a_move_with_its_token_and_keys(games):
    client = create_app(games, CARDHALL_CORS_ORIGINS=[SITE]).test_client()
    preflight = client.options("/v1/games/abc/moves", headers={
        "Origin": SITE, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key, if-match"})
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == SITE
    allowed = {header.strip().lower() for header in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "if-match"} <= allowed
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]


def test_the_option_is_repeatable_and_off_by_default():
    assert parser().parse_args(["serve"]).cors_origin == []
    args = parser().parse_args(["serve", "--cors-origin", SITE, "--cors-origin", "http://localhost:3000"])
    assert args.cors_origin == [SITE, "http://localhost:3000"]


def test_a_served_api_and_its_stream_answer_an_allowed_site(tmp_path):
    server = start_server(tmp_path, options=("--cors-origin", SITE, "--cors-origin", "http://localhost:3000"))
    try:
        headers = {"Origin": "http://localhost:3000"}
        game = httpx.post(f"{server.base_url}/v1/games", json={"game": "scat", "players": 2, "options": {}},
                          headers=headers)
        assert game.headers["Access-Control-Allow-Origin"] == "http://localhost:3000"
        stream_url = f"{server.base_url}/v1/games/{game.json()['id']}/events/stream?timeout=0.5"
        with httpx.stream("GET", stream_url, headers={"Origin": SITE}, timeout=10) as stream:
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            assert stream.headers["Access-Control-Allow-Origin"] == SITE
            assert "id: 1" in stream.read().decode()
    finally:
        server.stop()

"""The contract's "Limits", one class each: what is refused, with which code, and what still passes."""

from __future__ import annotations

import asyncio
import json

import pytest

from api.mount import ThreadedWsgi
from tests.e2e.test_moves import assert_problem


def post_raw(http, path: str, body: bytes, **headers: str):  # type: ignore[no-untyped-def]
    return http.client.post(path, data=body, content_type="application/json", headers=headers)


@pytest.mark.parametrize("after", ["١٢", "１２", "²", "1_2", " 12", "+12", "12.0", "2147483648", str(2**63)])
def test_query_numbers_are_ascii_digits_within_the_32_bit_version_range(http, after):
    game_id = http.create()
    assert_problem(http.events(game_id, after=after), 422, "validation_error")
    assert http.events(game_id, after="2147483647").status_code == 200


def test_a_negative_number_in_a_query_is_refused_saying_what_a_number_there_is(http):
    game_id = http.create()
    refused = assert_problem(http.client.get(f"/v1/games/{game_id}/state?at=-1"), 422, "validation_error")
    assert "at: Not a whole number written in the digits 0-9 alone (no sign" in refused["detail"]


@pytest.mark.parametrize("last_event_id", ["²", "١", "-1", "2147483648", "x"])
def test_a_bad_last_event_id_is_refused_before_the_stream_answers_200(asgi_http, last_event_id):
    game_id = asgi_http.create()
    answer = asgi_http.client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": last_event_id})
    assert_problem(answer, 422, "validation_error")


@pytest.mark.parametrize(("body", "reason"), [
    (b"[" * 33 + b"]" * 33, "deeper than 32"),
    (b'{"game": "craits", "players": 2, "players": 3}', "duplicate keys"),
    (b'{"game": "craits", "players": NaN}', "NaN"),
    (b'{"game": "craits", "players": 1e999}', "out of range"),
    (b'{"game": "craits", "players": ' + b"7" * 5000 + b"}", "digits"),
], ids=["depth 33", "duplicate keys", "NaN", "infinite", "5000 digits"])
def test_json_past_the_limits_is_400_and_creates_nothing(http, body, reason):
    before = len(http.client.get("/v1/games").json["games"])
    answer = post_raw(http, "/v1/games", body)
    assert_problem(answer, 400, "validation_error")
    assert reason in answer.json["detail"]
    assert len(http.client.get("/v1/games").json["games"]) == before


def test_json_nested_32_levels_deep_is_read():
    from api.parsing import loads

    assert loads(b"[" * 32 + b"]" * 32) == json.loads(b"[" * 32 + b"]" * 32)


@pytest.mark.parametrize("name", ["a\u0000b", "tab\there", "\u0085", "x" * 65, "", "\u202eanA", "a\u2066b"])
def test_a_name_is_1_to_64_printable_characters(http, name):
    game_id = http.create()
    answer = http.client.post(f"/v1/games/{game_id}/seats", json={"name": name})
    assert answer.status_code in (400, 422) and answer.json["code"] == "validation_error"
    assert http.client.post(f"/v1/games/{game_id}/seats", json={"name": "Zoë 🂡 שלום"}).status_code == 201


def test_an_idempotency_key_is_at_most_255_visible_characters(http):
    game_id, tokens = http.started(seed=3)
    _, token, view = http.actor(game_id, tokens)
    for key in ("k" * 256, "bad\x7fkey"):
        assert_problem(http.move(game_id, token, view["legal_moves"][0], **{"Idempotency-Key": key}),
                       422, "validation_error")
    assert http.move(game_id, token, view["legal_moves"][0], **{"Idempotency-Key": "k" * 255}).status_code == 201


@pytest.mark.parametrize("game_id", ["a\x00b", "x" * 65, "..", "é"])
def test_a_path_that_cannot_be_a_game_id_is_404(http, game_id):
    assert_problem(http.client.get(f"/v1/games/{game_id}"), 404, "not_found")


def test_if_match_star_matches_any_version_and_a_list_matches_any_of_its_tags(http):
    game_id, tokens = http.started(seed=3)
    _, token, view = http.actor(game_id, tokens)
    assert http.move(game_id, token, view["legal_moves"][0], **{"If-Match": "*"}).status_code == 201
    _, token, view = http.actor(game_id, tokens)
    tags = f'"{view["version"] + 5}", W/"{view["version"]}"'
    assert http.move(game_id, token, view["legal_moves"][0], **{"If-Match": tags}).status_code == 201
    _, token, view = http.actor(game_id, tokens)
    assert_problem(http.move(game_id, token, view["legal_moves"][0], **{"If-Match": '"²"'}), 412,
                   "precondition_failed")


def test_a_move_of_the_other_game_is_a_validation_error_as_the_document_says(http, app):
    game_id, tokens = http.started("craits", seed=3)
    _, token, _ = http.actor(game_id, tokens)
    assert_problem(http.move(game_id, token, {"type": "throw_down"}), 422, "validation_error")
    branches = app.extensions["cardhall_api"].spec.to_dict()["paths"]["/v1/games/{game_id}/moves"]["post"][
        "requestBody"]["content"]["application/json"]["schema"]["anyOf"]
    assert "scat: throw_down" in {branch["title"] for branch in branches}
    assert "craits: throw_down" not in {branch["title"] for branch in branches}


def test_a_body_past_64_kib_to_an_ordinary_route_is_413_through_the_app_as_served(asgi_http):
    body = json.dumps({"game": "craits", "players": 2}).encode() + b" " * (64 << 10)
    answer = asgi_http.client.open("/v1/games", "POST", headers={"Content-Type": "application/json"}, data=body)
    assert_problem(answer, 413, "payload_too_large")


def test_the_mount_reads_a_body_no_further_than_the_limit_of_its_route(app):
    """An endless chunked body is read to the app's 64 KiB for an ordinary route and to 8 MiB for the replay
    (one message past either); a body declared longer than its route's limit is not read at all. Each is 413."""
    def read(path: str, header: tuple[bytes, bytes]) -> int:
        received, statuses = [], []

        async def receive() -> dict:
            received.append(65536)
            return {"type": "http.request", "body": b" " * 65536, "more_body": True}

        async def send(message: dict) -> None:
            statuses.extend([message["status"]] if "status" in message else [])

        scope = {"type": "http", "method": "POST", "path": path, "query_string": b"", "http_version": "1.1",
                 "headers": [(b"content-type", b"application/json"), header]}
        mount = ThreadedWsgi(app, 1)
        asyncio.run(mount(scope, receive, send))
        mount.executor.shutdown()
        assert statuses == [413]
        return sum(received)

    chunked = (b"transfer-encoding", b"chunked")
    assert read("/v1/games", chunked) == 2 * 65536
    assert read("/v1/records/replay", chunked) == (8 << 20) + 65536
    assert read("/v1/records/replay", (b"content-length", b"%d" % ((8 << 20) + 1))) == 0
    assert read("/v1/games", (b"content-length", b"%d" % ((64 << 10) + 1))) == 0

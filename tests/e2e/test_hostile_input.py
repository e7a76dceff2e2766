"""Property: no request, however malformed, gets a 5xx — and a refused one changes nothing. SQLite and PostgreSQL.

Hypothesis sends every endpoint generated paths, query strings, headers and bodies,
mixing well-formed values (the live game's id, a valid token, a legal move) with the
classes of input that once broke the server: non-ASCII digits, numbers past the
32- and 64-bit ranges, NUL bytes and lone surrogates, JSON nested thousands deep,
duplicate keys, NaN and integers of thousands of digits, bodies past the size limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import persistence
from api import create_app
from service.games import GameService
from tests.e2e.conftest import _store_url

BACKENDS = [pytest.param("sqlite", id="sqlite"), pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres)]

NUMBERS = ["0", "1", "7", "2147483647", "2147483648", str(2**63), str(2**64), "9" * 5000, "-1", "²", "١٢", "１０",
           "1_0", " 3", "3 ", "0x10", "1e3", "nan", "inf", "1e999", "", "\x00", "1\x00"]
TEXTS = ["", "a", "\x00", "a\x00b", "\ud800", "\u0085", "²", "*", '"1"', 'W/"1"', '"²"', "\u202e", "x" * 300,
         "\\u0000", "%00", "../", "'; DROP TABLE games; --"]
HOSTILE_BODIES = [
    b"[" * 10_000 + b"]" * 10_000,
    b'{"a":' * 5_000 + b"1" + b"}" * 5_000,
    b'{"game": "craits", "players": 2, "players": 3}',
    b'{"type": "draw", "type": "play"}',
    b'{"game": "craits", "players": NaN}',
    b'{"game": "craits", "players": Infinity}',
    b'{"game": "craits", "players": 1e400}',
    b'{"game": "craits", "players": ' + b"9" * 5000 + b"}",
    b'{"name": "a\\u0000b"}',
    b'{"name": "\\ud800"}',
    b'{"game": "craits\\u0000", "players": 2}',
    b'{"type": "call", "target": 9223372036854775808}',
    b'{"type": "draw", "expected_version": 2147483648}',
    b'{"game": "craits", "players": 2, "options": {"seed": 99999999999999999999}}',
    b"\xff\xfe\x00",
    b"",
    b"null",
    b'"just a string"',
    b'{"name": "' + b"x" * 70_000 + b'"}',
]
ENDPOINTS = [
    ("GET", "/v1/game-types"), ("GET", "/v1/games"), ("POST", "/v1/games"), ("GET", "/v1/games/{id}"),
    ("POST", "/v1/games/{id}/seats"), ("GET", "/v1/games/{id}/state"), ("POST", "/v1/games/{id}/moves"),
    ("GET", "/v1/games/{id}/events"), ("GET", "/v1/games/{id}/events/stream"), ("GET", "/healthz"),
]
QUERY_NAMES = ["after", "at", "limit", "wait", "timeout", "status", "game", "cursor", "x\x00"]


@pytest.fixture(params=BACKENDS)
def live(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[tuple[Any, GameService, str, str]]:
    """A test client, its service, a started game (a person and a house bot) and the person's token."""
    url = _store_url(request.param, request)
    persistence.upgrade(url)
    games = GameService(persistence.open_store(url), max_wait=0.05)
    app = create_app(games, CARDHALL_SSE_HEARTBEAT=0.05, CARDHALL_STREAM_MAX=0.1, CARDHALL_RATE_LIMIT="off")
    client = app.test_client()
    game_id = client.post("/v1/games", json={"game": "craits", "players": 2, "options": {"seed": 5}}).json["id"]
    token = client.post(f"/v1/games/{game_id}/seats", json={"name": "me"}).json["token"]
    client.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy"})
    yield client, games, game_id, token
    games.store.close()


def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                        st.text(max_size=20), st.sampled_from(TEXTS))
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)


@st.composite
def requests(draw: st.DrawFn, game_id: str, token: str, legal: list[dict[str, Any]]) -> dict[str, Any]:
    method, template = draw(st.sampled_from(ENDPOINTS))
    path_id = draw(st.one_of(st.just(game_id), st.sampled_from(TEXTS), st.text(max_size=70)))
    query = draw(st.dictionaries(st.sampled_from(QUERY_NAMES), st.one_of(st.sampled_from(NUMBERS + TEXTS),
                                                                          st.text(max_size=12)), max_size=3))
    headers = {}
    for name, values in (("If-Match", ['"1"', "*", '"²"', 'W/"9"', '"99999999999"', "x"]),
                         ("Last-Event-ID", NUMBERS), ("Idempotency-Key", ["k", "x" * 300, "\x7f", "é"]),
                         ("Authorization", [f"Bearer {token}", "Bearer nope", "Basic abc", "Bearer ", "Bearer \x00"]),
                         ("Content-Type", ["application/json", "text/plain", "application/json; charset=latin-1"])):
        if draw(st.booleans()):
            headers[name] = draw(st.sampled_from(values))
    body = draw(st.one_of(
        st.sampled_from(HOSTILE_BODIES),
        json_values().map(lambda value: json.dumps(value).encode()),
        st.sampled_from(legal or [{"type": "draw"}]).map(lambda move: json.dumps(move).encode()),
        st.fixed_dictionaries({"type": st.sampled_from(["play", "draw", "throw_down", "call", "knock"])},
                              optional={"card": st.sampled_from(["8S", "2C", "\x00", 7]),
                                        "target": st.sampled_from([0, 1, -1, 2**40, 2.5, True]),
                                        "expected_version": st.sampled_from([0, 5, -1, 2**31, 1e300, "5"])})
        .map(lambda move: json.dumps(move).encode()),
    ))
    headers.setdefault("Content-Type", "application/json")
    return {"method": method, "path": template.replace("{id}", path_id), "query": query, "headers": headers,
            "body": body if method == "POST" else None}


def world(games: GameService, game_id: str) -> tuple[Any, ...]:
    """What a refused request must leave as it was: the game's version and the games there are."""
    count, cursor = 0, None
    while True:
        page = games.store.list_games(limit=100, cursor=cursor)
        count += len(page.games)
        if (cursor := page.next_cursor) is None:
            return games.table(game_id).version, count


def test_no_request_gets_a_5xx_and_a_refused_one_changes_nothing(live) -> None:
    client, games, game_id, token = live
    legal = client.get(f"/v1/games/{game_id}/state", headers={"Authorization": f"Bearer {token}"}).json["legal_moves"]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(requests(game_id, token, legal))
    def check(sent: dict[str, Any]) -> None:
        before = world(games, game_id)
        try:
            response = client.open(sent["path"], method=sent["method"], query_string=sent["query"],
                                   headers=sent["headers"], data=sent["body"])
        except ValueError:  # the test client itself refuses a header or URL no HTTP client could send
            return
        try:
            assert response.status_code < 500, (sent, response.get_data(as_text=True)[:500])
            if response.status_code >= 400:
                assert response.mimetype == "application/problem+json", sent
                assert world(games, game_id) == before, sent
        finally:
            response.close()

    check()

"""Rate limits per client: RateLimit-* headers under the limit, 429 rate_limited with Retry-After past it."""

from __future__ import annotations

import httpx
import pytest

from api import create_app
from service.bootstrap import open_service
from tests.e2e.server import running_server, start_server


def limited_app(limit: str = "4/minute", create: str = "100/minute", storage: str = "memory://"):  # type: ignore[no-untyped-def]
    return create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT=limit,
                      CARDHALL_CREATE_RATE_LIMIT=create, CARDHALL_RATE_LIMIT_STORAGE=storage)


def test_under_the_limit_answers_carry_the_ratelimit_headers_and_past_it_the_client_gets_429():
    http = limited_app("4/minute").test_client()
    answers = [http.get("/v1/game-types") for _ in range(5)]
    assert [answer.status_code for answer in answers] == [200, 200, 200, 200, 429]
    assert [answer.headers["RateLimit-Remaining"] for answer in answers[:4]] == ["3", "2", "1", "0"]
    assert all(answer.headers["RateLimit-Limit"] == "4" and answer.headers["RateLimit-Reset"] for answer in answers)
    refused = answers[-1]
    assert refused.mimetype == "application/problem+json"
    assert (refused.json["status"], refused.json["code"]) == (429, "rate_limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 61  # (the window's end, rounded up to a whole second)
    assert 1 <= int(answers[0].headers["RateLimit-Reset"]) <= 61 and "Retry-After" not in answers[0].headers


def _tokens(app, count: int) -> list[str]:  # type: ignore[no-untyped-def]
    """``count`` tokens the app gave out (seats of a game), taken with limits lifted for the set-up."""
    games, tokens = app.extensions["cardhall"], []
    while len(tokens) < count:
        game_id = games.create_game("craits", 5, {})["id"]
        tokens += [games.join(game_id, name=f"p{n}")["token"] for n in range(min(4, count - len(tokens)))]
    return tokens


def test_each_token_given_out_is_a_client_of_its_own_and_liveness_is_never_limited():
    app = limited_app("2/minute")
    http = app.test_client()
    for token in _tokens(app, 3):
        codes = [http.get("/v1/game-types", headers={"Authorization": f"Bearer {token}"}).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
    assert [http.get("/healthz").status_code for _ in range(10)] == [200] * 10


def test_invented_tokens_share_their_addresss_budget():
    http = limited_app("2/minute").test_client()
    codes = [http.get("/v1/game-types", headers={"Authorization": f"Bearer token-{n}"}).status_code for n in range(4)]
    assert codes == [200, 200, 429, 429]
    assert http.get("/v1/game-types").status_code == 429  # (and the address, without a token, is spent too)


def test_tokens_given_out_do_not_lift_an_address_past_five_times_the_limit():
    app = limited_app("2/minute")
    http = app.test_client()
    codes = [http.get("/v1/game-types", headers={"Authorization": f"Bearer {token}"}).status_code
             for token in _tokens(app, 12)]
    assert codes == [200] * 10 + [429] * 2


def test_creating_games_has_a_limit_of_its_own():
    http = limited_app("100/minute", create="2/minute").test_client()
    created = [http.post("/v1/games", json={"game": "craits", "players": 2}).status_code for _ in range(3)]
    assert created == [201, 201, 429]
    assert http.get("/v1/games").status_code == 200


def test_two_processes_with_the_sqlite_file_storage_count_together(tmp_path):
    storage = f"cardhall+sqlite://{tmp_path / 'ratelimits.db'}"
    first, second = (limited_app("3/minute", storage=storage).test_client() for _ in range(2))
    codes = [client.get("/v1/game-types").status_code for client in (first, second, first, second)]
    assert codes == [200, 200, 200, 429]


def test_with_limits_off_nothing_is_counted():
    http = create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="off").test_client()
    answers = [http.get("/v1/game-types") for _ in range(30)]
    assert {answer.status_code for answer in answers} == {200}
    assert "RateLimit-Limit" not in answers[0].headers


@pytest.mark.timeout(120)
def test_cardhall_serve_with_two_workers_limits_a_client_through_the_shared_counter_file(tmp_path):
    server = start_server(tmp_path, workers=2, rate_limit="6/minute")
    try:
        codes = []
        for _ in range(8):  # a new connection each time, so both workers take some
            codes.append(httpx.get(f"{server.base_url}/v1/game-types").status_code)
        assert codes == [200] * 6 + [429] * 2
    finally:
        server.stop()


def test_cardhall_serve_limits_by_default(tmp_path):
    with running_server(tmp_path, rate_limit=None) as base_url:
        answer = httpx.get(f"{base_url}/v1/game-types")
        assert answer.headers["RateLimit-Limit"] == "50"

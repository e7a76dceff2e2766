"""Rate limits per client: RateLimit-* headers under the limit, 429 rate_limited with Retry-After past it."""

from __future__ import annotations

import json
import random

import httpx
import pytest

from api import create_app
from domain import table as tables
from domain.cards import DECK
from service import records
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


def test_each_account_key_is_a_client_of_its_own_and_a_revoked_one_counts_against_its_address():
    app = limited_app("2/minute")
    http, accounts = app.test_client(), app.extensions["cardhall"].accounts
    keys = [accounts.create_account(f"bot-{n}", "bot")["key"] for n in range(3)]  # (made without requests)
    accounts.revoke_key(accounts.caller(keys[2]), keys[2][4:16])
    for key in keys[:2]:  # (two bots behind one address: each has the whole limit)
        codes = [http.get("/v1/game-types", headers={"Authorization": f"Bearer {key}"}).status_code for _ in range(3)]
        assert codes == [200, 200, 429]
    revoked = [http.get("/v1/game-types", headers={"Authorization": f"Bearer {keys[2]}"}) for _ in range(3)]
    assert [answer.status_code for answer in revoked] == [200, 200, 429]  # (the address's budget: it is no client)
    assert http.get("/v1/game-types").status_code == 429


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


@pytest.mark.timeout(240)
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


def _finished_game(app) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    """A finished game and its last version, 277: dealt from stacked decks and played by each seat's first legal
    move, the same game every run (two random house bots played one shorter than the 150 events these budgets
    are counted against now and then: 6 games in 5,000 had under 200)."""
    games = app.extensions["cardhall"]
    rng = random.Random(0)
    decks = [rng.sample(DECK, len(DECK)) for _ in range(8)]
    game_id = games.create_game("craits", 2, {"short": True, "decks": decks, "first_dealer": 0})["id"]
    tokens = [games.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]
    while (table := games.table(game_id)).status != tables.FINISHED:
        seat = tables.to_act(table)[0]
        games.move(game_id, tokens[seat], tables.legal_moves(table, seat)[0])
    summary = games.summary(game_id)
    assert (summary["status"], summary["version"]) == ("finished", 277)
    return game_id, summary["version"]


def test_reads_of_a_log_are_charged_by_the_events_they_read_and_a_spent_read_budget_still_moves():
    app = create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="1000/minute",
                     CARDHALL_READ_RATE_LIMIT="1000/minute")
    http = app.test_client()
    game_id, last = _finished_game(app)
    assert last >= 150
    # A bot catching up on 20 events after each move: 20 events each, 50 of them before the budget is spent.
    catch_up = [http.get(f"/v1/games/{game_id}/events", query_string={"after": last - 20}) for _ in range(25)]
    assert {answer.status_code for answer in catch_up} == {200}
    assert catch_up[-1].headers["RateLimit-Remaining"] == str(1000 - 25 * 20)
    assert http.get(f"/v1/games/{game_id}/state").status_code == 200  # (a view now is no read of the log)
    # Whole pages are charged by their events: what is left buys (1000 - 500) // page of them.
    page = min(last, 1000)
    pages = [http.get(f"/v1/games/{game_id}/events", query_string={"after": 0, "limit": 1000}).status_code
             for _ in range(500 // page + 2)]
    assert pages[:500 // page] == [200] * (500 // page) and pages[-1] == 429
    refused = http.get(f"/v1/games/{game_id}/state", query_string={"at": 1})
    assert (refused.status_code, refused.json["code"]) == (429, "rate_limited")
    assert int(refused.headers["Retry-After"]) >= 1 and refused.headers["RateLimit-Remaining"] == "0"
    assert http.get(f"/v1/games/{game_id}/record").status_code == 429
    # What is not a read of a log goes on: the client may still create and join games.
    made = http.post("/v1/games", json={"game": "scat", "players": 2})
    assert made.status_code == 201
    assert http.post(f"/v1/games/{made.json['id']}/seats", json={"name": "p"}).status_code == 201


def test_a_view_at_a_past_version_and_a_record_are_charged_too():
    app = create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="1000/minute",
                     CARDHALL_READ_RATE_LIMIT="150/minute")
    http = app.test_client()
    game_id, last = _finished_game(app)
    assert last >= 150
    # A past view is charged 50 events (at most that many are replayed from a snapshot).
    assert [http.get(f"/v1/games/{game_id}/state", query_string={"at": 2}).status_code for _ in range(4)] == \
        [200, 200, 200, 429]
    other = create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="1000/minute",
                       CARDHALL_READ_RATE_LIMIT="150/minute")
    game_id, last = _finished_game(other)
    client = other.test_client()
    assert client.get(f"/v1/games/{game_id}/record").status_code == 200  # (charged its events: 150 or more)
    assert client.get(f"/v1/games/{game_id}/record").status_code == 429


def test_a_page_of_records_in_bulk_is_charged_the_events_of_every_game_it_reads():
    """GET /v1/records read up to 100 whole games a request outside the read budget: a client paging through
    it in a loop read a hundred times what one game's record lets it."""
    app = create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="1000/minute",
                     CARDHALL_READ_RATE_LIMIT="400/minute")
    game_id, last = _finished_game(app)
    assert 150 <= last < 400
    http = app.test_client()
    first = http.get("/v1/records")
    assert first.status_code == 200 and json.loads(first.get_data(as_text=True).splitlines()[0])["id"] == game_id
    assert first.headers["RateLimit-Remaining"] == str(400 - last)
    assert http.get("/v1/records").status_code == 200  # (what is left pays for a read begun; then it is spent)
    refused = http.get("/v1/records")
    assert (refused.status_code, refused.json["code"]) == (429, "rate_limited")
    assert http.get(f"/v1/games/{game_id}/record").status_code == 429


def test_a_record_sent_to_be_replayed_is_charged_the_events_it_holds():
    """POST /v1/records/replay replays a record of up to 8 MiB and makes a view of every event, outside the read
    budget: a client sending a long game's record in a loop cost the worker more than reading it, and paid nothing."""
    app = create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="1000/minute",
                     CARDHALL_READ_RATE_LIMIT="400/minute")
    game_id, last = _finished_game(app)
    record = records.record(app.extensions["cardhall"], game_id)
    http = app.test_client()
    replayed = http.post("/v1/records/replay", json=record)
    assert replayed.status_code == 200 and replayed.json["valid"] and len(replayed.json["views"]) == last
    assert replayed.headers["RateLimit-Remaining"] == str(400 - last)
    assert http.post("/v1/records/replay", json=record).status_code == 200  # (what is left pays for a replay begun)
    refused = http.post("/v1/records/replay", json=record)
    assert (refused.status_code, refused.json["code"]) == (429, "rate_limited")

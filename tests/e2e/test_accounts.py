"""Accounts and API keys over HTTP: creation, names, keys and their scopes, revocation, sign-up modes,
seats taken by accounts, and the account's events."""

from __future__ import annotations

from typing import Any

import pytest

import persistence
from api import create_app
from service.games import GameService
from tests.e2e.conftest import Http


def sign_up(http: Http, name: str, kind: str = "bot") -> str:
    """A new account's first key."""
    response = http.client.post("/v1/accounts", json={"name": name, "kind": kind})
    assert response.status_code == 201, response.json
    return response.json["key"]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


#: The challenge of a 401 to a request with no credentials, and to one whose token the server does not know.
NO_TOKEN, UNKNOWN_TOKEN = 'Bearer realm="cardhall"', 'Bearer realm="cardhall", error="invalid_token"'


def refusal(response: Any) -> tuple[int, str, str, str]:
    """What a 401 tells: status, code, challenge and detail."""
    body = response.json() if callable(response.json) else response.json
    return response.status_code, body["code"], response.headers["WWW-Authenticate"], body["detail"]


def key_with(http: Http, key: str, *scopes: str) -> str:
    response = http.client.post("/v1/account/keys", json={"scopes": list(scopes)}, headers=bearer(key))
    assert response.status_code == 201, response.json
    return response.json["key"]


def account_events(http: Http, key: str, after: int = 0, **query: Any) -> list[dict[str, Any]]:
    response = http.client.get("/v1/account/events", query_string={"after": after, **query}, headers=bearer(key))
    assert response.status_code == 200, response.json
    return response.json["events"]


def test_an_account_is_created_with_a_key_shown_once_and_its_page_shows_no_key(http: Http) -> None:
    response = http.client.post("/v1/accounts", json={"name": "Deep-Crait_1", "kind": "bot", "description": "hi"})
    assert response.status_code == 201
    assert response.headers["Location"].endswith("/v1/accounts/Deep-Crait_1")
    key = response.json["key"]
    assert response.json["scopes"] == ["create", "play", "read"] and len(key) > 40
    page = http.client.get("/v1/accounts/deep-crait_1")
    assert page.status_code == 200
    assert page.json["name"] == "Deep-Crait_1" and page.json["kind"] == "bot" and page.json["description"] == "hi"
    assert page.json["games"] == {"played": 0, "current": []}
    listed = http.client.get("/v1/account/keys", headers=bearer(key))
    assert [entry["prefix"] for entry in listed.json["keys"]] == [key[4:16]]
    for answer in (page, listed, http.client.get("/v1/account", headers=bearer(key))):
        assert key not in answer.get_data(as_text=True)


def test_names_are_unique_without_regard_to_case(http: Http) -> None:
    sign_up(http, "Ana")
    response = http.client.post("/v1/accounts", json={"name": "aNA", "kind": "person"})
    assert response.status_code == 409 and response.json["code"] == "name_taken"


@pytest.mark.parametrize("body", [{"name": "", "kind": "bot"}, {"name": "a" * 33, "kind": "bot"},
                                  {"name": "no spaces", "kind": "bot"}, {"name": "ok", "kind": "robot"},
                                  {"name": "ok"}, {"name": "ok", "kind": "bot", "key": "mine"},
                                  {"name": "ok", "kind": "bot", "description": "two\nlines"},
                                  {"name": "ok", "kind": "bot", "description": "a bell \u0007"},
                                  {"name": "ok", "kind": "bot", "description": "\u202egnirts desrever"},
                                  {"name": "ok", "kind": "bot", "description": "isolated \u2067text\u2069"}])
def test_a_bad_name_or_kind_is_refused(http: Http, body: dict[str, Any]) -> None:
    """A description is one line of text: no control characters, none of the marks that show text around it
    reordered on a page (right-to-left overrides and isolates)."""
    response = http.client.post("/v1/accounts", json=body)
    assert response.status_code == 422 and response.json["code"] == "validation_error"
    assert http.client.get("/v1/accounts/ok").status_code == 404


def test_a_description_may_hold_any_language_and_its_punctuation(http: Http) -> None:
    text = "Бот для «Крейтс» — שלום, مرحبا, 你好 🂡 (v2.1)"
    assert http.client.post("/v1/accounts", json={"name": "polyglot", "kind": "bot", "description": text}).status_code == 201
    assert http.client.get("/v1/accounts/polyglot").json["description"] == text


def test_an_unknown_account_is_not_found(http: Http) -> None:
    assert http.client.get("/v1/accounts/nobody").json["code"] == "not_found"


def test_a_revoked_key_is_refused_and_the_others_still_work(http: Http) -> None:
    key = sign_up(http, "ana")
    second = key_with(http, key, "read")
    assert http.client.delete(f"/v1/account/keys/{second[4:16]}", headers=bearer(key)).status_code == 204
    refused = http.client.get("/v1/account", headers=bearer(second))
    assert refused.status_code == 401 and refused.json["code"] == "unauthorized"
    assert http.client.get("/v1/account", headers=bearer(key)).json["name"] == "ana"
    listed = http.client.get("/v1/account/keys", headers=bearer(key)).json["keys"]
    assert [entry["revoked_at"] is not None for entry in listed] == [False, True]


def test_no_key_and_a_key_the_server_does_not_know_are_told_apart_but_never_why_it_does_not_know_it(
        http: Http) -> None:
    """RFC 6750: no credentials is a bare challenge saying what to send; a token given that the server does
    not know is ``invalid_token``, and a mistyped, forged, revoked key or a seat's token read alike: nothing
    tells which keys exist."""
    key = sign_up(http, "ana")
    revoked = key_with(http, key, "read")
    assert http.client.delete(f"/v1/account/keys/{revoked[4:16]}", headers=bearer(key)).status_code == 204
    _, [seat_token, _] = http.started("scat", 2)
    status, code, challenge, detail = refusal(http.client.get("/v1/account"))
    assert (status, code, challenge) == (401, "unauthorized", NO_TOKEN) and "Authorization: Bearer KEY" in detail
    unknown = {refusal(http.client.get("/v1/account", headers=bearer(token)))
               for token in ("garbage", "chk_000000000000_" + "A" * 43, key[:-4] + ("AAAA" if key[-4:] != "AAAA" else "BBBB"),
                             revoked, seat_token)}
    assert len(unknown) == 1
    [(status, code, challenge, told)] = unknown
    assert (status, code, challenge) == (401, "unauthorized", UNKNOWN_TOKEN) and "chk_" in told and told != detail


def test_keys_added_and_revoked_in_a_loop_leave_a_bounded_listing_and_stay_refused(http: Http) -> None:
    """Revoked keys were kept and listed for good: a loop of add and revoke grew the account's rows and its
    listing without bound. An account keeps its 20 live keys and its 20 revoked last."""
    key = sign_up(http, "ana")
    revoked = []
    for _ in range(30):
        revoked.append(key_with(http, key, "read"))
        assert http.client.delete(f"/v1/account/keys/{revoked[-1][4:16]}", headers=bearer(key)).status_code == 204
    listed = http.client.get("/v1/account/keys", headers=bearer(key)).json["keys"]
    assert [entry["prefix"] for entry in listed if entry["revoked_at"]] == [old[4:16] for old in revoked[-20:]]
    assert [entry["prefix"] for entry in listed if not entry["revoked_at"]] == [key[4:16]]
    for old in (revoked[0], revoked[-1]):
        refused = http.client.get("/v1/account", headers=bearer(old))
        assert refused.status_code == 401 and refused.json["code"] == "unauthorized"


def test_a_forged_key_with_a_real_prefix_is_refused(http: Http) -> None:
    key = sign_up(http, "ana")
    forged = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    assert http.client.get("/v1/account", headers=bearer(forged)).status_code == 401


def test_a_key_gives_no_scope_it_lacks_and_revokes_no_key_with_more(http: Http) -> None:
    key = sign_up(http, "ana")
    reader = key_with(http, key, "read")
    more = http.client.post("/v1/account/keys", json={"scopes": ["play"]}, headers=bearer(reader))
    assert more.status_code == 403 and more.json["code"] == "insufficient_scope"
    revoking = http.client.delete(f"/v1/account/keys/{key[4:16]}", headers=bearer(reader))
    assert revoking.status_code == 403 and revoking.json["code"] == "insufficient_scope"
    other = sign_up(http, "bo")
    assert http.client.delete(f"/v1/account/keys/{other[4:16]}", headers=bearer(key)).status_code == 404


#: Every route an account key opens, with the scope it needs.
SCOPED_ROUTES = [
    ("get", "/v1/account/keys", None, "read"),
    ("get", "/v1/account/events", None, "read"),
    ("post", "/v1/challenges", {"game": "craits", "players": 2}, "create"),
    ("post", "/v1/games", {"game": "craits", "players": 2, "options": {}}, "create"),
    ("post", "/v1/challenges/{challenge}/accept", None, "play"),
    ("post", "/v1/challenges/{challenge}/decline", None, "play"),
    ("post", "/v1/challenges/{challenge}/cancel", None, "create"),
    ("post", "/v1/games/{game}/seats", {}, "play"),
    ("post", "/v1/games/{seated}/moves", {"type": "draw"}, "play"),
]


@pytest.mark.parametrize(("method", "path", "body", "scope"), SCOPED_ROUTES,
                         ids=[f"{method} {path}" for method, path, _, _ in SCOPED_ROUTES])
def test_every_route_refuses_a_key_without_its_scope(http: Http, method: str, path: str, body: Any,
                                                     scope: str) -> None:
    key, other = sign_up(http, "ana"), sign_up(http, "bo")
    challenge = http.client.post("/v1/challenges", json={"game": "craits", "players": 2, "to": ["ana"]},
                                 headers=bearer(other)).json["id"]
    seated = http.create("craits", 2)
    http.client.post(f"/v1/games/{seated}/seats", json={}, headers=bearer(key))
    path = path.format(challenge=challenge, game=http.create("craits", 2), seated=seated)
    lacking = key_with(http, key, *(name for name in ("play", "create", "read") if name != scope))
    send = getattr(http.client, method)
    refused = send(path, json=body, headers=bearer(lacking)) if body is not None else send(path, headers=bearer(lacking))
    assert refused.status_code == 403 and refused.json["code"] == "insufficient_scope", refused.json
    allowed = key_with(http, key, scope)
    answered = send(path, json=body, headers=bearer(allowed)) if body is not None else send(path, headers=bearer(allowed))
    assert answered.json is None or answered.json.get("code") != "insufficient_scope"


def test_a_seat_taken_with_a_key_is_the_accounts_and_the_key_moves_for_it(http: Http) -> None:
    key = sign_up(http, "ana")
    game_id = http.create("craits", 2, short=True)
    taken = http.client.post(f"/v1/games/{game_id}/seats", json={}, headers=bearer(key))
    assert taken.status_code == 201 and taken.json["seat"] == 0
    person = http.join(game_id, "carol")
    seats = http.client.get(f"/v1/games/{game_id}").json["seats"]
    assert {key: seats[0][key] for key in ("name", "bot", "taken", "account")} == {
        "name": "ana", "bot": True, "taken": True, "account": "ana"}
    assert {key: seats[1][key] for key in ("name", "bot", "taken", "account")} == {
        "name": "carol", "bot": None, "taken": True, "account": None}
    view = http.state(game_id, key).json
    assert view["seat"] == 0
    _, token, view = http.actor(game_id, [key, person])
    assert http.move(game_id, token, view["legal_moves"][0]).status_code == 201
    events = http.events(game_id).json["events"]
    assert events[1]["data"]["account"] == "ana" and events[1]["data"]["bot_account"] is True
    again = http.client.post(f"/v1/games/{http.create('craits', 3)}/seats", json={}, headers=bearer(key))
    assert again.status_code == 201


def test_an_account_sits_once_in_a_game_and_moves_in_no_game_it_does_not_sit_in(http: Http) -> None:
    key = sign_up(http, "ana")
    game_id = http.create("craits", 3)
    http.client.post(f"/v1/games/{game_id}/seats", json={}, headers=bearer(key))
    twice = http.client.post(f"/v1/games/{game_id}/seats", json={}, headers=bearer(key))
    assert twice.status_code == 409 and twice.json["code"] == "seat_unavailable"
    other, _ = http.started("craits", 2)
    refused = http.move(other, key, {"type": "draw"})
    assert refused.status_code == 403 and refused.json["code"] == "forbidden"


def test_a_seat_without_a_key_or_a_name_is_refused(http: Http) -> None:
    response = http.client.post(f"/v1/games/{http.create()}/seats", json={})
    assert response.status_code == 422 and response.json["code"] == "validation_error"


def test_accounts_hear_their_games_start_and_finish_once(http: Http) -> None:
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo", "person")
    game_id = http.create("craits", 2, short=True)
    for key in (ana, bo):
        http.client.post(f"/v1/games/{game_id}/seats", json={}, headers=bearer(key))
    http.play_out(game_id, [ana, bo])
    result = http.client.get(f"/v1/games/{game_id}").json["result"]
    for seat, key in enumerate((ana, bo)):
        events = account_events(http, key)
        assert [(event["id"], event["type"]) for event in events] == [(1, "gameStart"), (2, "gameFinish")]
        assert events[0]["data"] == {"game_id": game_id, "game": "craits", "seat": seat}
        assert events[1]["data"] == {"game_id": game_id, "seat": seat, "result": result}
    assert http.client.get("/v1/accounts/ana").json["games"] == {"played": 1, "current": []}


def test_a_game_aborted_while_it_waited_for_players_is_not_counted_as_played(http: Http) -> None:
    """An account's page counted a game aborted before it began among the games it played."""
    ana = sign_up(http, "ana")
    game_id = http.create("craits", 2)
    assert http.client.post(f"/v1/games/{game_id}/seats", json={}, headers=bearer(ana)).status_code == 201
    assert http.client.get("/v1/accounts/ana").json["games"] == {"played": 0, "current": [game_id]}
    assert http.client.post(f"/v1/games/{game_id}/abort", headers=bearer(ana)).status_code == 200
    assert http.client.get(f"/v1/games/{game_id}").json["status"] == "aborted"
    assert http.client.get("/v1/accounts/ana").json["games"] == {"played": 0, "current": []}


def test_last_event_id_resumes_after_the_event_it_names(http: Http) -> None:
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    for _ in range(3):
        http.client.post("/v1/challenges", json={"game": "craits", "players": 2, "to": ["bo"]}, headers=bearer(ana))
    resumed = http.client.get("/v1/account/events", headers={**bearer(bo), "Last-Event-ID": "1"}).json
    assert [event["id"] for event in resumed["events"]] == [2, 3] and resumed["last_id"] == 3


def test_sign_up_closed_takes_an_admin_key(games: GameService) -> None:
    http = Http(create_app(games, CARDHALL_RATE_LIMIT="off", CARDHALL_ACCOUNTS="closed").test_client())
    body = {"name": "ana", "kind": "bot"}
    assert http.client.post("/v1/accounts", json=body).status_code == 401
    admin = games.accounts.create_account("root", "person", scopes=("admin", "play", "create", "read"),
                                          caller=None, operator=True)["key"]
    plain = games.accounts.create_account("bo", "bot", caller=None, operator=True)["key"]
    refused = http.client.post("/v1/accounts", json=body, headers=bearer(plain))
    assert refused.status_code == 403 and refused.json["code"] == "insufficient_scope"
    assert http.client.post("/v1/accounts", json=body, headers=bearer(admin)).status_code == 201


def test_creating_accounts_is_rate_limited_per_address(games: GameService) -> None:
    app = create_app(games, CARDHALL_ACCOUNT_RATE_LIMIT="2/minute")
    client = app.test_client()
    statuses = [client.post("/v1/accounts", json={"name": f"a{index}", "kind": "bot"}).status_code
                for index in range(3)]
    assert statuses == [201, 201, 429]


def test_an_accounts_events_outlive_the_server(sqlite_url: str) -> None:
    first = GameService(persistence.open_store(sqlite_url))
    http = Http(create_app(first, CARDHALL_RATE_LIMIT="off").test_client())
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    http.client.post("/v1/challenges", json={"game": "craits", "players": 2, "to": ["bo"]}, headers=bearer(ana))
    first.store.close()
    again = GameService(persistence.open_store(sqlite_url))
    try:
        http = Http(create_app(again, CARDHALL_RATE_LIMIT="off").test_client())
        assert [event["type"] for event in account_events(http, bo)] == ["challenge"]
    finally:
        again.store.close()

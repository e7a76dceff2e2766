"""Game types, creating, listing, summaries and seats over HTTP."""

from __future__ import annotations

import pytest

from domain.cards import DECK

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.json
    assert body["code"] == code and body["status"] == status and body["detail"] and body["title"]
    return body


def test_game_types_offer_craits_and_scat_with_their_player_ranges_and_options(http):
    types = {t["game"]: t for t in http.client.get("/v1/game-types").json["game_types"]}
    assert (types["craits"]["min_players"], types["craits"]["max_players"]) == (2, 5)
    assert (types["scat"]["min_players"], types["scat"]["max_players"]) == (2, 9)
    assert {"seed", "first_dealer", "decks", "short"} <= set(types["craits"]["options"])
    assert {"lives", "three_of_a_kind", "straight_flush", "min_knock", "throw_down"} <= set(types["scat"]["options"])


def test_creating_a_game_answers_201_with_its_location_and_summary(http):
    response = http.client.post("/v1/games", json={"game": "scat", "players": 3, "options": {"lives": 2}})
    assert response.status_code == 201
    summary = response.json
    assert response.headers["Location"].endswith(f"/v1/games/{summary['id']}")
    assert summary["status"] == "waiting" and summary["version"] == 1 and summary["result"] is None
    assert summary["options"]["lives"] == 2 and len(summary["seats"]) == 3
    assert http.client.get(response.headers["Location"]).json == summary


def test_seed_and_decks_stay_hidden_until_the_game_is_over(http):
    deck = list(DECK)
    game_id = http.create("craits", 2, seed=5, decks=[deck], first_dealer=0, short=True)
    summary = http.client.get(f"/v1/games/{game_id}").json
    assert "seed" not in summary["options"] and "decks" not in summary["options"]
    created = http.events(game_id).json["events"][0]
    assert "seed" not in created["data"]["options"] and "decks" not in created["data"]["options"]


@pytest.mark.parametrize(
    "body",
    [
        {"game": "chess", "players": 2},
        {"game": "craits", "players": 6},
        {"game": "scat", "players": 1},
        {"game": "craits", "players": "2"},
        {"game": "craits", "players": 2, "options": {"jokers": True}},
        {"game": "craits", "players": 2, "options": {"decks": [["AS"] * 52]}},
        {"game": "craits", "players": 2, "options": {"first_dealer": 2}},
        {"game": "craits", "players": 2, "options": {"short": "yes"}},
        {"game": "scat", "players": 2, "options": {"lives": 0}},
        {"players": 2},
        {"game": "craits", "players": 2, "colour": "red"},
    ],
)
def test_a_bad_creation_request_is_a_422_and_creates_nothing(http, body):
    assert_problem(http.client.post("/v1/games", json=body), 422, "validation_error")
    assert http.client.get("/v1/games").json["games"] == []


def test_a_body_that_is_not_json_is_a_400_problem(http):
    response = http.client.post("/v1/games", data="{nope", content_type="application/json")
    assert_problem(response, 400, "validation_error")


def test_listing_filters_by_status_and_game_and_pages_with_a_cursor(http):
    craits = [http.create("craits", 2) for _ in range(5)]
    scat = http.create("scat", 2)
    http.join(scat, "a")
    http.join(scat, "b")
    active = http.client.get("/v1/games", query_string={"status": "active"}).json["games"]
    assert [g["id"] for g in active] == [scat]
    only_craits = http.client.get("/v1/games", query_string={"game": "craits"}).json["games"]
    assert {g["id"] for g in only_craits} == set(craits)
    seen, cursor = [], None
    while True:
        query = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = http.client.get("/v1/games", query_string=query).json
        assert len(page["games"]) <= 2
        seen += [g["id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(craits + [scat]) and len(seen) == len(set(seen)) == 6


@pytest.mark.parametrize("query", [{"limit": 0}, {"limit": 101}, {"status": "paused"}, {"cursor": "@@@"}])
def test_bad_listing_queries_are_422(http, query):
    assert_problem(http.client.get("/v1/games", query_string=query), 422, "validation_error")


def test_an_unknown_game_is_a_404_problem_everywhere(http, asgi_http):
    for path in ("", "/state", "/events", "/events/stream"):
        assert_problem(asgi_http.client.get(f"/v1/games/nope{path}"), 404, "not_found")
    assert_problem(asgi_http.client.get("/v1/games/nope/events", query_string={"wait": 1}), 404, "not_found")
    assert_problem(http.client.post("/v1/games/nope/seats", json={"name": "a"}), 404, "not_found")
    assert_problem(http.client.post("/v1/games/nope/moves", json={"type": "draw"}), 404, "not_found")


def test_a_person_gets_a_token_once_and_a_house_bot_gets_none(http):
    game_id = http.create("craits", 3)
    person = http.client.post(f"/v1/games/{game_id}/seats", json={"name": "alice"})
    assert person.status_code == 201 and person.json["seat"] == 0 and len(person.json["token"]) >= 32
    bot = http.bot(game_id, "greedy")
    assert bot.status_code == 201 and bot.json == {"seat": 1, "token": None, "version": 3}
    seats = http.client.get(f"/v1/games/{game_id}").json["seats"]
    assert seats[0]["name"] == "alice" and seats[1]["bot"] == "greedy" and seats[2]["taken"] is False
    assert person.json["token"] not in http.client.get(f"/v1/games/{game_id}").get_data(as_text=True)


def test_the_last_seat_starts_the_game_and_a_full_game_refuses_more_seats(http):
    game_id = http.create("scat", 2)
    http.join(game_id, "a")
    assert http.client.get(f"/v1/games/{game_id}").json["status"] == "waiting"
    http.join(game_id, "b")
    assert http.client.get(f"/v1/games/{game_id}").json["status"] == "active"
    before = http.version(game_id)
    assert_problem(http.client.post(f"/v1/games/{game_id}/seats", json={"name": "c"}), 409, "seat_unavailable")
    assert http.version(game_id) == before


@pytest.mark.parametrize("body", [{}, {"name": "a", "bot": "random"}, {"bot": "clever"}, {"name": ""},
                                  {"name": "a", "token": "x"}])
def test_a_bad_seat_request_is_a_422_and_takes_no_seat(http, body):
    game_id = http.create("craits", 2)
    assert_problem(http.client.post(f"/v1/games/{game_id}/seats", json=body), 422, "validation_error")
    assert http.version(game_id) == 1


def test_a_game_of_house_bots_plays_itself_to_the_end_once_the_last_bot_sits(http):
    game_id = http.create("craits", 3, short=True)
    for kind in ("random", "greedy", "random"):
        assert http.bot(game_id, kind).status_code == 201
    summary = http.played_out(game_id)
    assert summary["status"] == "finished"
    assert summary["result"]["winners"] and len(summary["result"]["scores"]) == 3
    assert "seed" in summary["options"] or "decks" not in summary["options"]


def test_healthz_reports_the_database_reachable(http):
    response = http.client.get("/healthz")
    assert response.status_code == 200 and response.json == {"status": "ok", "database": "ok"}


def test_an_unknown_path_and_a_wrong_method_are_problems(http):
    assert_problem(http.client.get("/v2/nothing"), 404, "not_found")
    response = http.client.delete("/v1/games")
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]

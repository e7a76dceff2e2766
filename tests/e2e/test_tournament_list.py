"""The tournaments listed (``GET /v1/tournaments``): newest first, paged by ``next``, filtered by status and by
an account in them; a page asked for one status reads a bounded number of tournaments and goes on by ``next``."""

from __future__ import annotations

from typing import Any

from service.games import GameService
from tests.e2e.conftest import Http
from tests.e2e.test_accounts import bearer, sign_up
from tests.e2e.test_tournaments import play_out

LISTED = {"id", "creator", "game", "format", "accounts", "round", "rounds", "status", "created_at"}


def made(http: Http, key: str, accounts: list[str], **body: Any) -> dict[str, Any]:
    answer = http.client.post("/v1/tournaments", json={"game": "craits", "accounts": accounts, **body},
                              headers=bearer(key))
    assert answer.status_code == 201, answer.json
    return answer.json


def finish(games: GameService, keys: dict[str, str], tournament: dict[str, Any]) -> None:
    for entry in tournament["games"]:
        play_out(games, entry["game_id"], keys, entry["seats"])


def listed(http: Http, **query: Any) -> Any:
    answer = http.client.get("/v1/tournaments", query_string=query)
    assert answer.status_code == 200, answer.json
    return answer.json


def every_page(http: Http, **query: Any) -> tuple[list[str], int]:
    """The ids of every tournament listed, following ``next`` to the end; and how many pages it took."""
    ids, pages, cursor = [], 0, None
    while True:
        page = listed(http, **query, **({"cursor": cursor} if cursor else {}))
        ids += [entry["id"] for entry in page["tournaments"]]
        pages, cursor = pages + 1, page["next"]
        if cursor is None:
            return ids, pages


def test_tournaments_are_listed_newest_first_a_page_at_a_time(http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy")}
    assert listed(http) == {"tournaments": [], "next": None}
    ids = []
    for number in range(5):
        tournament = made(http, keys["ana"], ["ana", "bo", "cy"][:2 + number % 2])
        finish(games, keys, tournament)  # (so that bo is never in more than four running tournaments ana made)
        ids.append(tournament["id"])
    first = listed(http, limit=2)
    assert [entry["id"] for entry in first["tournaments"]] == ids[::-1][:2] and first["next"]
    entry = first["tournaments"][0]
    assert set(entry) == LISTED  # (no standings, crosstable nor games: those are the one tournament's)
    one = http.client.get(f"/v1/tournaments/{entry['id']}").json
    assert entry == {key: one[key] for key in LISTED} and entry["rounds"] == 1 and entry["status"] == "finished"
    assert every_page(http, limit=2) == (ids[::-1], 3)
    assert every_page(http) == (ids[::-1], 1)  # (20 to a page unless asked)


def test_the_list_holds_running_or_finished_tournaments_and_an_accounts(http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy", "dee")}
    done = made(http, keys["ana"], ["ana", "bo"])
    finish(games, keys, done)
    running = made(http, keys["cy"], ["cy", "dee"])
    among_bots = made(http, keys["dee"], ["ana", "bo", "cy"], format="swiss", rounds=2)
    assert [entry["id"] for entry in listed(http, status="running")["tournaments"]] == [among_bots["id"], running["id"]]
    assert [entry["id"] for entry in listed(http, status="finished")["tournaments"]] == [done["id"]]
    assert [entry["id"] for entry in listed(http, account="ana")["tournaments"]] == [among_bots["id"], done["id"]]
    assert [entry["id"] for entry in listed(http, account="DEE")["tournaments"]] == [running["id"]]  # (not its maker's)
    assert listed(http, account="cy", status="finished") == {"tournaments": [], "next": None}
    swiss = listed(http, account="cy", status="running")["tournaments"][0]
    assert (swiss["format"], swiss["round"], swiss["rounds"], swiss["creator"]) == ("swiss", 1, 2, "dee")
    finish(games, keys, running)
    assert [entry["id"] for entry in listed(http, status="finished")["tournaments"]] == [running["id"], done["id"]]
    unknown = http.client.get("/v1/tournaments", query_string={"account": "nobody"})
    assert unknown.status_code == 404 and unknown.json["code"] == "not_found"


def test_a_page_of_one_status_reads_at_most_four_pages_worth_and_goes_on_by_next(
        http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo")}
    oldest = made(http, keys["ana"], ["ana", "bo"])  # (running, under nine finished ones)
    for _ in range(9):
        finish(games, keys, made(http, keys["ana"], ["ana", "bo"]))
    first = listed(http, status="running", limit=1)
    assert first["tournaments"] == [] and first["next"]  # (eight read, all finished: none listed, but more to read)
    assert every_page(http, status="running", limit=1) == ([oldest["id"]], 2)
    assert every_page(http, status="running", limit=2) == ([oldest["id"]], 1)  # (twelve read at most: enough)
    assert every_page(http, status="finished", limit=3)[0] == every_page(http)[0][:9]


def test_a_bad_list_query_is_a_problem_and_changes_nothing(http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo")}
    tournament = made(http, keys["ana"], ["ana", "bo"])
    before = http.client.get(f"/v1/tournaments/{tournament['id']}").json
    for query in ({"status": "over"}, {"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"cursor": "20"},
                  {"account": "../ana"}, {"account": ""}, {"account": "ana\n"}, {"cursor": "1~" + tournament["id"] + "\n"},
                  {"status": ["running", "finished"]}, {"limit": ["1", "2"]}):  # (given twice: the first was read)
        answer = http.client.get("/v1/tournaments", query_string=query)
        assert answer.status_code == 422 and answer.mimetype == "application/problem+json", query
        assert answer.json["code"] == "validation_error", query
    assert http.client.get(f"/v1/tournaments/{tournament['id']}").json == before
    assert [entry["id"] for entry in listed(http)["tournaments"]] == [tournament["id"]]

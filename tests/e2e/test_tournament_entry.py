"""Nobody is entered in a tournament against its will: a bot says who may enter it (``PUT /v1/account/tournaments``,
anyone by default), a tournament naming a bot that does not let its maker enter it is refused and makes nothing,
and whoever a bot lets, it is in at most four running tournaments other accounts made."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from service.games import GameService
from service.tournaments import MAX_RUNNING
from tests.e2e.conftest import Http
from tests.e2e.test_accounts import account_events, bearer, key_with, sign_up
from tests.e2e.test_tournaments import play_out


def enter(http: Http, key: str, *accounts: str) -> Any:
    """A one-game tournament of ``accounts``, made with ``key``."""
    return http.client.post("/v1/tournaments", json={"game": "craits", "accounts": list(accounts), "duplicate": False},
                            headers=bearer(key))


def choose(http: Http, key: str, entered_by: Any) -> Any:
    return http.client.put("/v1/account/tournaments", json={"entered_by": entered_by}, headers=bearer(key))


def entered_by(http: Http, name: str) -> Any:
    """Who may enter the account, as its public page shows it."""
    return http.client.get(f"/v1/accounts/{name}").json["tournaments"]["entered_by"]


def test_a_bot_lets_anyone_enter_it_until_it_chooses_otherwise_and_its_pages_show_whom(http: Http) -> None:
    keys = {name: sign_up(http, name) for name in ("bo", "Ana", "cy")}
    dee = sign_up(http, "dee", kind="person")
    assert entered_by(http, "bo") == "anyone"
    assert http.client.get("/v1/account", headers=bearer(keys["bo"])).json["tournaments"] == {"entered_by": "anyone"}
    assert entered_by(http, "dee") == "nobody"  # (a person enters a tournament only by making it)
    chosen = choose(http, keys["bo"], ["ANA", "cy"])
    assert chosen.status_code == 200 and chosen.json == {"entered_by": ["Ana", "cy"]}  # (names as given at sign-up)
    assert entered_by(http, "bo") == ["Ana", "cy"]
    assert http.client.get("/v1/account", headers=bearer(keys["bo"])).json["tournaments"] == {
        "entered_by": ["Ana", "cy"]}
    assert http.client.get("/v1/account/tournaments", headers=bearer(keys["bo"])).json == {"entered_by": ["Ana", "cy"]}
    assert http.client.get("/v1/account/tournaments").status_code == 401
    assert choose(http, keys["bo"], "nobody").json == {"entered_by": "nobody"} and entered_by(http, "bo") == "nobody"
    assert choose(http, keys["bo"], "anyone").json == {"entered_by": "anyone"} and entered_by(http, "bo") == "anyone"
    refused = choose(http, dee, "anyone")
    assert refused.status_code == 403 and refused.json["code"] == "not_a_bot"


def test_a_bad_choice_is_refused_and_changes_nothing(http: Http) -> None:
    key = sign_up(http, "bo")
    sign_up(http, "ana")
    assert choose(http, key, ["ana"]).status_code == 200
    for bad in ("everyone", "Anyone", "", None, 7, True, [], ["ana", 7], ["not a name"], ["x" * 33],
                [f"bot{number}" for number in range(17)], {"names": ["ana"]}):
        refused = choose(http, key, bad)
        assert refused.status_code == 422 and refused.json["code"] == "validation_error", (bad, refused.json)
    for body in ({}, {"entered_by": "nobody", "extra": 1}):
        assert http.client.put("/v1/account/tournaments", json=body, headers=bearer(key)).status_code == 422
    twice = choose(http, key, ["ana", "ANA"])
    assert twice.status_code == 422 and "name each account once" in twice.json["detail"]
    unknown = choose(http, key, ["ana", "ghost"])
    assert unknown.status_code == 404 and "ghost" in unknown.json["detail"]
    assert entered_by(http, "bo") == ["ana"]
    assert http.client.put("/v1/account/tournaments", json={"entered_by": "nobody"}).status_code == 401
    reader = choose(http, key_with(http, key, "read"), "nobody")
    assert reader.status_code == 403 and reader.json["code"] == "insufficient_scope"
    assert entered_by(http, "bo") == ["ana"]


def test_a_tournament_naming_a_bot_that_does_not_let_its_maker_enter_it_is_refused_and_makes_nothing(
        http: Http) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy")}
    choose(http, keys["bo"], "nobody")
    heard = len(account_events(http, keys["bo"]))
    refused = enter(http, keys["ana"], "ana", "bo")
    assert refused.status_code == 403 and refused.json["code"] == "forbidden", refused.json
    assert refused.json["detail"].startswith("bo lets no other account enter it in a tournament")
    assert len(account_events(http, keys["bo"])) == heard and len(account_events(http, keys["ana"])) == 0
    assert http.client.get("/v1/accounts/ana").json["games"]["current"] == []
    made = enter(http, keys["bo"], "bo", "ana")  # (a maker always enters itself)
    assert made.status_code == 201, made.json
    choose(http, keys["bo"], ["cy"])
    assert enter(http, keys["cy"], "cy", "bo").status_code == 201
    refused = enter(http, keys["ana"], "ana", "cy", "bo")
    assert refused.status_code == 403 and "bo lets only the accounts it names" in refused.json["detail"]
    assert "ana is not one of them" in refused.json["detail"]
    choose(http, keys["bo"], "anyone")
    assert enter(http, keys["ana"], "ana", "bo").status_code == 201


def test_an_account_is_in_at_most_four_running_tournaments_others_made_and_a_finished_one_no_longer_counts(
        http: Http, games: GameService) -> None:
    keys = {name: sign_up(http, name) for name in ("ana", "bo", "cy")}
    made = [enter(http, keys["ana"], "ana", "bo").json for _ in range(MAX_RUNNING)]
    refused = enter(http, keys["cy"], "cy", "bo")
    assert refused.status_code == 409 and refused.json["code"] == "too_many_tournaments", refused.json
    assert refused.json["detail"].startswith("bo is in 4 running tournaments other accounts made")
    assert len(http.client.get("/v1/accounts/cy").json["games"]["current"]) == 0  # (nothing made)
    assert enter(http, keys["bo"], "bo", "cy").status_code == 201  # (its own tournaments do not count for it)
    assert enter(http, keys["cy"], "cy", "ana").status_code == 201  # (nor do ana's own for ana)
    first = made[0]
    for entry in first["games"]:
        play_out(games, entry["game_id"], keys, entry["seats"])
    assert http.client.get(f"/v1/tournaments/{first['id']}").json["status"] == "finished"
    assert enter(http, keys["cy"], "cy", "bo").status_code == 201  # (three running, and now this one)
    again = enter(http, keys["ana"], "ana", "bo")
    assert again.status_code == 409 and again.json["detail"].startswith("bo is in 4 running")


def test_tournaments_made_at_the_same_moment_still_enter_an_account_in_at_most_four(http: Http) -> None:
    makers = [f"maker{number}" for number in range(8)]
    keys = {name: sign_up(http, name) for name in ["bo", *makers]}
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda maker: enter(http, keys[maker], maker, "bo").status_code, makers))
    assert sorted(answers) == [201] * MAX_RUNNING + [409] * (len(makers) - MAX_RUNNING)
    heard = [event["type"] for event in account_events(http, keys["bo"])]
    assert heard.count("tournamentStart") == MAX_RUNNING

"""Challenges over HTTP: to named accounts and open ones, accept, decline, cancel, expiry, and the
race for the last seat."""

from __future__ import annotations

import datetime as dt
import hashlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from domain.cards import DECK
from domain.fairness import derived_order
from service.challenges import MAX_OPEN
from service.games import GameService
from tests.e2e.conftest import Http
from tests.e2e.test_accounts import account_events, bearer, sign_up


def challenge(http: Http, key: str, **body: Any) -> Any:
    return http.client.post("/v1/challenges", json={"game": "craits", "players": 2, **body}, headers=bearer(key))


def test_a_named_challenge_accepted_starts_its_game_and_both_streams_hear_it_once(http: Http) -> None:
    ana, bo = sign_up(http, "Ana"), sign_up(http, "bo")
    offered = challenge(http, ana, to=["BO"], options={"short": True}, rated=True)
    assert offered.status_code == 201
    assert offered.json["status"] == "open" and offered.json["to"] == ["bo"] and offered.json["accepted"] == ["Ana"]
    received = account_events(http, bo)
    assert [event["type"] for event in received] == ["challenge"]
    assert received[0]["data"]["id"] == offered.json["id"] and received[0]["data"]["rated"] is True
    accepted = http.client.post(f"/v1/challenges/{offered.json['id']}/accept", headers=bearer(bo))
    assert accepted.status_code == 200 and accepted.json["status"] == "started"
    game_id = accepted.json["game_id"]
    summary = http.client.get(f"/v1/games/{game_id}").json
    assert summary["status"] == "active" and [seat["account"] for seat in summary["seats"]] == ["Ana", "bo"]
    assert summary["options"] == {"short": True}
    told = account_events(http, ana)
    assert [(event["type"], event["data"]) for event in told] == [
        ("gameStart", {"game_id": game_id, "game": "craits", "seat": 0}), ("challengeAccepted", accepted.json)]
    assert [(event["type"], event["data"]) for event in account_events(http, bo, after=1)] == [
        ("gameStart", {"game_id": game_id, "game": "craits", "seat": 1})]
    assert http.client.get("/v1/accounts/bo").json["games"]["current"] == [game_id]
    http.play_out(game_id, [ana, bo])
    assert account_events(http, ana, after=2)[0]["type"] == "gameFinish"


def test_an_open_challenge_is_listed_until_its_seats_are_taken(http: Http) -> None:
    keys = [sign_up(http, name) for name in ("ana", "bo", "cy")]
    offered = challenge(http, keys[0], players=3).json
    assert offered["to"] is None
    assert [found["id"] for found in http.client.get("/v1/challenges").json["challenges"]] == [offered["id"]]
    first = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(keys[1])).json
    assert first["status"] == "open" and first["accepted"] == ["ana", "bo"]
    again = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(keys[1]))
    assert again.status_code == 409 and again.json["code"] == "challenge_closed"
    last = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(keys[2])).json
    assert last["status"] == "started" and last["accepted"] == ["ana", "bo", "cy"]
    assert http.client.get("/v1/challenges").json["challenges"] == []
    assert http.client.get(f"/v1/challenges/{offered['id']}").json["game_id"] == last["game_id"]


def test_the_listing_of_open_challenges_holds_those_any_account_may_accept_and_for_a_key_those_naming_it(
        http: Http) -> None:
    """A challenge naming bo was listed to everyone, and the lobby offered it with an Accept button to any
    account signed in there: cy's acceptance was refused, 403, as it had to be."""
    ana, bo, cy = sign_up(http, "ana"), sign_up(http, "bo"), sign_up(http, "cy")
    named = challenge(http, ana, to=["bo"]).json
    anyones = challenge(http, ana, players=3).json
    assert [found["id"] for found in http.client.get("/v1/challenges").json["challenges"]] == [anyones["id"]]
    assert [found["id"] for found in http.client.get("/v1/challenges", headers=bearer(cy)).json["challenges"]] == [
        anyones["id"]]
    # Asked with the named account's key, the challenge naming it comes first: a person signed in to the lobby,
    # which follows no stream, sees the challenge made to them, with its Accept button.
    assert [found["id"] for found in http.client.get("/v1/challenges", headers=bearer(bo)).json["challenges"]] == [
        named["id"], anyones["id"]]
    wrong = cy[:-4] + ("aaaa" if not cy.endswith("aaaa") else "bbbb")  # (a key's shape, given out to nobody)
    assert http.client.get("/v1/challenges", headers=bearer(wrong)).status_code == 401
    assert http.client.post(f"/v1/challenges/{anyones['id']}/accept", headers=bearer(cy)).status_code == 200
    assert [event["data"]["id"] for event in account_events(http, bo)] == [named["id"]]  # (bo hears of its own)
    assert http.client.get(f"/v1/challenges/{named['id']}").json["status"] == "open"
    assert http.client.post(f"/v1/challenges/{named['id']}/accept", headers=bearer(bo)).json["status"] == "started"


def test_a_declined_challenge_is_gone_and_its_challenger_told_why(http: Http) -> None:
    ana, bo, cy = sign_up(http, "ana"), sign_up(http, "bo"), sign_up(http, "cy")
    offered = challenge(http, ana, to=["bo"]).json
    stranger = http.client.post(f"/v1/challenges/{offered['id']}/decline", json={}, headers=bearer(cy))
    assert stranger.status_code == 403
    declined = http.client.post(f"/v1/challenges/{offered['id']}/decline", json={"reason": "later"},
                                headers=bearer(bo))
    assert declined.status_code == 200 and declined.json["status"] == "declined"
    told = account_events(http, ana)
    assert [(event["type"], event["data"]["reason"]) for event in told] == [("challengeDeclined", "later")]
    late = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(bo))
    assert late.status_code == 409 and late.json["code"] == "challenge_closed"
    assert http.client.get("/v1/challenges").json["challenges"] == []


def test_a_canceled_challenge_is_gone_and_those_offered_it_told(http: Http) -> None:
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    offered = challenge(http, ana, to=["bo"]).json
    assert http.client.post(f"/v1/challenges/{offered['id']}/cancel", headers=bearer(bo)).status_code == 403
    canceled = http.client.post(f"/v1/challenges/{offered['id']}/cancel", headers=bearer(ana))
    assert canceled.status_code == 200 and canceled.json["status"] == "canceled"
    assert [event["type"] for event in account_events(http, bo)] == ["challenge", "challengeCanceled"]


def test_an_expired_challenge_is_gone_and_cannot_be_accepted(http: Http, games: GameService) -> None:
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    offered = challenge(http, ana, to=["bo"], expires_in=30).json
    later = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=31)
    games.accounts.clock = lambda: later
    assert http.client.get(f"/v1/challenges/{offered['id']}").json["status"] == "expired"
    assert http.client.get("/v1/challenges").json["challenges"] == []
    late = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(bo))
    assert late.status_code == 409 and "expired" in late.json["detail"]


def test_a_challenge_not_offered_to_an_account_is_not_its_to_accept(http: Http) -> None:
    ana, _, cy = sign_up(http, "ana"), sign_up(http, "bo"), sign_up(http, "cy")
    offered = challenge(http, ana, to=["bo"]).json
    refused = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(cy))
    assert refused.status_code == 403 and refused.json["code"] == "forbidden"


def test_bad_challenges_are_refused_clearly(http: Http) -> None:
    ana = sign_up(http, "ana")
    for body, status in ((dict(to=["nobody"]), 404), (dict(to=["ana"]), 422), (dict(players=9), 422),
                         (dict(to=[]), 422), (dict(expires_in=24 * 3600 + 1), 422), (dict(game="chess"), 422),
                         (dict(options={"nope": 1}), 422), (dict(rated=True, options={"seed": 5}), 422),
                         (dict(rated=True, options={"decks": [DECK]}), 422), (dict(rated=1), 422), (dict(rated=0), 422),
                         (dict(rated="yes"), 422), (dict(rated="off"), 422)):
        assert challenge(http, ana, **body).status_code == status, body
    refused = challenge(http, ana, rated=True, options={"seed": 5, "short": True}).json
    assert refused["code"] == "validation_error" and "no seed in a rated challenge" in refused["detail"]


def test_an_account_has_a_bounded_number_of_open_challenges_and_may_make_more_as_they_close(http: Http) -> None:
    """Open challenges were bounded by nothing but the rate limit: one account could fill the listing (its 50
    newest) and keep hundreds of thousands open a day."""
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    made = [challenge(http, ana).json["id"] for _ in range(MAX_OPEN)]
    refused = challenge(http, ana, to=["bo"])
    assert refused.status_code == 422 and refused.json["code"] == "validation_error"
    assert f"at most {MAX_OPEN} open challenges" in refused.json["detail"]
    assert len(http.client.get("/v1/challenges").json["challenges"]) == MAX_OPEN
    assert account_events(http, bo) == []  # (the refused one named bo: nothing was said to bo)
    assert challenge(http, bo).status_code == 201  # (another account's are its own)
    assert http.client.post(f"/v1/challenges/{made[0]}/cancel", headers=bearer(ana)).status_code == 200
    assert challenge(http, ana).status_code == 201


def test_a_challenge_hides_the_chance_its_challenger_fixed_from_everyone_as_its_game_does(http: Http) -> None:
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    deck = DECK[::-1]
    offered = challenge(http, ana, to=["bo"], options={"decks": [deck], "first_dealer": 0, "short": True})
    assert offered.status_code == 201
    seen = [offered.json, http.client.get(f"/v1/challenges/{offered.json['id']}").json,
            account_events(http, bo)[0]["data"]]
    for shown in seen:
        assert shown["options"] == {"first_dealer": 0, "short": True} and (shown["stacked"], shown["seeded"]) == (True, False)
    started = http.client.post(f"/v1/challenges/{offered.json['id']}/accept", headers=bearer(bo)).json
    assert "decks" not in started["options"] and "decks" not in http.client.get(
        f"/v1/challenges/{offered.json['id']}").json["options"]
    assert http.client.get(f"/v1/games/{started['game_id']}").json["stacked"] is True
    seeded = challenge(http, ana, options={"seed": 7}).json
    assert seeded["options"] == {} and (seeded["stacked"], seeded["seeded"]) == (False, True)
    assert deck[0] not in str(http.client.get("/v1/challenges").json)
    assert http.client.post("/v1/challenges/nope/accept", headers=bearer(ana)).status_code == 404


def test_of_accounts_racing_for_the_last_seat_one_starts_the_game_and_the_others_are_told(
        http: Http, games: GameService) -> None:
    keys = [sign_up(http, f"racer{index}") for index in range(5)]
    offered = challenge(http, keys[0]).json

    def accept(key: str) -> Any:
        return http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(key))

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(accept, keys[1:]))
    won = [answer for answer in answers if answer.status_code == 200]
    lost = [answer for answer in answers if answer.status_code != 200]
    assert len(won) == 1 and {answer.status_code for answer in lost} == {409}
    assert all(answer.json["code"] == "challenge_closed" and "started" in answer.json["detail"] for answer in lost)
    listing = games.store.list_games(limit=10)
    assert [record.id for record in listing.games] == [won[0].json["game_id"]]
    started = [sum(event["type"] == "gameStart" for event in account_events(http, key)) for key in keys]
    assert sorted(started) == [0, 0, 0, 1, 1] and started[0] == 1


def test_a_challenges_game_mixes_the_entropy_each_account_added_into_a_server_seed_committed_to_before(
        http: Http) -> None:
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    theirs = "0F" * 32
    offered = challenge(http, ana, to=["bo"], options={"short": True}, rated=True)
    assert offered.status_code == 201, offered.json
    committed = offered.json["server_seed_hash"]
    assert len(committed) == 64 and offered.json["entropy"] == [None]  # (the challenger's request drew the seed)
    assert account_events(http, bo)[0]["data"]["server_seed_hash"] == committed  # (what the acceptor sees first)
    started = http.client.post(f"/v1/challenges/{offered.json['id']}/accept", headers=bearer(bo), json={"entropy": theirs})
    assert started.status_code == 200 and started.json["entropy"] == [None, theirs.lower()]
    game_id = started.json["game_id"]
    summary = http.client.get(f"/v1/games/{game_id}").json
    assert summary["server_seed_hash"] == committed
    assert [seat["entropy"] for seat in summary["seats"]] == [None, theirs.lower()]
    http.play_out(game_id, [ana, bo])
    audit = http.client.get(f"/v1/games/{game_id}/audit").json
    assert audit["verified"] is True and all(shuffle["derived"] for shuffle in audit["shuffles"])
    assert hashlib.sha256(bytes.fromhex(audit["server_seed"])).hexdigest() == committed
    dealt = audit["shuffles"][0]
    # (the orders are the ones the seed and the acceptor's entropy derive, not the seed's alone)
    assert tuple(dealt["order"]) == derived_order(dealt["order"], audit["server_seed"], (None, theirs.lower()),
                                                  dealt["version"])
    assert tuple(dealt["order"]) != derived_order(dealt["order"], audit["server_seed"], (None, None), dealt["version"])


def test_a_challenge_accepted_without_entropy_or_with_bad_entropy(http: Http) -> None:
    ana, bo, cy = sign_up(http, "ana"), sign_up(http, "bo"), sign_up(http, "cy")
    offered = challenge(http, ana, players=3).json
    for bad in ("ab" * 31, "zz" * 32, 5, "ab" * 32 + "\n"):  # (a trailing newline was taken, and kept in the log)
        refused = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(bo), json={"entropy": bad})
        assert refused.status_code == 422 and refused.json["code"] == "validation_error", refused.json
    assert http.client.get(f"/v1/challenges/{offered['id']}").json["accepted"] == ["ana"]  # (nothing changed)
    assert challenge(http, ana, entropy="ab" * 32).status_code == 422  # (none is the challenger's to add)
    http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(bo))  # (no body: none added)
    started = http.client.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(cy), json={}).json
    assert started["entropy"] == [None, None, None]
    assert [seat["entropy"] for seat in http.client.get(f"/v1/games/{started['game_id']}").json["seats"]] == [None] * 3
    seeded = challenge(http, ana, to=["bo"], options={"seed": 7}).json
    assert seeded["server_seed_hash"] is None  # (a seeded game's seed comes from its seed and its id: when it starts)
    game_id = http.client.post(f"/v1/challenges/{seeded['id']}/accept", headers=bearer(bo)).json["game_id"]
    game = http.client.get(f"/v1/games/{game_id}").json
    assert game["seeded"] is True and len(game["server_seed_hash"]) == 64

"""Accounts across processes: two servers over one PostgreSQL. A key revoked through one is refused by
the other at its next request; accounts racing for the last seat of an open challenge through
different servers make one game."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.server import start_server
from tests.integration.multiprocess_http import bearer, servers_over

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(180)]


@pytest.fixture
def bases(postgres_database, tmp_path) -> Iterator[list[str]]:  # type: ignore[no-untyped-def]
    """Two separate servers, one worker each, over a fresh database."""
    with servers_over(postgres_database(), tmp_path, count=2, workers=1) as servers:
        yield [server.base_url for server in servers]


def sign_up(base: str, name: str) -> str:
    created = httpx.post(f"{base}/v1/accounts", json={"name": name, "kind": "bot"}, timeout=30)
    assert created.status_code == 201, created.text
    return created.json()["key"]


def test_a_key_revoked_through_one_server_is_refused_by_the_other_at_once(bases: list[str]) -> None:
    key = sign_up(bases[0], "ana")
    spare = httpx.post(f"{bases[0]}/v1/account/keys", json={"scopes": ["read"]}, headers=bearer(key), timeout=30)
    spare_key = spare.json()["key"]
    for base in bases:  # (both have used the key, and would have it cached if they cached keys)
        assert httpx.get(f"{base}/v1/account", headers=bearer(spare_key), timeout=30).status_code == 200
    revoked = httpx.delete(f"{bases[0]}/v1/account/keys/{spare_key[4:16]}", headers=bearer(key), timeout=30)
    assert revoked.status_code == 204
    for base in reversed(bases):
        refused = httpx.get(f"{base}/v1/account", headers=bearer(spare_key), timeout=30)
        assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"
        assert spare_key not in refused.text


def test_accounts_racing_through_two_servers_for_the_last_seat_make_one_game(bases: list[str]) -> None:
    challenger = sign_up(bases[0], "host")
    racers = [sign_up(bases[index % 2], f"racer{index}") for index in range(2)]
    for _ in range(10):
        offered = httpx.post(f"{bases[0]}/v1/challenges", json={"game": "craits", "players": 2},
                             headers=bearer(challenger), timeout=30).json()
        answers: list[Any] = [None, None]
        start = threading.Barrier(2)

        def accept(index: int, offered: dict[str, Any] = offered, answers: list[Any] = answers,
                   start: threading.Barrier = start) -> None:
            with httpx.Client(base_url=bases[index], timeout=30) as http:
                start.wait()
                answers[index] = http.post(f"/v1/challenges/{offered['id']}/accept", headers=bearer(racers[index]))

        threads = [threading.Thread(target=accept, args=(index,)) for index in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(answer.status_code for answer in answers) == [200, 409]
        loser = next(answer for answer in answers if answer.status_code == 409).json()
        assert loser["code"] == "challenge_closed" and "started" in loser["detail"]
    games = httpx.get(f"{bases[1]}/v1/games", params={"limit": 100}, timeout=30).json()["games"]
    assert len(games) == 10 and all(game["status"] == "active" for game in games)
    events = httpx.get(f"{bases[1]}/v1/account/events", params={"limit": 100}, headers=bearer(challenger),
                       timeout=30).json()["events"]
    assert sorted(event["type"] for event in events) == ["challengeAccepted"] * 10 + ["gameStart"] * 10
    for kind, key in (("gameStart", "game_id"), ("challengeAccepted", "game_id")):
        assert sorted(event["data"][key] for event in events if event["type"] == kind) == sorted(game["id"] for game in games)
    racer_starts = [len(httpx.get(f"{base}/v1/account/events", headers=bearer(key), timeout=30).json()["events"])
                    for base, key in zip(bases, racers, strict=True)]
    assert sum(racer_starts) == 10


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")  # (an accept answered 5xx)
def test_a_server_killed_while_challenges_are_accepted_leaves_no_half_made_game(postgres_database, tmp_path) -> None:
    """kill -9 of the server that accepts challenges, in the middle of the acceptances: afterwards every
    challenge is either open with no game, or started with its whole game (both seats the accounts', active),
    every game there is belongs to a started challenge, and each account heard its gameStart once."""
    database = postgres_database()
    with servers_over(database, tmp_path, count=2, workers=1) as servers:
        bases = [server.base_url for server in servers]
        challengers = [sign_up(bases[1], f"host{index}") for index in range(2)]  # (20 open challenges each, the most)
        guests = [sign_up(bases[1], f"guest{index}") for index in range(4)]
        offered = [httpx.post(f"{bases[1]}/v1/challenges", json={"game": "craits", "players": 2,
                                                                 "to": [f"guest{index % 4}"], "expires_in": 600},
                              headers=bearer(challengers[index // 20]), timeout=30).json()["id"] for index in range(40)]
        accepted: list[str] = []

        def accept_all(index: int) -> None:
            with httpx.Client(base_url=bases[0], timeout=30) as http:
                for challenge_id in offered[index::4]:
                    try:
                        answer = http.post(f"/v1/challenges/{challenge_id}/accept", headers=bearer(guests[index]))
                    except httpx.TransportError:
                        return  # (the server is gone: whether this one was accepted is what the test finds out)
                    assert answer.status_code == 200, answer.text
                    accepted.append(challenge_id)

        threads = [threading.Thread(target=accept_all, args=(index,)) for index in range(4)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while len(accepted) < 8:
            assert time.monotonic() < deadline, "the acceptances are too slow"
            time.sleep(0.01)
        servers[0].kill()
        for thread in threads:
            thread.join(timeout=60)
        servers[0] = start_server(tmp_path, database=database, workers=1, port=servers[0].port, log_name="again.log")
        with httpx.Client(base_url=bases[0], timeout=30) as http:
            challenges = [http.get(f"/v1/challenges/{challenge_id}").json() for challenge_id in offered]
            assert {challenge["status"] for challenge in challenges} <= {"open", "started"}
            started = [challenge for challenge in challenges if challenge["status"] == "started"]
            assert set(accepted) <= {challenge["id"] for challenge in started} and len(started) < len(offered)
            for challenge in challenges:
                if challenge["status"] == "open":
                    assert challenge.get("game_id") is None
                    continue
                game = http.get(f"/v1/games/{challenge['game_id']}").json()
                assert game["status"] == "active"
                assert sorted(seat["account"] for seat in game["seats"]) == sorted([challenge["challenger"], challenge["to"][0]])
            games = http.get("/v1/games", params={"limit": 100}).json()["games"]
            assert sorted(game["id"] for game in games) == sorted(challenge["game_id"] for challenge in started)
            heard = [event for challenger in challengers for event in
                     http.get("/v1/account/events", params={"limit": 1000}, headers=bearer(challenger)).json()["events"]]
            assert sorted(event["data"]["game_id"] for event in heard if event["type"] == "gameStart") == \
                sorted(challenge["game_id"] for challenge in started)

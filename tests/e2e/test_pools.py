"""Pools over HTTP: accounts waiting with overlapping player counts are seated together and told on
their streams, never one account twice in a game, and an account that left is never seated after."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from api.settings import Settings
from domain import table as tables
from service.games import GameService
from service.pools import Pools, pool_clocks
from service.sweeper import Sweeper
from tests.e2e.conftest import Http
from tests.e2e.test_accounts import account_events, bearer, sign_up


def join(http: Http, key: str, game: str = "craits", **body: Any) -> Any:
    return http.client.post(f"/v1/pools/{game}/join", json={"players": [2], **body}, headers=bearer(key))


def test_accounts_with_overlapping_counts_are_seated_together_on_a_clock_and_told_on_their_streams(
        http: Http, games: GameService) -> None:
    keys = [sign_up(http, name) for name in ("ana", "bo", "cy")]
    for key, players in zip(keys, ([2, 3], [3, 4], [3]), strict=True):
        joined = join(http, key, players=players)
        assert joined.status_code == 200, joined.json
    assert joined.json["move_seconds"] == 10 and joined.json["players"] == [3] and joined.json["rated"] is True
    [game_id] = Pools(games).pair("craits")
    summary = http.client.get(f"/v1/games/{game_id}").json
    assert summary["status"] == "active" and summary["options"]["move_seconds"] == 10
    assert sorted(seat["account"] for seat in summary["seats"]) == ["ana", "bo", "cy"]
    for key in keys:
        assert [(event["type"], event["data"]["game_id"]) for event in account_events(http, key)] == [
            ("gameStart", game_id)]
    assert Pools(games).pair("craits") == []  # (each plays one pool game at a time: concurrency 1)
    assert games.table(game_id).rated


def test_no_account_is_seated_twice_in_a_game_nor_in_more_games_than_it_asked_for(
        http: Http, games: GameService) -> None:
    keys = [sign_up(http, name) for name in ("ana", "bo", "cy")]
    join(http, keys[0], players=[2, 3, 4, 5], concurrency=3)
    join(http, keys[0], players=[2, 3, 4, 5], concurrency=3)  # (joining again replaces the entry)
    join(http, keys[1], players=[2, 3], concurrency=2)
    made = Pools(games).pair("craits") + Pools(games).pair("craits") + Pools(games).pair("craits")
    assert len(made) == 2  # (bo plays two at once; ana would play three but has nobody else)
    for game_id in made:
        seated = [seat["account"] for seat in http.client.get(f"/v1/games/{game_id}").json["seats"]]
        assert sorted(seated) == ["ana", "bo"]
    join(http, keys[2], players=[2])
    [third] = Pools(games).pair("craits")
    assert sorted(seat["account"] for seat in http.client.get(f"/v1/games/{third}").json["seats"]) == ["ana", "cy"]


def test_a_pools_concurrency_counts_every_game_the_account_sits_in_not_only_the_pools(
        http: Http, games: GameService) -> None:
    """The documentation said an account played at most ``concurrency`` pool games at once, and a bot with a
    challenge's game under way, or a game it joined still waiting for players, waited in the pool unpaired
    without knowing why: every game it sits in counts, as the runner's ``--concurrency`` counts them."""
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    waiting = http.create("craits", 2)
    assert http.client.post(f"/v1/games/{waiting}/seats", json={}, headers=bearer(ana)).status_code == 201
    join(http, ana)
    join(http, bo)
    assert Pools(games).pair("craits") == []  # (ana sits in one game not over: her concurrency, 1)
    assert http.client.post(f"/v1/games/{waiting}/abort", headers=bearer(ana)).status_code == 200
    [game_id] = Pools(games).pair("craits")
    assert sorted(seat["account"] for seat in http.client.get(f"/v1/games/{game_id}").json["seats"]) == ["ana", "bo"]


def test_an_account_that_resigned_its_pool_game_is_paired_again_while_the_others_play_on(
        http: Http, games: GameService) -> None:
    """A bot of concurrency 1 that resigned a long game waited in the pool unpaired until the others ended it, and
    its page listed the game among those it played now: a seat it left counts no longer, and the game counts as
    played from then on, once."""
    ana, bo, cy = (sign_up(http, name) for name in ("ana", "bo", "cy"))
    join(http, ana)
    join(http, bo)
    [first] = Pools(games).pair("craits")
    assert http.client.post(f"/v1/games/{first}/resign", headers=bearer(ana)).status_code == 200
    assert http.client.get(f"/v1/games/{first}").json["status"] == "active"  # (bo plays on, the house bot for ana)
    join(http, cy)
    [second] = Pools(games).pair("craits")
    assert sorted(seat["account"] for seat in http.client.get(f"/v1/games/{second}").json["seats"]) == ["ana", "cy"]
    assert http.client.get("/v1/accounts/ana").json["games"] == {"played": 1, "current": [second]}
    assert http.client.get("/v1/accounts/bo").json["games"] == {"played": 0, "current": [first]}
    assert http.client.post(f"/v1/games/{first}/resign", headers=bearer(bo)).status_code == 200
    assert http.played_out(first)["status"] == "finished"
    assert http.client.get("/v1/accounts/ana").json["games"] == {"played": 1, "current": [second]}
    assert http.client.get("/v1/accounts/bo").json["games"] == {"played": 1, "current": []}


def test_an_account_that_left_the_pool_is_never_seated_after(http: Http, games: GameService) -> None:
    """(and an account asks whether it waits, and for what: a bot started again could only join again to know)"""
    keys = [sign_up(http, name) for name in ("ana", "bo")]
    joined = join(http, keys[0], concurrency=2).json
    waiting = http.client.get("/v1/pools/craits/join", headers=bearer(keys[0]))
    assert waiting.status_code == 200 and waiting.json == joined and waiting.json["concurrency"] == 2
    assert http.client.get("/v1/pools/scat/join", headers=bearer(keys[0])).status_code == 404
    assert http.client.get("/v1/pools/craits/join").status_code == 401
    assert http.client.delete("/v1/pools/craits/join", headers=bearer(keys[0])).status_code == 204
    assert http.client.get("/v1/pools/craits/join", headers=bearer(keys[0])).status_code == 404
    join(http, keys[1])
    assert Pools(games).pair("craits") == []
    assert account_events(http, keys[1]) == []
    again = http.client.delete("/v1/pools/craits/join", headers=bearer(keys[0]))
    assert again.status_code == 404


def _meanwhile(pools: Pools, between: Any) -> None:
    """``between()`` runs once in ``pools``' next round, after it decided and before it takes the pool's lock."""
    locked, pending = pools._write, [between]

    def write(work: Any) -> Any:
        while pending:
            pending.pop()()
        return locked(work)

    pools._write = write  # type: ignore[method-assign]


def test_a_group_that_changed_while_its_round_decided_is_not_seated_and_the_others_are(
        http: Http, games: GameService) -> None:
    names = ("ana", "bo", "cy", "di")
    keys = dict(zip(names, (sign_up(http, name) for name in names), strict=True))
    for key in keys.values():
        join(http, key)
    pools = Pools(games)
    _meanwhile(pools, lambda: http.client.delete("/v1/pools/craits/join", headers=bearer(keys["ana"])))
    [game_id] = pools.pair("craits")  # (two groups decided; ana's left before the lock)
    seated = {seat["account"] for seat in http.client.get(f"/v1/games/{game_id}").json["seats"]}
    [partner] = set(names) - seated - {"ana"}
    assert "ana" not in seated and account_events(http, keys["ana"]) == []
    assert account_events(http, keys[partner]) == []
    for name in seated:
        assert [(event["type"], event["data"]["game_id"]) for event in account_events(http, keys[name])] == [
            ("gameStart", game_id)]
    join(http, sign_up(http, "eve"))  # (the partner still waits: the next round seats it)
    [later] = Pools(games).pair("craits")
    assert {seat["account"] for seat in http.client.get(f"/v1/games/{later}").json["seats"]} == {partner, "eve"}


def test_accounts_another_process_seated_while_a_round_decided_are_seated_once(http: Http, games: GameService) -> None:
    keys = [sign_up(http, name) for name in ("ana", "bo", "cy", "di")]
    for key in keys:
        join(http, key)
    other: list[str] = []
    pools = Pools(games)
    _meanwhile(pools, lambda: other.extend(Pools(games).pair("craits")))
    assert pools.pair("craits") == [] and len(other) == 2
    for key in keys:
        assert [event["type"] for event in account_events(http, key)] == ["gameStart"]


def test_people_and_bots_meet_in_a_pool_only_where_both_opted_in(http: Http, games: GameService) -> None:
    person, bot = sign_up(http, "ana", kind="person"), sign_up(http, "bot1")
    join(http, person, mixed=True)
    join(http, bot)
    assert Pools(games).pair("craits") == []
    join(http, bot, mixed=True)
    assert len(Pools(games).pair("craits")) == 1


def test_bad_pool_requests_are_told_why(http: Http) -> None:
    key = sign_up(http, "ana")
    assert join(http, key, players=[9]).status_code == 422
    assert join(http, key, players=[]).status_code == 422
    assert join(http, key, concurrency=0).status_code == 422
    assert join(http, key, game="poker").status_code == 404
    assert http.client.post("/v1/pools/craits/join", json={"players": [2]}).status_code == 401
    assert http.client.post("/v1/pools/craits/join", json={"players": [2], "rated": "yes"},
                            headers=bearer(key)).status_code == 422
    for flag in ({"rated": 1}, {"rated": 0}, {"mixed": 1}, {"mixed": 0}):  # (Python's 1 == True took them)
        refused = join(http, key, **flag)
        assert refused.status_code == 422 and refused.json["code"] == "validation_error", flag
    assert http.client.delete("/v1/pools/craits/join", headers=bearer(key)).status_code == 404  # (never joined)


def test_an_account_that_stops_answering_leaves_every_pool_once_its_seat_is_handed_to_a_house_bot(
        http: Http, games: GameService) -> None:
    clock = [dt.datetime.now(dt.UTC)]
    games.clock = lambda: clock[0]
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    join(http, ana)
    join(http, ana, game="scat")
    join(http, bo)
    [game_id] = Pools(games).pair("craits")
    seats = {seat["account"]: index for index, seat in enumerate(http.client.get(f"/v1/games/{game_id}").json["seats"])}
    while "SeatAbandoned" not in [event["type"] for event in http.events(game_id, limit=1000).json["events"]]:
        table = games.table(game_id)
        if seats["bo"] in tables.to_act(table):  # (bo plays on; ana, gone, lets her turns time out)
            games.move(game_id, bo, tables.legal_moves(table, seats["bo"])[0])
        else:
            clock[0] += dt.timedelta(seconds=10)
            assert Sweeper(games).sweep() == 1
    for game in ("craits", "scat"):
        assert http.client.delete(f"/v1/pools/{game}/join", headers=bearer(ana)).status_code == 404
    assert http.client.delete("/v1/pools/craits/join", headers=bearer(bo)).status_code == 204  # (bo is still in it)
    assert http.client.get("/v1/accounts/ana").json["games"] == {"played": 1, "current": []}  # (she left it)


def test_the_operator_sets_each_pools_clock(http: Http, games: GameService) -> None:
    pools = Pools(games, pool_clocks("15, scat=8"))
    ana, bo = sign_up(http, "ana"), sign_up(http, "bo")
    for key in (ana, bo):
        join(http, key, game="scat")
        join(http, key)
    [scat] = pools.pair("scat")
    assert http.client.get(f"/v1/games/{scat}").json["options"]["move_seconds"] == 8
    assert pools.move_seconds("craits") == 15 and Pools(games).move_seconds("craits") == 10
    assert Settings.from_environment({"CARDHALL_POOL_MOVE_SECONDS": "scat=8"}).app_config()[
        "CARDHALL_POOL_MOVE_SECONDS"] == {"scat": 8}
    for bad in ("0", "poker=5", "scat=fast", "scat=86401"):
        with pytest.raises(ValueError, match="CARDHALL_POOL_MOVE_SECONDS"):
            Settings.from_environment({"CARDHALL_POOL_MOVE_SECONDS": bad})

"""Problem+json answers become exceptions named after their codes; moves retry safely."""

from __future__ import annotations

import time

import httpx
import pytest

from cardhall_client import (
    CardhallClient,
    Forbidden,
    GameNotActive,
    IdempotencyConflict,
    IllegalMove,
    NotFound,
    NotYourTurn,
    PreconditionFailed,
    SeatUnavailable,
    Unauthorized,
    ValidationError,
    VersionConflict,
)
from tests.e2e.server import running_server


@pytest.fixture
def cardhall(live_server: str):
    with CardhallClient(live_server) as client:
        yield client


@pytest.fixture
def scat(cardhall):
    """A two-player Scat game between two people: its id, and clients for the seat to act and the other."""
    game_id = cardhall.create_game("scat", 2, {"seed": 21})["id"]
    seats = [cardhall.seated(cardhall.join(game_id, f"p{seat}")["token"]) for seat in range(2)]
    first = seats[0].state(game_id)
    return (game_id, *seats) if first["seat"] in first["to_act"] else (game_id, *reversed(seats))


def test_an_unknown_game_is_not_found(cardhall):
    with pytest.raises(NotFound) as raised:
        cardhall.game("no-such-game")
    assert (raised.value.status, raised.value.code) == (404, "not_found")


def test_a_bad_body_is_a_validation_error(cardhall):
    with pytest.raises(ValidationError) as raised:
        cardhall.create_game("craits", 9)
    assert raised.value.status in (400, 422) and raised.value.detail


def test_a_move_without_a_token_is_unauthorized_and_another_games_token_is_forbidden(cardhall, scat):
    game_id, actor, _ = scat
    with pytest.raises(Unauthorized):
        cardhall.move(game_id, {"type": "knock"})
    other_game = cardhall.create_game("scat", 2)["id"]
    with pytest.raises(Forbidden):
        actor.state(other_game)


def test_a_full_game_has_no_seat_and_a_finished_one_takes_no_move(cardhall):
    game_id = cardhall.create_game("scat", 2, {"seed": 1})["id"]
    me = cardhall.seated(cardhall.join(game_id, "alice")["token"])
    cardhall.seat_bot(game_id, "random")
    with pytest.raises(SeatUnavailable):
        cardhall.join(game_id, "late")
    while (view := me.wait_for_turn(game_id))["status"] == "active":
        me.move(game_id, view["legal_moves"][0])
    with pytest.raises(GameNotActive):
        me.move(game_id, {"type": "knock"})


def test_out_of_turn_stale_and_illegal_moves_raise_their_own_exceptions(scat):
    game_id, actor, other = scat
    version = actor.state(game_id)["version"]
    with pytest.raises(NotYourTurn):
        other.move(game_id, {"type": "knock"})
    with pytest.raises(VersionConflict):
        actor.move(game_id, {"type": "knock"}, expected_version=version - 1)
    with pytest.raises(PreconditionFailed):
        actor.move(game_id, {"type": "knock"}, if_match=version - 1)
    with pytest.raises(IllegalMove) as raised:
        actor.move(game_id, {"type": "discard", "card": actor.state(game_id)["state"]["hand"][0]})
    assert raised.value.rule and raised.value.status == 422


def test_the_same_idempotency_key_replays_the_answer_and_another_body_conflicts(scat):
    game_id, actor, _ = scat
    first = actor.move(game_id, {"type": "draw", "source": "stock"}, idempotency_key="key-1")
    again = actor.move(game_id, {"type": "draw", "source": "stock"}, idempotency_key="key-1")
    assert again == first and actor.state(game_id)["version"] == first["version"]
    with pytest.raises(IdempotencyConflict):
        actor.move(game_id, {"type": "knock"}, idempotency_key="key-1")


def test_a_move_is_retried_after_a_dropped_connection_and_a_503_with_the_same_key():
    keys: list[str] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers["Idempotency-Key"])
        if len(keys) == 1:
            raise httpx.ReadError("connection reset")
        if len(keys) == 2:
            return httpx.Response(503, json={"status": 503, "code": "unavailable", "detail": "busy"})
        return httpx.Response(201, json={"version": 9})

    http = httpx.Client(base_url="http://cardhall.test", transport=httpx.MockTransport(flaky))
    client = CardhallClient("http://cardhall.test", token="t", backoff=0, http=http)
    assert client.move("g", {"type": "knock"}) == {"version": 9}
    assert len(keys) == 3 and len(set(keys)) == 1


def test_the_client_waits_as_long_as_a_429_says_and_tries_again(tmp_path):
    with running_server(tmp_path, rate_limit="2/second") as base_url, CardhallClient(base_url) as client:
        started = time.monotonic()
        answers = [client.game_types() for _ in range(5)]  # the 3rd and 5th wait out their second
        assert len(answers) == 5 and all(answers)
        assert time.monotonic() - started >= 1.0


def test_a_rate_limited_client_says_so_once_and_what_to_do(caplog):
    answers = iter([429, 200, 429, 200])

    def limited(request: httpx.Request) -> httpx.Response:
        status = next(answers)
        if status == 429:
            return httpx.Response(429, headers={"Retry-After": "0"},
                                  json={"status": 429, "code": "rate_limited", "detail": "too many requests"})
        return httpx.Response(200, json={"game_types": []})

    http = httpx.Client(base_url="http://cardhall.test", transport=httpx.MockTransport(limited))
    client = CardhallClient("http://cardhall.test", token="t", backoff=0, http=http)
    assert client.game_types() == [] and client.game_types() == []
    warnings = [record.getMessage() for record in caplog.records if record.name == "cardhall.client"]
    assert len(warnings) == 1
    assert "rate limited" in warnings[0] and "--concurrency" in warnings[0] and "--rate-limit" in warnings[0]

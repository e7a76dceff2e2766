"""Fifty client processes send the same move at once to two server processes over one PostgreSQL."""

from __future__ import annotations

import multiprocessing
import random
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.integration.multiprocess_http import (
    actor,
    all_events,
    assert_versions_whole,
    new_game,
    servers_over,
    turn_move,
)

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(180)]
CLIENTS = 50


def send_at(url: str, token: str, move: dict[str, Any], key: str | None, start_at: float) -> tuple[int, Any, bool]:
    """At ``start_at``, POST the move once; its status, JSON body and whether it was an idempotent replay."""
    headers = {"Authorization": f"Bearer {token}", **({"Idempotency-Key": key} if key else {})}
    with httpx.Client(timeout=60) as http:
        time.sleep(max(0.0, start_at - time.time()))
        answer = http.post(url, json=move, headers=headers)
    return answer.status_code, answer.json(), answer.headers.get("Idempotent-Replayed") == "true"


def ready(_: int) -> bool:
    """A no-op every worker runs once, so all are up (httpx imported) before a round starts."""
    time.sleep(0.2)
    return True


@pytest.fixture(scope="module")
def clients() -> Iterator[Any]:
    """Fifty client processes, started once for every round of the module."""
    context = multiprocessing.get_context("forkserver")  # one clean process to fork from: quick and safe
    context.set_forkserver_preload([__name__])
    with context.Pool(CLIENTS) as pool:
        assert all(pool.map(ready, range(CLIENTS), chunksize=1))
        yield pool


@pytest.fixture
def game(postgres_database, tmp_path) -> Iterator[tuple[list[str], str, str]]:
    """Two separate servers (two workers each) over a fresh database, and a long game whose person is to act."""
    with servers_over(postgres_database(), tmp_path) as servers:
        bases = [server.base_url for server in servers]
        game_id, tokens = new_game(bases[0], "craits", 3, humans=1, seed=21)
        yield bases, game_id, tokens[0]


def all_at_once(pool: Any, bases: list[str], game_id: str, token: str, move: dict[str, Any],
                key: str | None) -> list[tuple[int, Any, bool]]:
    """The same request from every client process at the same moment, half to each server."""
    start_at = time.time() + 1.0
    jobs = [pool.apply_async(send_at, (f"{bases[number % len(bases)]}/v1/games/{game_id}/moves", token, move,
                                       key, start_at))
            for number in range(CLIENTS)]
    return [job.get(timeout=90) for job in jobs]


def current_turn(base: str, game_id: str, token: str) -> dict[str, Any]:
    with httpx.Client(base_url=base, timeout=30) as http:
        found = actor(http, game_id, [token])
    assert found is not None, "the game ended too soon"
    return found[1]


def test_fifty_identical_moves_with_one_expected_version_append_once_and_the_rest_conflict(clients, game):
    bases, game_id, token = game
    view = current_turn(bases[0], game_id, token)
    move = {**turn_move(view, random.Random(1)), "expected_version": view["version"]}
    answers = all_at_once(clients, bases, game_id, token, move, key=None)
    statuses = Counter(status for status, _, _ in answers)
    assert statuses == {201: 1, 409: CLIENTS - 1}, statuses
    assert {body["code"] for status, body, _ in answers if status == 409} == {"version_conflict"}
    winner = next(body for status, body, _ in answers if status == 201)
    events = all_events(bases[1], game_id)
    assert_versions_whole(events)
    assert len(events) == winner["version"]
    assert events[view["version"]]["seat"] == view["seat"]  # the move itself, right after the version it expected


@pytest.mark.parametrize("with_version", [True, False], ids=["expected_version", "no_expected_version"])
def test_fifty_identical_moves_sharing_an_idempotency_key_append_once_and_all_get_the_first_answer(
    clients, game, with_version
):
    bases, game_id, token = game
    view = current_turn(bases[0], game_id, token)
    move = turn_move(view, random.Random(2))
    if with_version:
        move = {**move, "expected_version": view["version"]}
    answers = all_at_once(clients, bases, game_id, token, move, key="the-same-key")
    assert Counter(status for status, _, _ in answers) == {201: CLIENTS}, [a for a in answers if a[0] != 201][:3]
    assert Counter(replay for _, _, replay in answers) == {False: 1, True: CLIENTS - 1}
    first = next(body for _, body, replay in answers if not replay)
    assert all(body == first for _, body, _ in answers)
    events = all_events(bases[1], game_id)
    assert_versions_whole(events)
    assert len(events) == first["version"]
    assert [event["seat"] for event in events[view["version"]:]].count(view["seat"]) >= 1
    assert len(events) - view["version"] == len(first["events"])  # one move's worth, appended once

"""Helpers of the multi-process tests: real servers over one PostgreSQL, players and followers over HTTP.

Everything here that runs in another process is a module-level function, so a
``spawn`` pool can import it.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from domain import table as tables
from tests.e2e.server import ServerProcess, start_server

#: Moves a bot may make out of turn; a test that wants "the" move of a turn avoids them.
OUT_OF_TURN = {"announce", "call", "declare_31"}


@contextlib.contextmanager
def servers_over(database: str, directory: Path, count: int = 2, workers: int = 2) -> Iterator[list[ServerProcess]]:
    """``count`` separate ``cardhall serve`` processes (``workers`` each) over one database."""
    started: list[ServerProcess] = []
    try:
        for number in range(count):
            started.append(start_server(directory, database=database, workers=workers, log_name=f"server{number}.log"))
        yield started
    finally:
        for server in started:
            server.stop()


def bearer(token: str | None) -> dict[str, str]:
    """The Authorization header of a token (none for a spectator)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


def new_game(base: str, game: str, players: int, humans: int, seed: int, **options: Any) -> tuple[str, list[str]]:
    """A started game: ``humans`` seats with tokens, the others random house bots; its id and the tokens."""
    with httpx.Client(base_url=base, timeout=30) as http:
        created = http.post("/v1/games", json={"game": game, "players": players,
                                               "options": {"seed": seed, **options}})
        assert created.status_code == 201, created.text
        game_id = created.json()["id"]
        tokens = []
        for seat in range(players):
            body = {"name": f"p{seat}"} if seat < humans else {"bot": "random"}
            joined = http.post(f"/v1/games/{game_id}/seats", json=body)
            assert joined.status_code == 201, joined.text
            if seat < humans:
                tokens.append(joined.json()["token"])
    return game_id, tokens


def actor(http: httpx.Client, game_id: str, tokens: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The token of a seat that must act now and its view; None once the game is over."""
    for token in tokens:
        view = http.get(f"/v1/games/{game_id}/state", headers=bearer(token)).json()
        if view["status"] == "finished":
            return None
        if view["seat"] in view["to_act"]:
            return token, view
    raise AssertionError(f"game {game_id}: no person is to act and the game is not over")


def turn_move(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal move of the seat's turn (not an out-of-turn one), chosen at random."""
    moves = [move for move in view["legal_moves"] if move["type"] not in OUT_OF_TURN] or view["legal_moves"]
    return rng.choice(moves)


def post_move(bases: list[str], game_id: str, token: str, move: dict[str, Any], key: str,
              rng: random.Random, patience: float = 30.0) -> httpx.Response:
    """POST a move to one of ``bases``; on a dropped connection, the same request (same key) to another."""
    deadline = time.monotonic() + patience
    while True:
        base = rng.choice(bases)
        try:
            return httpx.post(f"{base}/v1/games/{game_id}/moves", json=move, timeout=30,
                              headers={**bearer(token), "Idempotency-Key": key})
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def play_games_round_robin(bases: list[str], games: list[tuple[str, list[str]]], seed: int) -> int:
    """Play every game to its end, one move per game in turn, each through a random server; the moves made."""
    rng = random.Random(seed)
    live: dict[str, tuple[str, dict[str, Any]] | None] = {game_id: None for game_id, _ in games}
    tokens = dict(games)
    moves = 0
    with httpx.Client(timeout=30) as http:
        while live:
            for game_id, turn in list(live.items()):
                http.base_url = httpx.URL(rng.choice(bases))
                turn = turn or actor(http, game_id, tokens[game_id])
                if turn is None:
                    del live[game_id]
                    continue
                token, view = turn
                move = {**turn_move(view, rng), "expected_version": view["version"]}
                answer = post_move(bases, game_id, token, move, f"{game_id}-{view['version']}", rng)
                assert answer.status_code == 201, answer.text
                live[game_id] = next_turn(token, answer.json())
                moves += 1
    return moves


def next_turn(token: str, answer: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The mover's next turn straight from a move's answer (its new view), if it is the mover's again."""
    return (token, answer) if answer["status"] == "active" and answer["seat"] in answer["to_act"] else None


def all_events(base: str, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    """A game's whole log as ``token`` (or a spectator) may see it, page by page."""
    events: list[dict[str, Any]] = []
    with httpx.Client(base_url=base, timeout=30) as http:
        while True:
            page = http.get(f"/v1/games/{game_id}/events", params={"after": len(events), "limit": 1000},
                            headers=bearer(token)).json()
            events.extend(page["events"])
            if not page["events"] or len(events) >= page["last_version"]:
                return events


def assert_versions_whole(events: list[dict[str, Any]]) -> None:
    """Versions run 1, 2, …, n: no gap, no duplicate, in order."""
    versions = [event["version"] for event in events]
    assert versions == list(range(1, len(versions) + 1)), versions


def replayed(events: list[dict[str, Any]]) -> tables.Table:
    """Fold a finished game's log (everything public) through the domain's reducers."""
    game = events[0]["data"]["game"]
    return tables.replay(tables.decode(game, event["type"], event["seat"], event["data"]) for event in events)


def as_json(value: Any) -> Any:
    """``value`` as it would come back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value, default=list))

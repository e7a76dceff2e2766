"""Every moment the API writes is in one form, RFC 3339 UTC to the millisecond with ``Z`` (docs/api.md,
"Timestamps"): game and account answers, long-polls and streams alike, records and a move's own answer."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from api import create_app
from api.asgi import create_asgi
from service.games import GameService
from tests.e2e.test_account_stream import frames, sign_up
from tests.e2e.test_accounts import bearer

ONE_FORM = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
MOMENTS = ("recorded_at", "deadline", "created_at", "expires_at", "joined_at", "revoked_at", "timestamp")


@pytest.fixture
def client(games: GameService) -> Iterator[TestClient]:
    app = create_app(games, CARDHALL_RATE_LIMIT="off", CARDHALL_SSE_HEARTBEAT=0.2, CARDHALL_ACCOUNT_HEARTBEAT=0.2)
    with TestClient(create_asgi(app, 8)) as client:
        yield client


def moments(document: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every value of a key that names a moment in ``document``, with where it was found."""
    if isinstance(document, dict):
        for key, value in document.items():
            if key in MOMENTS and value is not None:
                yield f"{where}.{key}", value
            yield from moments(value, f"{where}.{key}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from moments(value, f"{where}[{index}]")


def stream_data(text: str) -> list[Any]:
    return [json.loads(frame["data"]) for frame in frames(text) if "data" in frame]


def test_every_moment_the_api_writes_is_rfc_3339_utc_to_the_millisecond_with_z(client: TestClient) -> None:
    ana, bo = sign_up(client, "ana"), sign_up(client, "bo")
    offered = client.post("/v1/challenges", headers=bearer(ana), json={
        "game": "craits", "players": 2, "to": ["bo"], "expires_in": 600, "options": {"move_seconds": 60}})
    game_id = client.post(f"/v1/challenges/{offered.json()['id']}/accept", headers=bearer(bo), json={}).json()["game_id"]
    view = client.get(f"/v1/games/{game_id}/state", headers=bearer(ana)).json()
    mover = ana if 0 in view["to_act"] else bo
    legal = client.get(f"/v1/games/{game_id}/state", headers=bearer(mover)).json()["legal_moves"]
    moved = client.post(f"/v1/games/{game_id}/moves", headers=bearer(mover), json=legal[0])
    assert moved.status_code == 201, moved.text
    joined = client.post("/v1/pools/scat/join", headers=bearer(ana), json={"players": [3]})
    answers = {
        "challenge": offered.json(),
        "account": client.get("/v1/accounts/ana").json(),
        "keys": client.get("/v1/account/keys", headers=bearer(ana)).json(),
        "account long-poll": client.get("/v1/account/events", params={"wait": 1}, headers=bearer(bo)).json(),
        "account stream": stream_data(client.get("/v1/account/stream", params={"timeout": 0.3}, headers=bearer(bo)).text),
        "summary": client.get(f"/v1/games/{game_id}").json(),
        "state": view,
        "move": moved.json(),
        "events": client.get(f"/v1/games/{game_id}/events").json(),
        "events long-poll": client.get(f"/v1/games/{game_id}/events", params={"wait": 1, "after": 2}).json(),
        "events stream": stream_data(client.get(f"/v1/games/{game_id}/events/stream", params={"timeout": 0.3}).text),
        "record": client.get(f"/v1/games/{game_id}/record").json(),
        "pool": joined.json(),
    }
    found = dict(moments(answers))
    assert {re.match(r"\.([^.[]+)", where)[1] for where in found} == set(answers)  # (every answer holds some)
    assert {where.rsplit(".", 1)[1] for where in found} == set(MOMENTS) - {"revoked_at", "timestamp"}
    wrong = {where: value for where, value in found.items() if not (isinstance(value, str) and ONE_FORM.fullmatch(value))}
    assert not wrong
    assert all(dt.datetime.fromisoformat(value).utcoffset() == dt.timedelta(0) for value in found.values())

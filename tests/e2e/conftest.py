"""HTTP end-to-end fixtures: the app over every store backend, and a small API helper."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

import persistence
from api import create_app
from api.asgi import create_asgi
from service.games import GameService
from service.sweeper import Sweeper
from tests.e2e.live import live_server  # noqa: F401  (a real server process, shared by the session)

BACKENDS = [
    pytest.param("memory", id="memory"),
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


def _store_url(backend: str, request: pytest.FixtureRequest) -> str:
    """An empty migrated database of the backend (see tests/stores.py), or the memory store."""
    if backend == "memory":
        return "memory://"
    return request.getfixturevalue("sqlite_url" if backend == "sqlite" else "postgres_url")


@pytest.fixture(params=BACKENDS)
def games(request: pytest.FixtureRequest) -> Iterator[GameService]:
    """A game service on each backend, its schema migrated with Alembic."""
    service = GameService(persistence.open_store(_store_url(request.param, request)), max_wait=2.0)
    yield service
    service.store.close()


@pytest.fixture
def app(games: GameService):  # type: ignore[no-untyped-def]
    """The Flask app over the service."""
    return create_app(games, CARDHALL_SSE_HEARTBEAT=0.2, CARDHALL_RATE_LIMIT="off")  # (limits: test_rate_limits.py)


@pytest.fixture
def http(app):  # type: ignore[no-untyped-def]
    """A small helper around the Flask test client."""
    return Http(app.test_client(use_cookies=False))  # (the API sets no cookie: none to keep)


@pytest.fixture
def asgi_http(app):  # type: ignore[no-untyped-def]
    """The same helper on the ASGI app a server runs (api.asgi: its long-polls and streams, and the Flask app)."""
    with TestClient(create_asgi(app, 4)) as client:
        yield Http(AsgiClient(client))


class AsgiResponse:
    """An httpx response read as the Flask test client's are (``json``, ``mimetype``, ``get_data``)."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.status_code = response.status_code
        self.headers = response.headers

    @property
    def json(self) -> Any:
        return self.response.json() if self.mimetype.endswith("json") else None

    @property
    def mimetype(self) -> str:
        return self.headers.get("content-type", "").split(";")[0]

    def get_data(self, as_text: bool = False) -> Any:
        return self.response.text if as_text else self.response.content

    def close(self) -> None:
        self.response.close()


class AsgiClient:
    """Starlette's test client (httpx) called as the Flask test client is (``query_string``; header values
    beyond ASCII sent as their UTF-8 bytes)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client

    def get(self, path: str, query_string: Any = None, headers: Any = None) -> AsgiResponse:
        return self.open(path, "GET", query_string, headers)

    def post(self, path: str, json: Any = None, headers: Any = None) -> AsgiResponse:
        return AsgiResponse(self.client.post(path, json=json, headers=_raw(headers)))

    def open(self, path: str, method: str = "GET", query_string: Any = None, headers: Any = None,
             data: bytes | None = None) -> AsgiResponse:
        return AsgiResponse(self.client.request(method, path, params=query_string, headers=_raw(headers), content=data))


def _raw(headers: dict[str, str] | None) -> dict[str, Any] | None:
    return None if headers is None else {name: value if value.isascii() else value.encode() for name, value in headers.items()}


class Http:
    """Calls of the API by name, returning the Flask test response."""

    def __init__(self, client: Any) -> None:
        self.client = client

    @staticmethod
    def auth(token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def create(self, game: str = "craits", players: int = 2, **options: Any) -> str:
        response = self.client.post("/v1/games", json={"game": game, "players": players, "options": options})
        assert response.status_code == 201, response.json
        return response.json["id"]

    def join(self, game_id: str, name: str = "p") -> str:
        response = self.client.post(f"/v1/games/{game_id}/seats", json={"name": name})
        assert response.status_code == 201, response.json
        return response.json["token"]

    def bot(self, game_id: str, kind: str = "random") -> Any:
        return self.client.post(f"/v1/games/{game_id}/seats", json={"bot": kind})

    def played_out(self, game_id: str) -> Any:
        """The game's summary once its house bots have nothing left to play: the sweeps a server's sweeper
        would make (service.sweeper), made here (a request plays a bounded number of events)."""
        sweeper = Sweeper(self.client.application.extensions["cardhall"])
        while sweeper.sweep():
            pass
        return self.client.get(f"/v1/games/{game_id}").json

    def started(self, game: str = "craits", players: int = 2, **options: Any) -> tuple[str, list[str]]:
        """A game with every seat taken by a person; returns its id and the tokens by seat."""
        game_id = self.create(game, players, **options)
        return game_id, [self.join(game_id, f"p{seat}") for seat in range(players)]

    def state(self, game_id: str, token: str | None = None, **query: Any) -> Any:
        return self.client.get(f"/v1/games/{game_id}/state", query_string=query, headers=self.auth(token))

    def move(self, game_id: str, token: str | None, move: dict[str, Any], **headers: str) -> Any:
        return self.client.post(f"/v1/games/{game_id}/moves", json=move, headers={**self.auth(token), **headers})

    def events(self, game_id: str, token: str | None = None, **query: Any) -> Any:
        return self.client.get(f"/v1/games/{game_id}/events", query_string=query, headers=self.auth(token))

    def version(self, game_id: str) -> int:
        return self.client.get(f"/v1/games/{game_id}").json["version"]

    def actor(self, game_id: str, tokens: list[str]) -> tuple[int, str, dict[str, Any]]:
        """A seat that must act now, its token and its view."""
        for seat, token in enumerate(tokens):
            view = self.state(game_id, token).json
            if seat in view["to_act"]:
                return seat, token, view
        raise AssertionError("nobody is to act")

    def play_out(self, game_id: str, tokens: list[str], limit: int = 20_000) -> int:
        """Play the first legal move of whoever must act until the game ends; returns the moves made."""
        for count in range(limit):
            if self.client.get(f"/v1/games/{game_id}").json["status"] == "finished":
                return count
            _, token, view = self.actor(game_id, tokens)
            response = self.move(game_id, token, view["legal_moves"][0])
            assert response.status_code == 201, response.json
        raise AssertionError("the game did not end")

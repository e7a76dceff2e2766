"""Schemathesis against the whole OpenAPI document, every check, on SQLite and PostgreSQL: zero failures.

In-process (WSGI), with a live game and a valid bearer token of it: every path's
``game_id`` is that game and the bearer scheme sends that token, so states, events
and moves are exercised for real, not only as 404s and 401s. Stateless per
operation, then stateful, following the document's links (create → seat →
state/moves/events). A schema-valid move may still be refused by the game's state
(not your turn, illegal now, a stale version): the positive-data check accepts those
answers, which the document lists; and a stale version is answered before a body is
looked at, so the negative-data check accepts 409 and 412 too.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

import persistence
from api import create_app
from api.asgi import create_asgi
from service.games import GameService
from tests.e2e.conftest import _store_url

BACKENDS = [pytest.param("sqlite", id="sqlite"), pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres)]
#: What any request may get, whatever its data: a request line past 4,094 bytes is 414, a header line past its
#: bound 431 (docs/api.md, "Request heads"; every operation documents both). Generated queries can be that long.
HEAD_LIMITS = ["414", "431"]
#: What a schema-valid request may get from a live game: refusals that depend on its state.
STATE_REFUSALS = ["2xx", "401", "403", "404", "409", "412", "422", "429", *HEAD_LIMITS]
#: What a schema-violating request may get: a 4xx; a move naming a stale version gets its 409 or 412 before
#: anything in its body is looked at (docs/api.md, "Order of checks").
VERSION_FIRST = ["400", "401", "403", "404", "405", "409", "412", "413", "415", "422", "429", *HEAD_LIMITS]
#: No example database: each run starts from a fresh app, so an example saved by an earlier run (against
#: another state of the server) would not replay the same way.
EXAMPLES = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@pytest.fixture(params=BACKENDS)
def api_schema(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    """The app's document, loaded with a live two-player Craits game and its first seat's token."""
    url = _store_url(request.param, request)
    persistence.upgrade(url)
    games = GameService(persistence.open_store(url), max_wait=0.05)
    app = create_app(games, CARDHALL_SSE_HEARTBEAT=0.05, CARDHALL_STREAM_MAX=0.2, CARDHALL_RATE_LIMIT="off")
    http = app.test_client()
    game_id = http.post("/v1/games", json={"game": "craits", "players": 2}).json["id"]
    token = http.post(f"/v1/games/{game_id}/seats", json={"name": "tester"}).json["token"]
    http.post(f"/v1/games/{game_id}/seats", json={"bot": "random"})
    config = schemathesis.Config.from_dict({
        "parameters": {"path.game_id": game_id},
        "auth": {"openapi": {"bearerAuth": {"bearer": token}}},
        "checks": {"positive_data_acceptance": {"expected-statuses": STATE_REFUSALS},
                   "negative_data_rejection": {"expected-statuses": VERSION_FIRST}},
    })
    yield schemathesis.openapi.from_asgi("/openapi.json", create_asgi(app, 4), config=config)
    games.store.close()


schema = schemathesis.pytest.from_fixture("api_schema")


def holds_what_no_body_may(value: Any, depth: int = 1) -> bool:
    """Whether a JSON value is past the limits every body is read within (400, docs/api.md's error table): a NUL
    or a lone surrogate in a key or a string, an integer of more than 20 digits, a number not finite, nesting
    deeper than 32. The document says so of each field it describes, but cannot of a record's free-form object."""
    if isinstance(value, str):
        return "\x00" in value or any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int):
        return len(str(abs(value))) > 20
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict | list) and depth > 32:
        return True
    if isinstance(value, dict):
        return any(holds_what_no_body_may(key) or holds_what_no_body_may(item, depth + 1) for key, item in value.items())
    return isinstance(value, list) and any(holds_what_no_body_may(item, depth + 1) for item in value)


@schema.parametrize()
@EXAMPLES
def test_every_operation_conforms_to_the_document(case):
    if case.operation.path == "/v1/records/replay" and holds_what_no_body_may(case.body):
        answer = case.call()
        assert answer.status_code == 400 and answer.json()["code"] == "validation_error", answer.text
        return
    case.call_and_validate()


def test_stateful_workflows_conform_to_the_document(api_schema):
    class Workflows(api_schema.as_state_machine()):  # type: ignore[misc]
        """Each account a scenario creates gets a name no earlier scenario took.

        Hypothesis replays a scenario's choices and expects the same steps to be open; an account name taken
        by an earlier scenario would answer 409 the second time, and the steps that follow a created
        account would close."""

        names = itertools.count()

        def before_call(self, case):  # type: ignore[no-untyped-def]
            body = case.body
            if case.operation.path == "/v1/accounts" and isinstance(body, dict) and isinstance(body.get("name"), str) \
                    and re.fullmatch(r"[A-Za-z0-9_-]{1,32}", body["name"]):
                case.body = {**body, "name": f"{body['name'][:24]}-{next(self.names)}"}

    Workflows.run(
        settings=settings(max_examples=20, stateful_step_count=6, deadline=None, suppress_health_check=list(HealthCheck),
                          database=None)
    )

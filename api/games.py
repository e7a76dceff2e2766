"""The games resource: create, list, summary, seats, state, moves, events, audit."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, request, url_for
from flask.views import MethodView
from werkzeug.exceptions import NotImplemented as NotServedHere
from werkzeug.exceptions import UnprocessableEntity, UnsupportedMediaType

from api import examples, jsonschema
from api.context import FOREVER, bearer_token, etag, final_headers, service
from api.limits import PAST_VIEW_EVENTS, charge_read
from api.parsing import Blueprint, json_body, whole_body
from api.schemas import (
    AuditSchema,
    CreateGameSchema,
    EventsQuerySchema,
    EventsSchema,
    GameListQuerySchema,
    GameListSchema,
    GameSummarySchema,
    GameTypesSchema,
    JoinResultSchema,
    JoinSchema,
    MoveHeadersSchema,
    MoveResultSchema,
    MoveSchema,
    StateQuerySchema,
    StreamHeadersSchema,
    StreamQuerySchema,
    ViewSchema,
)

# Schemas are given to @blp.arguments as instances: given a class, webargs builds
# (and deep-copies the fields of) a new instance on every request.
blp = Blueprint("games", __name__, url_prefix="/v1", description="Create, join, play and replay games.")

BEARER = [{"bearerAuth": []}]
#: Where a created game's id leads (OpenAPI links, followed by stateful clients and tests).
GAME_LINKS = {
    name: {"operationId": operation, "parameters": {"game_id": "$response.body#/id"}}
    for name, operation in (
        ("GetGame", "getGame"),
        ("TakeSeat", "takeSeat"),
        ("GetState", "getState"),
        ("MakeMove", "makeMove"),
        ("GetEvents", "getEvents"),
        ("StreamEvents", "streamEvents"),
        ("GetAudit", "getAudit"),
        ("Resign", "resign"),
        ("Abort", "abort"),
    )
}

#: One Server-Sent Event of the stream; its data is an Event as JSON.
SSE_EVENT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "The event's version"},
        "event": {"type": "string", "description": "The event's type"},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": {"$ref": "#/components/schemas/Event"}},
        "retry": {"type": "integer"},
    },
}
OPTIONAL_BEARER = [{"bearerAuth": []}, {}]
#: The headers of an answer a finished game makes cacheable for good.
CACHED_HEADERS = {
    "ETag": {"schema": {"type": "string"}, "description": "The game's version (of the view: its `version`)"},
    "Cache-Control": {"schema": {"type": "string"},
                      "description": "Once the game is over, `max-age=31536000, immutable`: its log and "
                                     "its views at a version never change (If-None-Match gets a 304)"},
}


#: The POSTs that take no body (the caller and the path say everything): sent with none, or an empty JSON object.
BODILESS = {"games.Resign", "games.Abort"}


@blp.before_request
def _bodies_are_json() -> None:
    """A body sent as anything but JSON is refused as such (415), not read as an empty one ("missing field"). A
    resignation or an abort takes none (or ``{}``, which many clients send with every POST): a body that says
    anything is refused, 415 or 400 as any body, 422 if it is JSON, rather than ignored while the seat is given up."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    if request.endpoint not in BODILESS:
        if not request.is_json:
            raise UnsupportedMediaType("send the body as JSON, with the header Content-Type: application/json")
    elif whole_body(request) and json_body(request) not in ({}, None):
        raise UnprocessableEntity(f"{request.endpoint.partition('.')[2].lower()} takes no body: send none, or {{}}")


def ready(body: dict[str, Any]) -> Response:
    """``body`` as the JSON response flask-smorest would make of it, without dumping it through its schema.

    For the view and the move answer, which the service builds JSON-ready and exactly as
    their schemas document them: marshmallow's dump would copy every field of them (the
    whole game ``state`` with it) only to give back the same data. flask-smorest passes a
    ready response through unchanged; the schema still documents it.
    """
    return current_app.json.response(body)


problems = examples.problems_documenter(blp)


@blp.route("/game-types")
class GameTypes(MethodView):
    @blp.doc(operationId="listGameTypes")
    @blp.response(200, GameTypesSchema)
    def get(self) -> dict[str, Any]:
        """The games offered, their player ranges, options and move types."""
        return {"game_types": service().game_types()}


@blp.route("/games")
class Games(MethodView):
    @blp.doc(operationId="listGames")
    @blp.arguments(GameListQuerySchema(), location="query")
    @blp.response(200, GameListSchema)
    @problems(422)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """List games, newest first; filter by status and game, page with cursor."""
        return service().list_games(
            status=query.get("status"), game=query.get("game"), limit=query["limit"], cursor=query.get("cursor")
        )

    @blp.doc(operationId="createGame")
    @blp.arguments(CreateGameSchema(), examples=examples.CREATE)
    @blp.doc(requestBody={"content": {"application/json": {"schema": jsonschema.create_game_schema(replay=True)}}})
    @blp.response(201, GameSummarySchema, headers={"Location": {"description": "The game's URL",
                                                                "schema": {"type": "string"}}})
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(400, 401, 403, 413, 415, 422)
    def post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Create a game. Options that fix chance (seed, decks) stay hidden until it is over; that the
        creator fixed them (``seeded``, ``stacked``) is shown to everyone at once."""
        if (account := service().accounts.caller(bearer_token())) is not None:
            account.require("create")
        summary = service().create_game(body["game"], body["players"], body["options"], replay_of=body.get("replay_of"))
        return summary, 201, {"Location": url_for("games.Game", game_id=summary["id"]), "ETag": etag(summary["version"])}


@blp.route("/games/<game_id:game_id>")
class Game(MethodView):
    @blp.doc(operationId="getGame")
    @blp.response(200, GameSummarySchema, headers={"ETag": {"schema": {"type": "string"}}})
    @problems(404)
    def get(self, game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The game summary: seats, status, version, result."""
        summary = service().summary(game_id)
        return summary, 200, {"ETag": etag(summary["version"])}


@blp.route("/games/<game_id:game_id>/seats")
class Seats(MethodView):
    @blp.doc(operationId="takeSeat")
    @blp.arguments(JoinSchema(), examples=examples.JOIN)
    @blp.doc(requestBody={"content": {"application/json": {"schema": jsonschema.JOIN_SCHEMA}}})
    @blp.response(201, JoinResultSchema)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(400, 401, 403, 404, 409, 413, 415, 422)
    def post(self, body: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int]:
        """Take the next free seat (a token, shown once) or seat a house bot. The last seat starts the game.

        With an account's API key (scope ``play``) and no ``name``, the seat is the account's: its key
        moves for it (the seat's token does too)."""
        account = service().accounts.caller(bearer_token()) if "bot" not in body else None
        return service().join(game_id, name=body.get("name"), bot=body.get("bot"), entropy=body.get("entropy"),
                              caller=account), 201


@blp.route("/games/<game_id:game_id>/state")
class State(MethodView):
    @blp.doc(operationId="getState")
    @blp.arguments(StateQuerySchema(), location="query")
    @blp.response(200, ViewSchema, headers=CACHED_HEADERS)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(401, 403, 404, 422)
    def get(self, query: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The caller's view (or a spectator's), now or as it stood after event ``at``.

        A finished game's view at a version never changes: it is sent with caching for good."""
        at, token = query.get("at"), bearer_token()
        final = at is not None and service().is_over(game_id)  # (asked first: a game ending meanwhile is not)
        view = service().view(game_id, token, at=at)
        if at is not None:
            charge_read(PAST_VIEW_EVENTS)
        return ready(view), 200, final_headers(view["version"], token) if final else {"ETag": etag(view["version"])}


@blp.route("/games/<game_id:game_id>/moves")
class Moves(MethodView):
    @blp.doc(operationId="makeMove")
    @blp.arguments(MoveHeadersSchema(), location="headers")
    @blp.arguments(MoveSchema(), examples=examples.moves())
    @blp.doc(requestBody={"content": {"application/json": {"schema": jsonschema.move_schema()}}})
    @blp.response(201, MoveResultSchema, headers={"ETag": {"schema": {"type": "string"}}})
    @blp.doc(security=BEARER)
    @problems(400, 401, 403, 404, 409, 412, 413, 415, 422)
    def post(self, headers: dict[str, Any], body: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int, dict]:
        """Make a move for the token's seat; everything it sets off is appended with it."""
        move = dict(body)
        expected = move.pop("expected_version", None)
        outcome = service().move(
            game_id,
            bearer_token(),
            move,
            expected_version=expected,
            if_match=headers.get("if_match"),
            idempotency_key=headers.get("idempotency_key"),
        )
        extra = {"ETag": etag(outcome.body["version"])}
        if outcome.replayed:
            extra["Idempotent-Replayed"] = "true"
        return ready(outcome.body), 201, extra


@blp.route("/games/<game_id:game_id>/resign")
class Resign(MethodView):
    @blp.doc(operationId="resign")
    @blp.response(200, MoveResultSchema)
    @blp.doc(security=BEARER)
    @problems(401, 403, 404, 409)
    def post(self, game_id: str) -> Response:
        """Leave a game under way: the token's seat is played on by a house bot, as each game's rules say
        (docs/rules), and the token can no longer move. The seat's view after, and the events."""
        return ready(service().resign(game_id, bearer_token()))


@blp.route("/games/<game_id:game_id>/abort")
class Abort(MethodView):
    @blp.doc(operationId="abort")
    @blp.response(200, MoveResultSchema)
    @blp.doc(security=BEARER)
    @problems(401, 403, 404, 409)
    def post(self, game_id: str) -> Response:
        """End a game still waiting for players, as any seated player may: its status becomes ``aborted``.
        The seat's view after, and the event."""
        return ready(service().abort(game_id, bearer_token()))


@blp.route("/games/<game_id:game_id>/events")
class Events(MethodView):
    @blp.doc(operationId="getEvents")
    @blp.arguments(EventsQuerySchema(), location="query")
    @blp.response(200, EventsSchema, headers=CACHED_HEADERS)
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(401, 403, 404, 422, 503)
    def get(self, query: dict[str, Any], game_id: str) -> tuple[dict[str, Any], int, dict[str, str]]:
        """The log as the caller may see it; ``wait`` holds the request until an event after ``after`` exists.

        A finished game's log never changes: it is sent with an ETag and caching for good."""
        # (with ``wait`` the ASGI app answers, api.waiting: this is the read without it)
        token = bearer_token()
        page = service().events(game_id, token, after=query["after"], limit=query["limit"])
        charge_read(len(page["events"]))
        return page, 200, final_headers(page["last_version"], token) if page["over"] else {}


@blp.route("/games/<game_id:game_id>/audit")
class Audit(MethodView):
    @blp.doc(operationId="getAudit")
    @blp.response(200, AuditSchema)
    @problems(404)
    def get(self, game_id: str) -> dict[str, Any]:
        """Every shuffle's commitment; once the game is over its salt and order, and whether they match."""
        return service().audit(game_id)


@blp.route("/games/<game_id:game_id>/events/stream")
class EventStream(MethodView):
    @blp.doc(operationId="streamEvents")
    @blp.arguments(StreamHeadersSchema(), location="headers")
    @blp.arguments(StreamQuerySchema(), location="query")
    @blp.response(200, SSE_EVENT, content_type="text/event-stream",
                  description="Server-Sent Events: id = version, event = type, data = the event as JSON")
    @blp.doc(security=OPTIONAL_BEARER)
    @problems(401, 403, 404, 422, 503)
    def get(self, headers: dict[str, Any], query: dict[str, Any], game_id: str) -> Response:
        """The events as Server-Sent Events, resuming after ``Last-Event-ID``; closes once the game is over."""
        raise NotServedHere("event streams are served by the ASGI app (api.asgi), not by the Flask app alone")


@blp.after_request
def _conditional(response: Response) -> Response:
    """An answer cached for good is answered 304 when the client already holds it (If-None-Match)."""
    if FOREVER in response.headers.get("Cache-Control", ""):
        return response.make_conditional(request)
    return response

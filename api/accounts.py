"""Accounts, API keys, the account's events, and challenges."""

from __future__ import annotations

import re
from typing import Any, ClassVar

import marshmallow as ma
from flask import Response, current_app, request, url_for
from flask.views import MethodView
from marshmallow import fields, validate
from werkzeug.exceptions import NotImplemented as NotServedHere
from werkzeug.exceptions import UnsupportedMediaType

from api import examples, jsonschema
from api.account_stream import (
    AccountEventsQuerySchema,
    AccountEventsSchema,
    AccountHeadersSchema,
    AccountStreamQuerySchema,
    page,
)
from api.context import bearer_token, service
from api.parsing import ACCOUNT_NAME_PATTERN, Blueprint
from api.schemas import Entropy, JsonBoolean, JsonInteger, Pattern, Strict, Timestamp
from domain.text import LINE_PATTERN
from service.accounts import ANYONE, CREATE, KINDS, MAX_DESCRIPTION, MAX_ENTERED_BY, NOBODY, PLAY, READ, SCOPES, Caller
from service.challenges import DEFAULT_EXPIRY, MAX_EXPIRY, Challenges
from service.errors import Unauthorized

blp = Blueprint("accounts", __name__, url_prefix="/v1", description="Accounts, API keys, account events, challenges.")

BEARER = [{"bearerAuth": []}]
#: One Server-Sent Event of the account's stream; its data is an account event as JSON.
SSE_ACCOUNT_EVENT = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "The event's id"},
        "event": {"type": "string", "description": "The event's type"},
        "data": {"type": "string", "contentMediaType": "application/json"},
    },
}
#: An account's name in a body or a query, as in a path (api.parsing).
ACCOUNT_NAME = f"^{ACCOUNT_NAME_PATTERN}$"
PROBLEMS = {
    **examples.PROBLEM_TEXT,
    403: "forbidden, or insufficient_scope: the API key lacks the scope this needs",
    404: "not_found: no such account, key or challenge",
    409: "name_taken, or challenge_closed: the challenge started, expired, was declined or canceled",
}


#: The operations that need an account's key, which is asked for before anything in the request is read.
KEYED = {("accounts.ChallengeList", "POST"), ("accounts.Accept", "POST"), ("accounts.Decline", "POST"),
         ("accounts.Cancel", "POST"), ("accounts.Keys", "GET"), ("accounts.Keys", "POST"), ("accounts.Key", "DELETE"),
         ("accounts.Me", "GET"), ("accounts.AccountEvents", "GET"), ("accounts.AccountStream", "GET"),
         ("accounts.TournamentEntry", "GET"), ("accounts.TournamentEntry", "PUT")}


@blp.before_request
def _keys_first() -> None:
    """A request that needs a key and has none is 401 before its body or query is read."""
    if (request.endpoint, request.method) in KEYED and "Authorization" not in request.headers:
        raise Unauthorized("this needs 'Authorization: Bearer KEY' with an account's API key")


@blp.before_request
def _bodies_are_json() -> None:
    """A body sent as anything but JSON is 415."""
    if request.method in ("POST", "PUT", "PATCH") and request.content_length and not request.is_json:
        raise UnsupportedMediaType("send the body as JSON, with the header Content-Type: application/json")


problems = examples.problems_documenter(blp, PROBLEMS, examples.ACCOUNT_PROBLEMS)


def caller(scope: str) -> Caller:
    """The account the request's key speaks for; it must hold ``scope``."""
    return service().accounts.required_caller(bearer_token(), scope)


def any_caller() -> Caller:
    """The account the request's key speaks for, whatever its scopes."""
    token = bearer_token()
    found = service().accounts.caller(token)
    if found is None:
        return service().accounts.required_caller(token, READ)  # (refused: no key, or a token that is none)
    return found


def challenges() -> Challenges:
    return Challenges(service())


# -- schemas -------------------------------------------------------------------------------
class CreateAccountSchema(Strict):
    name = fields.String(required=True, validate=Pattern(ACCOUNT_NAME),
                         metadata={"example": "deepcrait", "pattern": ACCOUNT_NAME})
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    description = fields.String(load_default="", validate=[validate.Length(max=MAX_DESCRIPTION), Pattern(LINE_PATTERN)],
                                metadata={"pattern": LINE_PATTERN})


class CreatedAccountSchema(ma.Schema):
    name = fields.String()
    kind = fields.String()
    key = fields.String(metadata={"description": "The account's first API key (Authorization: Bearer KEY); "
                                                 "shown once"})
    scopes = fields.List(fields.String())


class AccountGamesSchema(ma.Schema):
    played = fields.Integer(metadata={"description": "Games it played: those finished (not an aborted one, which "
                                                     "never began), and those it left (resigned, or its seat handed to "
                                                     "a house bot) from when it left"})
    current = fields.List(fields.String(), metadata={"description": "Ids of the games it plays now: not over, its "
                                                                    "seat not left"})


class FiguresSchema(ma.Schema):
    ordinal = fields.Float(metadata={"description": "μ − 3σ: what the leaderboard ranks by"})
    mu = fields.Float(metadata={"description": "openskill's μ (Plackett-Luce; 25 to begin with)"})
    sigma = fields.Float(metadata={"description": "openskill's σ (25/3 to begin with)"})
    games = fields.Integer(metadata={"description": "rated games finished"})
    wins = fields.Integer(metadata={"description": "rated games won (a game left is never won)"})
    last_played = Timestamp(metadata={"description": "when its last rated game finished"})
    last_game_id = fields.String()


class EnteredBy(fields.Field):
    """Who may enter a bot account in a tournament another account makes: "anyone", "nobody", or a list of the
    accounts that may (1 to 16 names)."""

    default_error_messages: ClassVar[dict[str, str]] = {
        "invalid": f'Not "{ANYONE}", "{NOBODY}" or a list of 1 to {MAX_ENTERED_BY} account names.'}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(metadata={
            "oneOf": [{"type": "string", "enum": [ANYONE, NOBODY]},
                      {"type": "array", "items": {"type": "string", "pattern": ACCOUNT_NAME}, "minItems": 1,
                       "maxItems": MAX_ENTERED_BY}],
            "description": "Who may enter the bot in a tournament another account makes: anyone (the default), "
                           "nobody, or the accounts named; it may always enter itself"}, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str | list[str]:
        if value in (ANYONE, NOBODY):
            return str(value)
        if isinstance(value, list) and 1 <= len(value) <= MAX_ENTERED_BY and all(
                isinstance(name, str) and re.fullmatch(ACCOUNT_NAME, name) for name in value):
            return list(value)
        raise self.make_error("invalid")


class TournamentEntryBodySchema(Strict):
    entered_by = EnteredBy(required=True)


class TournamentEntrySchema(ma.Schema):
    entered_by = EnteredBy()


class AccountSchema(ma.Schema):
    name = fields.String()
    kind = fields.String(validate=validate.OneOf(KINDS))
    description = fields.String()
    created_at = Timestamp()
    games = fields.Nested(AccountGamesSchema)
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(FiguresSchema), metadata={
        "description": "Its current rating in each game it played rated, by game (history: /v1/accounts/{name}/ratings)"})
    tournaments = fields.Nested(TournamentEntrySchema, metadata={
        "description": "Who may enter it in a tournament another account makes (a person: nobody; set with "
                       "PUT /v1/account/tournaments)"})
    webhook = fields.Dict(allow_none=True, metadata={
        "description": "A webhook bot's circuit: {online, offline_since, retry_at, failures_in_a_row}; absent "
                       "for other accounts"})


class KeySchema(ma.Schema):
    prefix = fields.String(metadata={"description": "How the key is listed and revoked (the key is never shown again)"})
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)))
    created_at = Timestamp()
    revoked_at = Timestamp(allow_none=True)


class NewKeySchema(KeySchema):
    key = fields.String(metadata={"description": "The new key; shown once"})


class KeysSchema(ma.Schema):
    keys = fields.List(fields.Nested(KeySchema))


class AddKeySchema(Strict):
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)), load_default=list(SCOPES),
                         validate=validate.Length(min=1, max=3))


class CreateChallengeSchema(Strict):
    game = fields.String(required=True, metadata={"example": "craits"})
    players = JsonInteger(required=True, metadata={"example": 2})
    options = fields.Dict(load_default=dict)
    to = fields.List(fields.String(validate=Pattern(ACCOUNT_NAME)), allow_none=True, load_default=None,
                     validate=validate.Length(max=16),
                     metadata={"description": "The accounts offered the other seats; null: open to anyone"})
    rated = JsonBoolean(load_default=False)
    expires_in = JsonInteger(load_default=DEFAULT_EXPIRY, validate=validate.Range(min=1, max=MAX_EXPIRY),
                             metadata={"description": "Seconds (default 60, at most a day)"})


class AcceptSchema(Strict):
    entropy = Entropy(load_default=None)


class DeclineSchema(Strict):
    reason = fields.String(load_default=None, allow_none=True, validate=[validate.Length(max=200), Pattern(LINE_PATTERN)],
                           metadata={"pattern": LINE_PATTERN})


class ChallengeSchema(ma.Schema):
    id = fields.String()
    status = fields.String(validate=validate.OneOf(("open", "started", "declined", "canceled", "expired")))
    challenger = fields.String()
    game = fields.String()
    players = fields.Integer()
    options = fields.Dict(metadata={"description": "Without those that fix chance (seed, decks), as the game hides them"})
    seeded = fields.Boolean(metadata={"description": "Whether the challenger fixed the game's seed"})
    stacked = fields.Boolean(metadata={"description": "Whether the challenger stacked the game's decks"})
    rated = fields.Boolean()
    to = fields.List(fields.String(), allow_none=True)
    accepted = fields.List(fields.String(), metadata={"description": "Who took a seat, seat by seat"})
    entropy = fields.List(fields.String(allow_none=True), metadata={
        "description": "The entropy each account in accepted added to the game's shuffles when it accepted (null: "
                       "none; the challenger's is null: its request drew the seed), seat by seat"})
    server_seed_hash = fields.String(allow_none=True, metadata={
        "description": "SHA-256 of the game's server seed, drawn when the challenge was made, before anyone added "
                       "entropy: its game's server_seed_hash (null for a seeded challenge: drawn when its game starts)"})
    game_id = fields.String(allow_none=True, metadata={"description": "Once every seat is accepted, its game"})
    reason = fields.String(allow_none=True)
    created_at = fields.String()
    expires_at = fields.String()


class ChallengesSchema(ma.Schema):
    challenges = fields.List(fields.Nested(ChallengeSchema))


def challenge_schema() -> dict[str, Any]:
    """A challenge's body as JSON Schema: a game's as it is created (one branch per game and player
    count), and to whom, rated, how long it stays open."""
    more = {"to": {"type": ["array", "null"], "items": {"type": "string", "pattern": ACCOUNT_NAME}, "maxItems": 16},
            "rated": {"type": "boolean"}, "expires_in": {"type": "integer", "minimum": 1, "maximum": MAX_EXPIRY}}
    branches = jsonschema.create_game_schema()["oneOf"]
    return {"oneOf": [{**branch, "properties": {**branch["properties"], **more}} for branch in branches]}


# -- routes --------------------------------------------------------------------------------
@blp.route("/accounts")
class Accounts(MethodView):
    @blp.doc(operationId="createAccount", security=[{"bearerAuth": []}, {}])
    @blp.arguments(CreateAccountSchema())
    @blp.response(201, CreatedAccountSchema)
    @problems(400, 401, 403, 409, 413, 415, 422)
    def post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Create an account and its first API key (shown once). Where sign-up is closed, an admin key may."""
        accounts = service().accounts
        created = accounts.create_account(body["name"], body["kind"], body["description"],
                                          accounts.caller(bearer_token()))
        return created, 201, {"Location": url_for("accounts.AccountPage", name=created["name"])}


@blp.route("/accounts/<account_name:name>")
class AccountPage(MethodView):
    @blp.doc(operationId="getAccount")
    @blp.response(200, AccountSchema)
    @problems(404)
    def get(self, name: str) -> dict[str, Any]:
        """An account: its kind, when it was made, the games it played and sits in now; a webhook bot's circuit."""
        found = service().accounts.account(name)
        webhooks = current_app.extensions.get("cardhall_webhooks")
        circuit = None if webhooks is None else webhooks.status(name)
        return found if circuit is None else {**found, "webhook": circuit}


@blp.route("/account")
class Me(MethodView):
    @blp.doc(operationId="getOwnAccount", security=BEARER)
    @blp.response(200, AccountSchema)
    @problems(401)
    def get(self) -> dict[str, Any]:
        """The account the API key speaks for (any scope)."""
        return service().accounts.account(any_caller().account.name)


@blp.route("/account/tournaments")
class TournamentEntry(MethodView):
    @blp.doc(operationId="getTournamentEntry", security=BEARER)
    @blp.response(200, TournamentEntrySchema)
    @problems(401)
    def get(self) -> dict[str, Any]:
        """Who may enter the account in a tournament another account makes (any scope; a person: nobody)."""
        return service().accounts.account(any_caller().account.name)["tournaments"]

    @blp.doc(operationId="putTournamentEntry", security=BEARER)
    @blp.arguments(TournamentEntryBodySchema())
    @blp.response(200, TournamentEntrySchema)
    @problems(400, 401, 403, 404, 413, 415, 422)
    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        """Choose who may enter the bot account in a tournament another account makes (scope ``play``):
        ``"anyone"`` (the default), ``"nobody"``, or a list of account names (404 for one that is no account).
        A tournament naming it made by an account it does not let is refused (403 ``forbidden``); it may always
        enter itself. Whatever it chooses, it is in at most 4 running tournaments other accounts made."""
        return service().accounts.set_entered_by(caller(PLAY), body["entered_by"])


@blp.route("/account/keys")
class Keys(MethodView):
    @blp.doc(operationId="listKeys", security=BEARER)
    @blp.response(200, KeysSchema)
    @problems(401, 403)
    def get(self) -> dict[str, Any]:
        """The account's keys by prefix (scope ``read``): the live ones and the 20 revoked last."""
        return service().accounts.keys(caller(READ))

    @blp.doc(operationId="addKey", security=BEARER)
    @blp.arguments(AddKeySchema())
    @blp.response(201, NewKeySchema)
    @problems(400, 401, 403, 413, 415, 422)
    def post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """A new key for the account (shown once), with no scope the calling key lacks; an account holds at most
        20 live keys (422 ``validation_error``)."""
        return service().accounts.add_key(any_caller(), body["scopes"]), 201


@blp.route("/account/keys/<id:prefix>")
class Key(MethodView):
    @blp.doc(operationId="revokeKey", security=BEARER)
    @blp.response(204)
    @problems(401, 403, 404)
    def delete(self, prefix: str) -> tuple[str, int]:
        """Revoke a key: itself, or one whose every scope the calling key holds. Refused at once by every worker."""
        service().accounts.revoke_key(any_caller(), prefix)
        return "", 204


@blp.route("/account/events")
class AccountEvents(MethodView):
    @blp.doc(operationId="getAccountEvents", security=BEARER)
    @blp.arguments(AccountEventsQuerySchema(), location="query")
    @blp.arguments(AccountHeadersSchema(), location="headers")
    @blp.response(200, AccountEventsSchema)
    @problems(401, 403, 422, 503)
    def get(self, query: dict[str, Any], headers: dict[str, Any]) -> dict[str, Any]:
        """The account's events after ``after`` (scope ``read``); ``wait`` holds the request until there is one."""
        # (with ``wait`` the ASGI app answers, api.account_stream: this is the read without it)
        caller = service().accounts.required_caller(bearer_token(), READ)
        after = headers.get("last_event_id", 0) if query["after"] is None else query["after"]
        return page(service().accounts.events(caller.key, after, query["limit"]), after)


@blp.route("/account/stream")
class AccountStream(MethodView):
    @blp.doc(operationId="streamAccountEvents", security=BEARER)
    @blp.arguments(AccountStreamQuerySchema(), location="query")
    @blp.arguments(AccountHeadersSchema(), location="headers")
    @blp.response(200, SSE_ACCOUNT_EVENT, content_type="text/event-stream",
                  description="Server-Sent Events: id = the event's id, event = its type, data = the event as JSON; "
                              "a ': keep-alive' comment at least every 10 s")
    @problems(401, 403, 422, 503)
    def get(self, query: dict[str, Any], headers: dict[str, Any]) -> Response:
        """The account's events as Server-Sent Events (scope ``read``), resuming after ``Last-Event-ID``.
        An account holds a few streams open at once: a new one past that closes its oldest."""
        raise NotServedHere("event streams are served by the ASGI app (api.asgi), not by the Flask app alone")


@blp.route("/challenges")
class ChallengeList(MethodView):
    @blp.doc(operationId="listChallenges", security=[{"bearerAuth": []}, {}])
    @blp.response(200, ChallengesSchema)
    @problems(401)
    def get(self) -> dict[str, Any]:
        """Open challenges any account may accept, newest first.

        Those whose ``to`` is null; asked with an account's key (of any scope), the open challenges naming the
        account come first: a challenge naming accounts is listed to them alone (and told on their streams)."""
        return challenges().listing(service().accounts.caller(bearer_token()))

    @blp.doc(operationId="createChallenge", security=BEARER)
    @blp.arguments(CreateChallengeSchema())
    @blp.doc(requestBody={"content": {"application/json": {"schema": challenge_schema()}}})
    @blp.response(201, ChallengeSchema)
    @problems(400, 401, 403, 404, 413, 415, 422)
    def post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Offer a game to named accounts, or to anyone (scope ``create``); it starts when every seat is accepted.
        An account has at most 20 open challenges at once (422 ``validation_error``)."""
        created = challenges().create(caller(CREATE), body["game"], body["players"], body["options"], body["to"],
                                      body["rated"], body["expires_in"])
        return created, 201, {"Location": url_for("accounts.ChallengeOne", challenge_id=created["id"])}


@blp.route("/challenges/<id:challenge_id>")
class ChallengeOne(MethodView):
    @blp.doc(operationId="getChallenge")
    @blp.response(200, ChallengeSchema)
    @problems(404)
    def get(self, challenge_id: str) -> dict[str, Any]:
        """A challenge, whatever its status."""
        return challenges().get(challenge_id)


@blp.route("/challenges/<id:challenge_id>/accept")
class Accept(MethodView):
    @blp.doc(operationId="acceptChallenge", security=BEARER)
    @blp.arguments(AcceptSchema(), required=False)
    @blp.response(200, ChallengeSchema)
    @problems(400, 401, 403, 404, 409, 413, 415, 422)
    def post(self, body: dict[str, Any], challenge_id: str) -> dict[str, Any]:
        """Take a seat of the challenge (scope ``play``), adding ``entropy`` to its game's shuffles; the last seat
        creates and starts the game (``game_id``). A challenge no longer open, or whose last seat another account
        took first, is 409 ``challenge_closed``."""
        return challenges().accept(caller("play"), challenge_id, body["entropy"])


@blp.route("/challenges/<id:challenge_id>/decline")
class Decline(MethodView):
    @blp.doc(operationId="declineChallenge", security=BEARER)
    @blp.arguments(DeclineSchema())
    @blp.response(200, ChallengeSchema)
    @problems(400, 401, 403, 404, 409, 413, 415, 422)
    def post(self, body: dict[str, Any], challenge_id: str) -> dict[str, Any]:
        """Decline a challenge offered to this account by name (scope ``play``), with an optional reason."""
        return challenges().decline(caller("play"), challenge_id, body["reason"])


@blp.route("/challenges/<id:challenge_id>/cancel")
class Cancel(MethodView):
    @blp.doc(operationId="cancelChallenge", security=BEARER)
    @blp.response(200, ChallengeSchema)
    @problems(401, 403, 404, 409)
    def post(self, challenge_id: str) -> dict[str, Any]:
        """Withdraw one's own challenge (scope ``create``)."""
        return challenges().cancel(caller(CREATE), challenge_id)

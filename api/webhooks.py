"""Webhooks: a bot account's webhook, an account's subscription, and a game's calls of webhook bots."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import Flask, current_app, request
from flask.views import MethodView
from marshmallow import fields, validate

from api.accounts import BEARER, _bodies_are_json, caller, problems
from api.parsing import Blueprint
from api.schemas import TEXT_PATTERN, JsonInteger, Pattern, Strict
from service.accounts import PLAY, READ
from service.errors import Unauthorized, Unavailable
from service.games import GameService
from service.webhook_delivery import attach
from service.webhooks import BOT, SUBSCRIBABLE, SUBSCRIPTIONS, Webhooks

blp = Blueprint("webhooks", __name__, url_prefix="/v1",
                description="Webhook bots (their seats played by calling them) and subscriptions for integrators.")

SIGNED = ("Signed as Standard Webhooks specifies (webhook-id, webhook-timestamp, webhook-signature) with the "
          "secret shown once here; see docs/api.md, \"Webhooks\".")


def install(app: Flask, games: GameService, options: dict[str, Any]) -> None:
    """The app's webhooks (SQL stores only), and the delivery its ASGI app starts (unless ``scan_seconds`` is 0)."""
    webhooks, delivery = attach(games, options)
    if webhooks is not None:
        app.extensions["cardhall_webhooks"] = webhooks
    if delivery is not None:
        app.extensions["cardhall_delivery"] = delivery


def webhooks() -> Webhooks:
    found = current_app.extensions.get("cardhall_webhooks")
    if found is None:
        raise Unavailable("webhooks need a SQL database (SQLite or PostgreSQL)")
    return found


@blp.before_request
def _keys_first() -> None:
    """A request about one's own webhook or subscription without a key is 401 before its body is read."""
    if request.path.startswith("/v1/account/") and "Authorization" not in request.headers:
        raise Unauthorized("this needs 'Authorization: Bearer KEY' with an account's API key")


blp.before_request(_bodies_are_json)  # (else a URL sent as text or a form was read as no body: 422 "missing url")


# -- schemas -------------------------------------------------------------------------------
class WebhookBodySchema(Strict):
    url = fields.String(required=True, validate=[validate.Length(min=1, max=2000), Pattern(TEXT_PATTERN)],
                        metadata={"example": "https://bot.example/cardhall"})
    timeout_ms = JsonInteger(load_default=1000, validate=validate.Range(min=100, max=60_000),
                             metadata={"description": "How long a call may take (capped by the turn's deadline)"})
    concurrency = JsonInteger(load_default=8, validate=validate.Range(min=1, max=1000),
                              metadata={"description": "At most this many calls (one a game) under way at once"})


class CircuitFields(ma.Schema):
    online = fields.Boolean(metadata={"description": "False while its circuit is open: its turns go to the clock"})
    offline_since = fields.String(allow_none=True)
    retry_at = fields.String(allow_none=True, metadata={"description": "When an offline bot is tried again"})
    failures_in_a_row = fields.Integer()


class WebhookSchema(CircuitFields):
    url = fields.String()
    timeout_ms = fields.Integer()
    concurrency = fields.Integer()
    created_at = fields.String()


class NewWebhookSchema(WebhookSchema):
    secret = fields.String(metadata={"description": "whsec_…: the signing secret, shown once"})


class SecretSchema(ma.Schema):
    secret = fields.String(metadata={"description": "whsec_…: the new signing secret, shown once"})
    previous_expires_at = fields.String(metadata={"description": "Until then the secret before it signs too"})


class SubscriptionBodySchema(Strict):
    url = fields.String(required=True, validate=[validate.Length(min=1, max=2000), Pattern(TEXT_PATTERN)],
                        metadata={"example": "https://integrator.example/cardhall"})
    events = fields.List(fields.String(validate=validate.OneOf(list(SUBSCRIBABLE))), required=True,
                         validate=validate.Length(min=1, max=len(SUBSCRIBABLE)))


class SubscriptionSchema(ma.Schema):
    url = fields.String()
    events = fields.List(fields.String())
    created_at = fields.String()


class NewSubscriptionSchema(SubscriptionSchema):
    secret = fields.String(metadata={"description": "whsec_…: the signing secret, shown once"})


class CallSchema(ma.Schema):
    version = fields.Integer(metadata={"description": "The turn's version (0: /start or /end)"})
    seat = fields.Integer()
    kind = fields.String(validate=validate.OneOf(("start", "move", "end")))
    account = fields.String()
    calls = fields.Integer(metadata={"description": "How many times the call was claimed (a process died in one)"})
    outcome = fields.String(allow_none=True, metadata={
        "description": "played, illegal, invalid, late, failed (its turn then went to the clock), answered; "
                       "null while under way"})
    latency_ms = fields.Integer(allow_none=True, metadata={"description": "The bot's time to answer"})


class CallsSchema(ma.Schema):
    calls = fields.List(fields.Nested(CallSchema))


# -- routes --------------------------------------------------------------------------------
@blp.route("/account/webhook")
class Webhook(MethodView):
    @blp.doc(operationId="putWebhook", security=BEARER)
    @blp.arguments(WebhookBodySchema())
    @blp.response(200, NewWebhookSchema)
    @problems(400, 401, 403, 413, 415, 422)
    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        """Make the bot account a webhook bot (scope ``play``): its seats are played by calling
        ``POST {url}/start``, ``/move``, ``/end``. The URL is checked now (https, a public address) and at
        every call. """ + SIGNED
        return webhooks().register(caller(PLAY), body["url"], body["timeout_ms"], body["concurrency"])

    @blp.doc(operationId="getWebhook", security=BEARER)
    @blp.response(200, WebhookSchema)
    @problems(401, 403, 404)
    def get(self) -> dict[str, Any]:
        """The account's webhook and its circuit (never its secret)."""
        return webhooks().webhook(caller(PLAY))

    @blp.doc(operationId="deleteWebhook", security=BEARER)
    @blp.response(204)
    @problems(401, 403, 404)
    def delete(self) -> tuple[str, int]:
        """The account plays by its key again: its webhook and secrets are gone."""
        webhooks().unregister(caller(PLAY))
        return "", 204


@blp.route("/account/webhook/rotate")
class RotateWebhook(MethodView):
    @blp.doc(operationId="rotateWebhookSecret", security=BEARER)
    @blp.response(200, SecretSchema)
    @problems(401, 403, 404)
    def post(self) -> dict[str, Any]:
        """A new secret for the webhook (shown once); the one before it signs too until ``previous_expires_at``."""
        return webhooks().rotate(caller(PLAY), BOT)


@blp.route("/account/subscriptions")
class Subscriptions(MethodView):
    @blp.doc(operationId="putSubscription", security=BEARER)
    @blp.arguments(SubscriptionBodySchema())
    @blp.response(200, NewSubscriptionSchema)
    @problems(400, 401, 403, 413, 415, 422)
    def put(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send the account's events to ``url`` from now on (scope ``read``): at least once, retried with
        exponential back-off for up to 24 h, each delivery with a stable ``webhook-id``. """ + SIGNED
        return webhooks().subscribe(caller(READ), body["url"], body["events"])

    @blp.doc(operationId="getSubscription", security=BEARER)
    @blp.response(200, SubscriptionSchema)
    @problems(401, 403, 404)
    def get(self) -> dict[str, Any]:
        """The account's subscription (never its secret)."""
        return webhooks().subscription(caller(READ))

    @blp.doc(operationId="deleteSubscription", security=BEARER)
    @blp.response(204)
    @problems(401, 403, 404)
    def delete(self) -> tuple[str, int]:
        """Stop sending the account's events."""
        webhooks().unsubscribe(caller(READ))
        return "", 204


@blp.route("/account/subscriptions/rotate")
class RotateSubscription(MethodView):
    @blp.doc(operationId="rotateSubscriptionSecret", security=BEARER)
    @blp.response(200, SecretSchema)
    @problems(401, 403, 404)
    def post(self) -> dict[str, Any]:
        """A new secret for the subscription (shown once); the one before it signs too until ``previous_expires_at``."""
        return webhooks().rotate(caller(READ), SUBSCRIPTIONS)


@blp.route("/games/<game_id:game_id>/webhook-calls")
class Calls(MethodView):
    @blp.doc(operationId="getWebhookCalls")
    @blp.response(200, CallsSchema)
    @problems(404)
    def get(self, game_id: str) -> dict[str, Any]:
        """The game's calls of webhook bots: each turn's outcome and the bot's latency."""
        return webhooks().calls(game_id)

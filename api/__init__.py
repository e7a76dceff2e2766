"""The HTTP layer: flask-smorest blueprints over the game service. No rules here."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import threading
from typing import Any

from flask import Flask, Response
from flask.json.provider import DefaultJSONProvider
from flask_smorest import Api

from api import assets, errors, limits, metrics, parsing, requestlog
from api.followers import Followers
from api.schemas import ProblemSchema
from service.games import GameService
from service.timestamps import timestamp
from service.tournaments import Tournaments


class CardhallApi(Api):
    """flask-smorest's Api, with problem+json as the documented error shape, whose blueprints' views go
    into the OpenAPI document when the document is first read (``/openapi.*``, ``/docs``), not when
    the app is made: documenting them deep-copies every schema, about two thirds of making an app."""

    ERROR_SCHEMA = ProblemSchema
    DEFAULT_ERROR_RESPONSE_NAME = None

    def __init__(self, app: Flask) -> None:
        self._undocumented: list[tuple[Any, str, Any]] = []  # (blueprint, name, path parameters)
        self._documenting = threading.Lock()
        super().__init__(app)

    @property
    def spec(self) -> Any:
        """The OpenAPI document, every registered blueprint's views in it."""
        if self._undocumented:
            with self._documenting:
                while self._undocumented:
                    blp, name, parameters = self._undocumented[0]
                    blp.register_views_in_doc(self, self._app, self._spec, name=name, parameters=parameters)
                    self._spec.tag({"name": name, "description": blp.description})
                    if name == "games":
                        _add_links(self._spec)
                    self._undocumented.pop(0)
        return self._spec

    @spec.setter
    def spec(self, value: Any) -> None:
        self._spec = value

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        """Route ``blp`` now, document it when the document is first read (as flask-smorest's own does both)."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        with self._documenting:
            self._undocumented.append((blp, name, parameters))

    def _register_responses(self) -> None:
        from flask_smorest.spec import prepare_response

        for status in (400, 401, 403, 404, 409, 412, 413, 422, 429, 503):
            response = {"description": errors.CODE_OF_STATUS.get(status, "error"), "schema": ProblemSchema}
            prepare_response(response, self.spec, errors.PROBLEM)
            self.spec.components.response(str(status), response, lazy=True)

    def _register_error_handlers(self) -> None:
        errors.register(self._app)


def package_version() -> str:
    """Cardhall's version as installed (the OpenAPI document's ``info.version`` is the package's)."""
    try:
        return importlib.metadata.version("cardhall")
    except importlib.metadata.PackageNotFoundError:  # (run from a checkout without installing it)
        return "0+unknown"


SETTINGS = {
    "API_TITLE": "Cardhall",
    "API_VERSION": package_version(),
    "OPENAPI_VERSION": "3.1.0",
    "OPENAPI_URL_PREFIX": "/",
    "OPENAPI_JSON_PATH": "openapi.json",
    "OPENAPI_SWAGGER_UI_PATH": "/docs",
    "OPENAPI_SWAGGER_UI_URL": assets.SWAGGER_UI_URL,
    # Swagger UI would otherwise send the document to an outside validator for its badge.
    "OPENAPI_SWAGGER_UI_CONFIG": {"validatorUrl": None},
    "API_SPEC_OPTIONS": {
        "info": {
            "description": "Card games as a service: Craits and Scat (31) for bots and people. "
            "Every move is an event; every view is a replay of the log. Errors are "
            "application/problem+json with a stable `code` (and `rule` for an illegal move).",
        },
        "components": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
    },
    "CARDHALL_SSE_HEARTBEAT": 15.0,
    "CARDHALL_STREAM_MAX": 3600.0,
    "CARDHALL_ACCOUNT_HEARTBEAT": 10.0,  # (api.account_stream: a keep-alive at least every 10 s)
    "CARDHALL_ACCOUNT_STREAMS": 4,  # streams an account holds open in a process; a new one closes the oldest
    "CARDHALL_MAX_FOLLOWERS": 16,  # (cardhall serve: --max-followers, see api.followers)
    "CARDHALL_MAX_FOLLOWERS_PER_CLIENT": None,  # (--max-followers-per-client; None: as many as the process takes)
    "CARDHALL_RATE_LIMIT": limits.DEFAULT_LIMIT,  # or "off" (see api.limits)
    "CARDHALL_CREATE_RATE_LIMIT": limits.DEFAULT_CREATE_LIMIT,
    "CARDHALL_READ_RATE_LIMIT": limits.DEFAULT_READ_LIMIT,  # events of games' logs a client may read
    "CARDHALL_ACCOUNT_RATE_LIMIT": limits.DEFAULT_ACCOUNT_LIMIT,  # accounts a client (an address) may create
    "CARDHALL_ACCOUNTS": "open",  # or "closed": creating an account needs an admin key (cardhall serve --accounts)
    "CARDHALL_RATE_LIMIT_STORAGE": "memory://",  # (cardhall serve: a shared file with several workers)
    "CARDHALL_LEADERBOARD_MIN_GAMES": 10,  # rated games an account needs to be on a leaderboard
    "CARDHALL_POOL_MOVE_SECONDS": {},  # each pool's clock, by game ("": every pool's; service.pools.pool_clocks)
    # (service.webhooks; cardhall serve: --webhook-*, --webhooks-allow-private; scan_seconds 0: no delivery)
    "CARDHALL_WEBHOOK_OPTIONS": {"allow_private": False, "failures_to_open": 5, "retry_seconds": 30.0,
                                 "rotation_seconds": 86_400.0, "scan_seconds": 0.0, "subscription_retry_seconds": 5.0},
    "MAX_CONTENT_LENGTH": 64 << 10,  # the contract's limit on a body, chunked ones included
}


class JsonProvider(DefaultJSONProvider):
    """The app's JSON: compact, keys in the order given, every moment as Cardhall writes one (service.timestamps;
    Flask's own writes an HTTP date)."""

    sort_keys = False

    @staticmethod
    def default(value: Any) -> Any:
        return timestamp(value) if isinstance(value, dt.datetime) else DefaultJSONProvider.default(value)


def create_app(games: GameService, **config: Any) -> Flask:
    """The WSGI app serving ``games``."""
    import web
    from api import accounts as account_routes
    from api import games as games_routes
    from api import health
    from api import ladder as ladder_routes
    from api import records as records_routes
    from api import webhooks as webhook_routes

    app = Flask("cardhall")
    app.config.update(SETTINGS)
    app.config.update(config)
    app.json = JsonProvider(app)
    app.extensions["cardhall"] = games
    games.accounts.open_signup = str(app.config["CARDHALL_ACCOUNTS"]).strip().lower() == "open"  # (else closed)
    per_client = app.config["CARDHALL_MAX_FOLLOWERS_PER_CLIENT"]
    app.extensions["cardhall_followers"] = Followers(int(app.config["CARDHALL_MAX_FOLLOWERS"]),
                                                     None if per_client is None else int(per_client),
                                                     metrics.followers_counted)
    app.url_map.converters.update({name: converter for name, (converter, _) in parsing.CONVERTERS.items()})
    requestlog.install(app)  # (first: every answer has its id, a refusal by the checks below or the limiter too)
    app.before_request(parsing.refuse_oversized_head)
    api = CardhallApi(app)
    for converter, schema in parsing.CONVERTERS.values():
        api.register_converter(converter, schema)
    app.extensions["cardhall_api"] = api
    api.register_blueprint(games_routes.blp)
    api.register_blueprint(account_routes.blp)
    api.register_blueprint(ladder_routes.blp)
    api.register_blueprint(health.blp)
    api.register_blueprint(records_routes.blp)
    api.register_blueprint(webhook_routes.blp)
    webhook_routes.install(app, games, app.config["CARDHALL_WEBHOOK_OPTIONS"])
    app.register_blueprint(assets.blp)
    limits.install(app)
    metrics.install(app)
    # (the page of an unknown game, game type, account or tournament is a 404 page)
    app.config["CARDHALL_GAME_EXISTS"] = games.exists
    app.config["CARDHALL_GAME_TYPE_EXISTS"] = games.is_game_type
    app.config["CARDHALL_ACCOUNT_EXISTS"] = games.accounts.exists
    app.config["CARDHALL_TOURNAMENT_EXISTS"] = Tournaments(games).exists
    app.register_blueprint(web.blueprint)
    _allow_origins(app, app.config.get("CARDHALL_CORS_ORIGINS") or [])
    return app


#: What other sites' scripts may send and read, beyond what CORS always allows.
CORS_REQUEST_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "Last-Event-ID"]
CORS_RESPONSE_HEADERS = ["ETag", "Location", "Retry-After", "Idempotent-Replayed",
                         "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]


def _allow_origins(app: Flask, origins: list[str]) -> None:
    """Let scripts of these other sites call the API and its streams (none by default).

    Tokens travel in the Authorization header, never in cookies: no credentials mode is needed.
    """
    if not origins:
        return
    from flask_cors import CORS

    CORS(app, resources={r"/v1/*": {}, "/healthz": {}, "/openapi.*": {}}, origins=origins,
         allow_headers=CORS_REQUEST_HEADERS, expose_headers=CORS_RESPONSE_HEADERS, max_age=600)
    app.after_request(_vary_by_origin)


def _vary_by_origin(response: Response) -> Response:
    """With origins allowed, every answer depends on the request's ``Origin`` (flask-cors says so only
    on answers to an allowed one): a cache must not give one site's answer to another, or to a page of
    this one, e.g. a finished game's log, which may be kept a year."""
    response.vary.add("Origin")
    return response


def _add_links(spec: Any) -> None:
    """OpenAPI links from a created game to what its id leads to (flask-smorest has no decorator for them)."""
    from api.games import GAME_LINKS

    created = spec._paths["/v1/games"]["post"]["responses"]["201"]
    created["links"] = GAME_LINKS

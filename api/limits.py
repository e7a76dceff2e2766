"""Rate limits per client (flask-limiter): the bearer token, else the address.

Every answer under a limit carries ``RateLimit-Limit``, ``RateLimit-Remaining`` and
``RateLimit-Reset``; past it the client gets 429 ``rate_limited`` with ``Retry-After``
(the problem itself is made in ``api.errors``, like every other).

- ``CARDHALL_RATE_LIMIT``: each client's requests, all routes together (a flask-limiter
  string, e.g. ``50/second;1500/minute``), or ``off`` (benchmarks, tests). A token is
  a client of its own, so that several bots behind one address each get the limit;
  so that inventing tokens buys nothing, each address also has
  :data:`ADDRESS_FACTOR` times the limit across all its tokens.
- ``CARDHALL_CREATE_RATE_LIMIT``: games a client may create.
- ``CARDHALL_RATE_LIMIT_STORAGE``: where counters live: ``memory://`` (one process) or
  ``cardhall+sqlite:///path`` (several workers on one host; ``cardhall serve`` picks it).

House bots never meet a limit: their turns are played inside the request that gives
them the turn, never as requests of their own. Liveness and the API's description
are never limited.
"""

from __future__ import annotations

import hashlib
import math
import time

from flask import Flask, Response, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.util import get_remote_address
from limits import parse_many

from api.followers import woken

#: A fair bot's rate is a few requests a second, bursts of its moves' answers included.
DEFAULT_LIMIT = "50/second;1500/minute"
DEFAULT_CREATE_LIMIT = "120/minute"
ADDRESS_FACTOR = 5
UNLIMITED_ENDPOINTS = ("health.Health", "health.OpenApiYaml", "api-docs.openapi_json", "api-docs.openapi_swagger_ui",
                       "metrics.scrape")


def client_key() -> str:
    """The client a request counts against: its bearer token (hashed), else its address."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return "token:" + hashlib.sha256(token.strip().encode()).hexdigest()[:32]
    return "address:" + get_remote_address()


def address_key() -> str:
    return "address:" + get_remote_address()


def scaled(spec: str, factor: int) -> str:
    """``spec`` with every amount multiplied by ``factor``."""
    return ";".join(f"{item.amount * factor}/{item.multiples} {item.GRANULARITY.name}" for item in parse_many(spec))


def _unlimited() -> bool:
    """Liveness, the API's description, metrics; and a long-poll's second run (counted at its first)."""
    return request.endpoint in UNLIMITED_ENDPOINTS or woken()


def enabled(app: Flask) -> bool:
    """Whether the app's config limits each client's requests."""
    return str(app.config["CARDHALL_RATE_LIMIT"]).strip().lower() != "off"


def install(app: Flask) -> Limiter | None:
    """Limit the app's requests as its config says; None when limits are off."""
    if not enabled(app):
        return None
    spec = str(app.config["CARDHALL_RATE_LIMIT"]).strip()
    limiter = Limiter(
        client_key,
        app=app,
        application_limits=[
            ApplicationLimit(spec, key_function=client_key, scope="client", exempt_when=_unlimited),
            ApplicationLimit(scaled(spec, ADDRESS_FACTOR), key_function=address_key, scope="address",
                             exempt_when=_unlimited),
        ],
        storage_uri=app.config["CARDHALL_RATE_LIMIT_STORAGE"],
        headers_enabled=False,  # (its own put Retry-After on every answer and RateLimit-Reset as a time: see below)
    )
    create = app.view_functions["games.Games"]
    app.view_functions["games.Games"] = limiter.limit(app.config["CARDHALL_CREATE_RATE_LIMIT"], methods=["POST"],
                                                      key_func=client_key)(create)
    app.after_request(lambda response: _headers(limiter, response))
    return limiter


def _headers(limiter: Limiter, response: Response) -> Response:
    """The limit nearest to being met: ``RateLimit-Limit``, ``-Remaining``, ``-Reset`` (seconds until
    the window starts again); on a 429, ``Retry-After`` (the same seconds)."""
    current = limiter.current_limit
    if current is None:
        return response
    reset = max(1, math.ceil(current.reset_at - time.time()))
    response.headers["RateLimit-Limit"] = str(current.limit.amount)
    response.headers["RateLimit-Remaining"] = str(current.remaining)
    response.headers["RateLimit-Reset"] = str(reset)
    if response.status_code == 429:
        response.headers["Retry-After"] = str(reset)
    return response

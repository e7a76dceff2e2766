"""Rate limits per client (flask-limiter): the bearer token, else the address.

Every answer under a limit carries ``RateLimit-Limit``, ``RateLimit-Remaining`` and
``RateLimit-Reset``; past it the client gets 429 ``rate_limited`` with ``Retry-After``
(the problem itself is made in ``api.errors``, like every other).

- ``CARDHALL_RATE_LIMIT``: each client's requests, all routes together (a flask-limiter
  string, e.g. ``50/second;1500/minute``), or ``off`` (benchmarks, tests). A token this
  server gave out (a seat's token, or an account's key not revoked) is a client of its own,
  so that several bots behind one address each get the limit; any other token (invented,
  mistyped) counts as no token, against its address, so that inventing tokens buys nothing;
  and each address also has :data:`ADDRESS_FACTOR` times the limit across all its tokens.
- ``CARDHALL_CREATE_RATE_LIMIT``: games a client may create.
- ``CARDHALL_READ_RATE_LIMIT``: the events a client may read of games' logs, apart from its
  count of requests: a page of events and a game's record are charged the events they hold, a
  view at a past version (a replay from the snapshot before it) :data:`PAST_VIEW_EVENTS`, once
  answered (:func:`charge_read`). A request is as cheap for the request limit whether it reads
  10 events or 1,000, but not for the worker, which reads and encodes every one of them: a
  client paging through long games in a loop would otherwise take a worker's CPU from
  everyone else's moves (issue 37, class 2). A client past its read budget is refused those
  reads (429) and may still move.
- ``CARDHALL_ACCOUNT_RATE_LIMIT``: accounts an address may create (counted by address: a new
  account's key would otherwise be a new client).
- ``CARDHALL_RATE_LIMIT_STORAGE``: where counters live: ``memory://`` (one process) or
  ``cardhall+sqlite:///path`` (several workers on one host; ``cardhall serve`` picks it; :mod:`api.ratelimits`).

House bots never meet a limit: their turns are played inside the request that gives
them the turn, never as requests of their own. Liveness and the API's description
are never limited.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict

from flask import Flask, Response, g, request
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from flask_limiter.util import get_remote_address
from limits import parse_many

from api import ratelimits  # noqa: F401  (registers the storage cardhall+sqlite:// with the limits library)
from api.context import service
from service.tables import SNAPSHOT_EVERY

#: A fair bot's rate is a few requests a second, bursts of its moves' answers included.
DEFAULT_LIMIT = "50/second;1500/minute"
DEFAULT_CREATE_LIMIT = "120/minute"
DEFAULT_ACCOUNT_LIMIT = "5/minute;20/day"
#: Events read: a bot catching up after each move reads tens; a person stepping through a finished game
#: in the browser, a past view (PAST_VIEW_EVENTS) a step; a page of a long game's log, a thousand.
DEFAULT_READ_LIMIT = "10000/second;100000/minute"
#: What a view at a past version is charged, in events: at most this many are replayed from the snapshot before it.
PAST_VIEW_EVENTS = SNAPSHOT_EVERY
#: The routes that read games' logs, charged against the read limit (the others are exempt from it).
READ_ENDPOINTS = ("games.Events", "games.State", "records.GameRecord", "records.Records", "records.Replay")
ADDRESS_FACTOR = 5
UNLIMITED_ENDPOINTS = ("health.Health", "health.OpenApiYaml", "api-docs.openapi_json", "api-docs.openapi_swagger_ui",
                       "metrics.scrape")


def client_key() -> str:
    """The client a request counts against: its bearer token (hashed) if this server gave it out, else its address."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and (token := token.strip()) and _given_out(token):
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return "address:" + get_remote_address()


#: Whether tokens are this server's, as found a while ago: asking again for each request would be a read of the
#: database each (an account's key is looked up by the request itself too; one who invents tokens asks with a
#: new one each time). A token given out since is a client of its own, and a key revoked since no longer one,
#: once its entry is past SEEN_SECONDS (the key itself is refused at once: this is only whom a request counts for).
_seen: OrderedDict[str, tuple[bool, float]] = OrderedDict()
_seen_lock = threading.Lock()
SEEN_SECONDS, SEEN_KEPT = 10.0, 10_000


def _given_out(token: str) -> bool:
    now = time.monotonic()
    with _seen_lock:
        seen = _seen.get(token)
        if seen is not None and now - seen[1] < SEEN_SECONDS:
            return seen[0]
    given = service().is_token(token)
    with _seen_lock:
        _seen[token] = (given, now)
        _seen.move_to_end(token)
        while len(_seen) > SEEN_KEPT:
            _seen.popitem(last=False)
    return given


def charge_read(events: int) -> None:
    """Charge this request's client for ``events`` events read."""
    g.events_read = g.get("events_read", 0) + events


def _read_cost() -> int:
    """Before the request: whether an event is left to read (1); after it: the events it read."""
    return max(1, g.get("events_read", 0))


def _not_a_read() -> bool:
    return request.endpoint not in READ_ENDPOINTS


def address_key() -> str:
    return "address:" + get_remote_address()


def scaled(spec: str, factor: int) -> str:
    """``spec`` with every amount multiplied by ``factor``."""
    return ";".join(f"{item.amount * factor}/{item.multiples} {item.GRANULARITY.name}" for item in parse_many(spec))


def _unlimited() -> bool:
    """Liveness, the API's description, metrics."""
    return request.endpoint in UNLIMITED_ENDPOINTS


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
            ApplicationLimit(str(app.config["CARDHALL_READ_RATE_LIMIT"]).strip(), key_function=client_key,
                             scope="reads", exempt_when=_not_a_read, cost=_read_cost,
                             deduct_when=lambda _response: g.get("events_read", 0) > 0),
        ],
        storage_uri=app.config["CARDHALL_RATE_LIMIT_STORAGE"],
        headers_enabled=False,  # (its own put Retry-After on every answer and RateLimit-Reset as a time: see below)
    )
    create = app.view_functions["games.Games"]
    app.view_functions["games.Games"] = limiter.limit(app.config["CARDHALL_CREATE_RATE_LIMIT"], methods=["POST"],
                                                      key_func=client_key)(create)
    app.before_request(lambda: _keep_limits(limiter))  # (after the limiter's own check, which passed)
    accounts = app.view_functions["accounts.Accounts"]
    app.view_functions["accounts.Accounts"] = limiter.limit(app.config["CARDHALL_ACCOUNT_RATE_LIMIT"],
                                                            methods=["POST"], key_func=address_key)(accounts)
    # (first in the list, so run last: after the limiter's own hook has charged the reads this request made)
    app.after_request_funcs.setdefault(None, []).insert(0, lambda response: _headers(limiter, response))
    return limiter


def _keep_limits(limiter: Limiter) -> None:
    """The application's limits this request was counted against (the create limit, checked in its view,
    replaces them in the limiter's own record)."""
    g.rate_limits = list(limiter.current_limits)


def _headers(limiter: Limiter, response: Response) -> Response:
    """``RateLimit-Limit``, ``-Remaining``, ``-Reset`` (whole seconds until its window starts again) of
    the limit that refused the request, else of the limit nearest to being met (the fewest requests
    left); on a 429, ``Retry-After`` (the same seconds: when the refusing limit lets requests in again)."""
    counted = {(item.limit, tuple(item.request_args)): item for item in (*g.get("rate_limits", ()),
                                                                         *limiter.current_limits)}
    if not counted:
        return response
    now = time.time()
    refusing = [item for item in counted.values() if item.breached]
    if refusing:
        chosen = max(refusing, key=lambda item: _reset(item, now))
    else:
        chosen = min(counted.values(), key=lambda item: (item.remaining, _reset(item, now)))
    reset = _reset(chosen, now)
    response.headers["RateLimit-Limit"] = str(chosen.limit.amount)
    response.headers["RateLimit-Remaining"] = str(0 if chosen.breached else chosen.remaining)
    response.headers["RateLimit-Reset"] = str(reset)
    if response.status_code == 429:
        response.headers["Retry-After"] = str(reset)
    return response


def _reset(item: RequestLimit, now: float) -> int:
    """Whole seconds until ``item``'s window starts again (at least 1; a window of 1 s: 1)."""
    return max(1, math.ceil(item.window[0] - now))

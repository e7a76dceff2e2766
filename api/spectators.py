"""A spectator asking again for a game's next events, parked on the event loop without the app.

A follower that a long-poll has just answered asks again at once, and most often finds
nothing new yet: through the app that costs a whole request (routing, parsing, the
checks, a read of the log) only to wait. So the ASGI layer (:mod:`api.asgi`) takes
such a request itself when it is plainly well formed and, as far as this process has
heard, the game has nothing new for it:

- ``GET /v1/games/{id}/events`` without a token (a spectator), a conditional
  (``If-None-Match``) or an ``Origin`` (CORS is the app's); ``after``, ``limit`` and
  ``wait`` each at most once, in plain decimal, within the ranges the app accepts, and
  ``wait`` at least 1; a head within the app's limits;
- the game's table is in this process's cache at the newest version the process heard
  of, and not past ``after`` (:meth:`service.tables.TableCache.heard_quiet`): no read;
- per-client rate limits are off (with limits on, every request goes through the app,
  whose limiter counts it), and a follower slot is free (else the app answers 503).

It then waits like a long-poll the app handed over (:class:`api.followers.LongPoll`), and
is answered by the same page (:func:`api.games.woken_page`, read once for all who wait
alike), with a request id, an access line and its count by route, as from the app.
Anything else goes to the app, which decides as for any request.
"""

from __future__ import annotations

import re
import time
from typing import Any

from flask import Flask

from api import limits, metrics, requestlog
from api.followers import REQUEST_ID, LongPoll
from api.games import woken_page
from api.parsing import GAME_ID_PATTERN, MAX_HEADER_LINE, MAX_HEADERS
from api.schemas import MAX_VERSION
from service.errors import Unavailable

EVENTS_PATH = re.compile(rf"/v1/games/({GAME_ID_PATTERN})/events")
DECIMAL = re.compile(r"0|[1-9][0-9]{0,9}")
#: The query parameters taken here, and the ranges the app accepts for them (api.schemas.EventsQuerySchema).
RANGES = {b"after": (0, MAX_VERSION), b"limit": (1, 1000), b"wait": (1, 30)}
DEFAULTS = {b"after": 0, b"limit": 100}
#: Headers that make a request the app's to answer.
THE_APPS = {b"authorization", b"if-none-match", b"origin"}
ROUTE = "/v1/games/<game_id:game_id>/events"


class Spectators:
    """The spectators' repeated long-polls of one app, taken on the loop."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.games = app.extensions["cardhall"]
        self.followers = app.extensions["cardhall_followers"]
        self.on = not limits.enabled(app)

    def follow(self, scope: dict[str, Any]) -> LongPoll | None:
        """The long-poll this request is, to wait on the loop; None if it is the app's to answer."""
        if not self.on or scope["method"] != "GET" or (path := EVENTS_PATH.fullmatch(scope["path"])) is None:
            return None
        query = _query(scope["query_string"])
        if query is None or not _plain_head(scope["headers"]):
            return None
        game_id, after = path.group(1), query[b"after"]
        if self.games.cache.heard_quiet(game_id, after) is None:
            return None
        try:
            self.followers.take("long_poll")
        except Unavailable:
            return None
        identity = _request_id(scope["headers"])
        scope[REQUEST_ID] = identity  # (should the page fail, the app answers it under the same id)
        log = requestlog.access_line("GET", scope["path"], ROUTE, (scope.get("client") or (None,))[0], identity,
                                     time.perf_counter())
        count = metrics.request_count(ROUTE, "GET", self.games)

        def answered(status: int) -> None:
            log(status)
            count(status)

        return LongPoll(game_id, after, min(query[b"wait"], self.games.max_wait),
                        lambda: self.followers.give_back("long_poll"),
                        page=woken_page(self.app, self.games, game_id, None, after, query[b"limit"]),
                        answered=answered)


def _query(text: bytes) -> dict[bytes, int] | None:
    """``after``, ``limit`` and ``wait`` (with their defaults) if the query is plainly that, else None."""
    found: dict[bytes, int] = {}
    for pair in text.split(b"&") if text else ():
        name, _, value = pair.partition(b"=")
        if name not in RANGES or name in found or not DECIMAL.fullmatch(value.decode("latin-1")):
            return None
        low, high = RANGES[name]
        found[name] = int(value)
        if not low <= found[name] <= high:
            return None
    if b"wait" not in found:
        return None
    return {**DEFAULTS, **found}


def _plain_head(headers: list[tuple[bytes, bytes]]) -> bool:
    """No header that is the app's to answer, and a head within the app's limits."""
    return len(headers) <= MAX_HEADERS and all(
        name not in THE_APPS and len(name) + len(value) + 2 <= MAX_HEADER_LINE for name, value in headers)


def _request_id(headers: list[tuple[bytes, bytes]]) -> str:
    """The request's id, as :mod:`api.requestlog` gives it, from its ``X-Request-ID`` if any."""
    asked = next((value.decode("latin-1") for name, value in headers if name == b"x-request-id"), "")
    return requestlog.request_id_for(asked)

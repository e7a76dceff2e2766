"""``GET /metrics``: what an operator watches, as Prometheus text (prometheus-client).

With several worker processes ``cardhall serve`` sets ``PROMETHEUS_MULTIPROC_DIR`` (before
any worker imports this module), each worker writes its figures there and a scrape of any
worker adds them all up; gauges count live processes only. See docs/deploy.md for what
each metric means and what to alert on.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Blueprint, Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

from api.context import service
from service.games import GameService
from service.ratings import Finish

blueprint = Blueprint("metrics", __name__)

REQUESTS = Counter("cardhall_http_requests", "HTTP requests answered, by route, method and status",
                   ["route", "method", "status"])
MOVE_SECONDS = Histogram("cardhall_move_seconds", "Time to answer a move (POST /v1/games/{id}/moves), any status",
                         buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
APPENDS = Counter("cardhall_appends", "Appends requested through the API and made: games created, seats taken, moves",
                  ["kind"])
RATE_LIMITED = Counter("cardhall_rate_limited", "Requests refused for a rate limit (429)")
FOLLOWERS = Gauge("cardhall_followers_open", "Followers open now, by kind (long_poll, stream)", ["kind"],
                  multiprocess_mode="livesum")
FOLLOWERS_LIMIT = Gauge("cardhall_followers_limit", "Followers a process takes before it answers 503",
                        multiprocess_mode="livesum")
GAMES_CACHED = Gauge("cardhall_games_cached", "Games whose table is in a process's cache", multiprocess_mode="livesum")
POOL_IN_USE = Gauge("cardhall_db_pool_in_use", "Database connections checked out of the pools",
                    multiprocess_mode="livesum")
POOL_SIZE = Gauge("cardhall_db_pool_size", "Database connections the pools keep", multiprocess_mode="livesum")
RATING_LAG_SECONDS = Histogram("cardhall_rating_lag_seconds",
                               "From a rated game's end to its ratings (the leaderboards) changed, as the process that "
                               "applied it saw it",
                               buckets=(0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30))
FANOUT_SECONDS = Histogram("cardhall_wakeup_fanout_seconds",
                           "From a process hearing of an append to every follower of the game there woken",
                           buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1))
#: Endpoints whose success is an append, and its kind.
APPENDING = {("games.Games", "POST"): "game", ("games.Seats", "POST"): "seat", ("games.Moves", "POST"): "move"}


@blueprint.get("/metrics")
def scrape() -> Response:
    """Every metric of every process of this server."""
    _gauges(service())
    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        _WorkersCollector(registry)
    return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)


class _WorkersCollector(multiprocess.MultiProcessCollector):
    """prometheus-client's sum over the workers' files, without the files that are not metrics yet.

    A worker creates its file empty and sizes it a moment later: a scrape in between, or after a
    worker killed in between left it empty for good, failed whole on it (a 500 for every scrape;
    prometheus/client_python#1199). An empty file holds no figure, so it is left out.
    """

    def collect(self) -> Iterable[Any]:
        return self.merge([path for path in glob.glob(os.path.join(self._path, "*.db")) if _sized(path)],
                          accumulate=True)


def _sized(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:  # (a dead worker's live gauges, removed since the listing: the library skips them too)
        return False


def install(app: Flask) -> None:
    """Count the app's requests and keep its gauges current; serve ``/metrics``."""
    app.register_blueprint(blueprint)
    FOLLOWERS_LIMIT.set(app.extensions["cardhall_followers"].limit)
    app.before_request(_started)
    app.after_request(_counted)


def followers_counted(kind: str, change: int) -> None:
    """A follower of ``kind`` started (+1) or ended (-1)."""
    if (gauge := _FOLLOWER_GAUGES.get(kind)) is None:
        gauge = _FOLLOWER_GAUGES[kind] = FOLLOWERS.labels(kind)
    gauge.inc(change)


#: The gauge of each kind of follower (as ``_COUNTERS`` below: ``labels`` takes a lock and builds its key).
_FOLLOWER_GAUGES: dict[str, Gauge] = {}


def fanned_out(seconds: float) -> None:
    FANOUT_SECONDS.observe(seconds)


def rated(finish: Finish) -> None:
    """A rated game's ratings changed: how long after its end (the time its finish was recorded)."""
    RATING_LAG_SECONDS.observe(max(0.0, time.time() - finish.finished_at.timestamp()))


def _started() -> None:
    g.started = time.perf_counter()


def _counted(response: Response) -> Response:
    if g.get("answered_later"):
        return response
    served = request._get_current_object()  # (one look-up through the proxy, not one per attribute)
    endpoint, status = (served.endpoint, served.method), response.status_code
    if endpoint == ("games.Moves", "POST"):
        MOVE_SECONDS.observe(time.perf_counter() - g.get("started", time.perf_counter()))
    if endpoint in APPENDING and status in (200, 201) and "Idempotent-Replayed" not in response.headers:
        APPENDS.labels(APPENDING[endpoint]).inc()
    if status == 429:
        RATE_LIMITED.inc()
    _request_count()(status)
    return response


def answered_later() -> Callable[[int], None]:
    """The count of this request, answered once its Flask request is over (see requestlog.answered_later)."""
    g.answered_later = True
    return _request_count()


def _request_count() -> Callable[[int], None]:
    """Counts this request by route, method and the status it is called with (now, or once answered later)."""
    return request_count(request.url_rule.rule if request.url_rule is not None else "unmatched", request.method,
                         service())


def request_count(route: str, method: str, games: GameService) -> Callable[[int], None]:
    """Counts a request by route, method and the status it is called with."""

    def count(status: int) -> None:
        key = (route, method, status)
        if (counter := _COUNTERS.get(key)) is None:
            counter = _COUNTERS[key] = REQUESTS.labels(route, method, str(status))
        counter.inc()
        if time.monotonic() >= _gauges_due:
            _gauges(games)

    return count


#: The request counter of each route, method and status met so far (``labels`` takes a lock and
#: builds its key on every call). Routes are the app's rules, so this stays small.
_COUNTERS: dict[tuple[str, str, int], Counter] = {}
#: When the gauges below are next set from a request (each scrape sets them too): at most once a
#: second, since with several workers each set writes the process's file of figures.
GAUGES_EVERY = 1.0
_gauges_due = 0.0


def _gauges(games: GameService) -> None:
    global _gauges_due
    _gauges_due = time.monotonic() + GAUGES_EVERY
    GAMES_CACHED.set(games.cached_tables())
    if (use := games.pool_use()) is not None:
        POOL_IN_USE.set(use[0])
        POOL_SIZE.set(use[1])

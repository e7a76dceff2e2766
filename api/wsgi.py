"""The app's factory for a server's worker: ``create()`` (gunicorn: ``'api.wsgi:create()'``; uvicorn: ``--factory``).

``create(settings)`` opens the database the settings name, migrating it first unless
``skip_migrations`` (``cardhall serve`` migrates once, before it starts its workers, and
tells them to skip it), makes the Flask app and starts the worker's sweeper of turn clocks,
its ratings projection, its pool pairing and its Swiss rounds.
Importing this module does none of that: it opens no database and starts no thread.
``api.wsgi:app`` is still there for a WSGI server, made (from the environment) when first asked for.
"""

from __future__ import annotations

import gc
from typing import Any

from flask import Flask

from api import create_app, metrics
from api.settings import Settings
from domain.leaving import IdleLimits
from service.bootstrap import open_service
from service.periodic import Periodic
from service.pools import Pools
from service.ratings import Ratings
from service.sweeper import Sweeper
from service.tournaments import Tournaments


def create(settings: Settings | None = None) -> Flask:
    """The app a worker serves, its service and its sweeper (``settings``: the environment's, by default)."""
    settings = settings or Settings.of_process(3)
    games = open_service(settings.database_url, migrate=not settings.skip_migrations,
                         shuffle_secret=settings.shuffle_secret, **settings.database_options())
    app = create_app(games, **settings.app_config())
    # Each worker sweeps for turns past their deadline and for games that wait for the house, which it
    # plays on in bounded steps (service.sweeper); made in the worker, after the fork, so the thread is
    # the worker's own. CARDHALL_SWEEP_SECONDS=0 turns it off. It ends idle games too:
    # expire_waiting_after and abandon_after, in seconds (None: never), looked for every idle_sweep_seconds.
    if settings.sweep_seconds > 0:
        Sweeper(games, settings.sweep_seconds, idle=IdleLimits(settings.expire_waiting_after, settings.abandon_after),
                idle_interval=settings.idle_sweep_seconds).start()
    # Each worker applies rated games' results to the ratings (service.ratings: exactly once, whichever
    # worker gets there first). CARDHALL_RATINGS_SECONDS=0 turns it off in that process.
    # It pairs the accounts waiting in pools as often (service.pools: one round at a time, in every process),
    # and makes Swiss tournaments' next rounds (service.tournaments: each exactly once, whichever worker).
    # A game of accounts that ends runs the ratings and the pairing at once in this process.
    if settings.ratings_seconds > 0:
        ratings = Periodic("ratings", Ratings(games, metrics.rated).catch_up, settings.ratings_seconds).start()
        pools = Periodic("pools", Pools(games, app.config["CARDHALL_POOL_MOVE_SECONDS"]).pair_all,
                         settings.ratings_seconds).start()
        games.on_accounts_game_over.extend([ratings.poke, pools.poke])
        Periodic("tournaments", Tournaments(games).advance_all, settings.ratings_seconds).start()
    tune_collector()
    return app


def tune_collector() -> None:
    """The garbage collector, tuned for serving.

    A request allocates thousands of short-lived objects (events, views, dicts), nearly all freed
    by reference counting; at CPython's default (a young collection every 700 allocations, an older
    one every 10 of those) the collector ran several times a request. Measured (bench/http.py,
    PostgreSQL, one worker, 128 clients, two A/B pairs): game requests/s 496 -> 560 and 524 -> 586,
    /healthz unchanged. The modules, the app and its schemas live as long as the process: frozen out
    of the collector's sight, a full collection no longer walks them all again, at any point of a request.
    """
    gc.set_threshold(50_000, 20, 20)
    gc.freeze()


def __getattr__(name: str) -> Any:
    """``api.wsgi:app``, made from the environment's settings when a server first asks for it."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    global app
    app = create()
    return app

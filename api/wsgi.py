"""The WSGI entry point for gunicorn: ``api.wsgi:app`` (database from CARDHALL_DATABASE_URL; the
origins whose scripts may call the API, space-separated, from CARDHALL_CORS_ORIGINS).

``cardhall serve`` migrates the schema before it starts the workers, so the
workers do not (CARDHALL_SKIP_MIGRATIONS=1); started another way, each worker
migrates, which is safe and quick when the schema is current.
"""

from __future__ import annotations

import gc
import os

from api import create_app
from domain.leaving import IdleLimits
from service.bootstrap import open_service
from service.sweeper import IDLE_SWEEP_SECONDS, SWEEP_SECONDS, Sweeper

#: The app's settings an operator gives through the environment (``cardhall serve`` sets them from its options).
FROM_ENVIRONMENT = ("CARDHALL_MAX_FOLLOWERS", "CARDHALL_RATE_LIMIT", "CARDHALL_CREATE_RATE_LIMIT",
                    "CARDHALL_RATE_LIMIT_STORAGE")

games = open_service(migrate=os.environ.get("CARDHALL_SKIP_MIGRATIONS") != "1")
app = create_app(games, CARDHALL_CORS_ORIGINS=os.environ.get("CARDHALL_CORS_ORIGINS", "").split(),
                 **{name: os.environ[name] for name in FROM_ENVIRONMENT if os.environ.get(name)})
# Each worker sweeps for turns past their deadline (gunicorn imports this in the worker, after
# the fork, so the thread is the worker's own). CARDHALL_SWEEP_SECONDS=0 turns it off. It ends
# idle games too: CARDHALL_EXPIRE_WAITING_AFTER and CARDHALL_ABANDON_AFTER, in seconds (unset: never),
# looked for every CARDHALL_IDLE_SWEEP_SECONDS.


def _seconds(name: str) -> float | None:
    return float(value) if (value := os.environ.get(name)) else None


if (sweep_seconds := float(os.environ.get("CARDHALL_SWEEP_SECONDS", SWEEP_SECONDS))) > 0:
    Sweeper(games, sweep_seconds,
            idle=IdleLimits(_seconds("CARDHALL_EXPIRE_WAITING_AFTER"), _seconds("CARDHALL_ABANDON_AFTER")),
            idle_interval=_seconds("CARDHALL_IDLE_SWEEP_SECONDS") or IDLE_SWEEP_SECONDS).start()

# The garbage collector, tuned for serving. A request allocates thousands of short-lived
# objects (events, views, dicts), nearly all freed by reference counting; at CPython's
# default (a young collection every 700 allocations, an older one every 10 of those) the
# collector ran several times a request. Measured (bench/http.py, PostgreSQL, one worker,
# 128 clients, two A/B pairs): game requests/s 496 -> 560 and 524 -> 586, /healthz unchanged.
gc.set_threshold(50_000, 20, 20)
# The modules, the app and its schemas live as long as the process: out of the collector's
# sight, a full collection no longer walks them all again, at any point of a request.
gc.freeze()

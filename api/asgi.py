"""The ASGI entry point for uvicorn: ``api.asgi:app`` (configured like ``api.wsgi``).

One Starlette app: the waiting endpoints are its ``async`` handlers (:mod:`api.waiting`),
and every other route is the Flask app, mounted as its fallback (:mod:`api.mount`), which
runs it in a thread pool as under a threaded WSGI server: the same checks, the same errors.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any
from urllib.parse import parse_qsl

from flask import Flask
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from api.account_stream import AccountFollowing
from api.mount import ThreadedWsgi
from api.waiting import Waiting


def create_asgi(flask: Flask, threads: int = 32) -> Starlette:
    """The ASGI app serving ``flask``: its routes in ``threads`` threads; its followers on the event loop, whose
    checks and reads have a quarter as many threads of their own (at least 2), so that moves, views and
    ``/healthz`` never queue behind a burst of followers woken at once."""
    wsgi = ThreadedWsgi(flask, threads)
    waiting = Waiting(flask, max(2, threads // 4))
    accounts = AccountFollowing(flask, waiting)

    app = Starlette(lifespan=_delivering(flask), routes=[
        Route("/v1/games/{game_id}/events", Either(
            partial(waiting.long_poll, check=waiting.check_long_poll, quiet=waiting.quiet_long_poll), wsgi, "wait")),
        Route("/v1/games/{game_id}/events/stream", Either(partial(waiting.stream, check=waiting.check_stream), wsgi)),
        Route("/v1/account/events", Either(partial(waiting.long_poll, check=accounts.check_long_poll), wsgi, "wait")),
        Route("/v1/account/stream", Either(accounts.stream, wsgi)),
    ])
    # Whatever else comes (any path, any method, a slash more or less) is the Flask app's to answer.
    app.router.default, app.router.redirect_slashes = wsgi, False
    # Requests go straight to the router: Starlette's error middlewares would answer what neither app does
    # answer (the Flask app answers its own errors, problem+json; the waiting handlers theirs; an error past
    # them is uvicorn's to answer 500 and log, as those middlewares would leave it), and wrap every send of
    # every follower in two more calls (docs/deploy.md, "Serving model").
    app.middleware_stack = app.router
    app.state.waiting = waiting
    return app


def _delivering(flask: Flask) -> Callable[[Starlette], Any]:
    """The app's lifespan: the calls of webhook bots and subscriptions' deliveries (service.webhook_delivery)
    run on the server's event loop while it serves."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        delivery = flask.extensions.get("cardhall_delivery")
        if delivery is not None:
            delivery.start()
        try:
            yield
        finally:
            if delivery is not None:
                await delivery.stop()

    return lifespan


class Either:
    """An ASGI endpoint: ``handler`` for a GET (or HEAD) whose query names ``asked`` (if any); the Flask app
    for anything else at its path (a plain read of the log, another method, a CORS preflight)."""

    def __init__(self, handler: Callable[[Request], Awaitable[ASGIApp]], flask: ASGIApp, asked: str | None = None) -> None:
        self.handler, self.flask, self.asked = handler, flask, asked

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] in ("GET", "HEAD") and (self.asked is None or self.asked in _names(scope["query_string"])):
            answer = await self.handler(Request(scope, receive))
            await answer(scope, receive, send)
        else:
            await self.flask(scope, receive, send)


def _names(query: bytes) -> set[str]:
    """The names in a query string, decoded as the Flask app decodes them (split at ``&`` alone where
    nothing in it is encoded: every follower's query)."""
    if b"%" in query or b"+" in query or b";" in query:
        return {name for name, _ in parse_qsl(query.decode("latin-1"), keep_blank_values=True)}
    return {pair.partition("=")[0] for pair in query.decode("latin-1").split("&") if pair}


#: How long a thread that wants the GIL waits for the one holding it before asking it to let go (CPython's
#: default 5 ms). The event loop, which sends every follower its events, waits for the GIL each time it
#: wakes among the pool's busy threads; at 1 ms the followers benchmark made 10-25 % more moves/s with
#: deliveries sooner (docs/performance.md, "Decisions").
SWITCH_INTERVAL = 0.001


def _app() -> Any:
    """The app a worker serves: made from the settings of the environment, behind the guard (api.guard)."""
    from api import wsgi
    from api.guard import guarded
    from api.settings import Settings

    settings = Settings.of_process(3)
    sys.setswitchinterval(SWITCH_INTERVAL)
    return guarded(create_asgi(wsgi.create(settings), settings.threads), settings.limits)


def __getattr__(name: str) -> Any:
    """``api.asgi:app``, made when the server first asks for it (in its worker), not when the module is
    imported: importing the function above opens no database and changes nothing of the process."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    global app
    app = _app()
    return app

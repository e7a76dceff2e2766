"""The ASGI entry point for uvicorn: ``api.asgi:app`` (configured like ``api.wsgi``).

Every request runs in the Flask app, in a thread pool, as under a threaded WSGI
server: the same checks, the same errors; requests for a game's log (what
followers ask for) in a smaller pool of their own. Each request crosses to its
thread once and back once (:class:`ThreadedWsgi`): its body is read on the loop
first, its whole answer is made in the thread. A follower that must
wait (a long-poll with nothing new, an event stream) is answered by its view at
once with a wait to do (:mod:`api.followers`); that wait happens here, on the
event loop, holding no thread: the process's one fan-out (:class:`service.following.Hub`)
wakes it, and the page it then sends is read in the thread pool, once for all the
followers of the game who wait alike (a stream's next events; a long-poll's whole answer). A client that
hangs up is seen at once (ASGI's ``http.disconnect``) and frees its slot.
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from a2wsgi.wsgi import build_environ
from flask import Flask

from api import metrics
from api.followers import FOLLOW, HEARTBEAT, ON_LOOP, REQUEST_ID, WOKEN, LongPoll, Stream
from api.spectators import Spectators
from service.following import Hub

log = logging.getLogger(__name__)
T = TypeVar("T")
Message = dict[str, Any]
Send = Callable[[Message], Awaitable[None]]
Receive = Callable[[], Awaitable[Message]]
#: How long a stream woken to nothing new waits for news past it before it reads again (see FollowingApp._stream).
FRUITLESS_WAIT = 0.25
#: The paths of a game's log (its pages, its stream): what followers ask for.
LOG_PATHS = ("/events", "/events/stream")


class FollowingApp:
    """The Flask app in a thread pool; its followers' waits on the event loop."""

    def __init__(self, flask: Flask, threads: int) -> None:
        self.wsgi = ThreadedWsgi(flask, threads)
        # Reading logs — every follower's requests, and its reads once woken — has a pool of its own,
        # so that moves, views and /healthz never queue behind a burst of followers woken at once.
        self.follow_wsgi = ThreadedWsgi(flask, max(2, threads // 4))
        self.games = flask.extensions["cardhall"]
        self.spectators = Spectators(flask)
        self._hub: Hub | None = None
        self._reading: dict[tuple[Any, ...], asyncio.Future[Any]] = {}

    @property
    def hub(self) -> Hub:
        """The fan-out of this process's loop (made on first use, inside the loop)."""
        if self._hub is None:
            self._hub = Hub(self.games, self.in_pool, metrics.fanned_out)
        return self._hub

    async def in_pool(self, function: Callable[[], T]) -> T:
        """``function()`` in the followers' thread pool."""
        return await asyncio.get_running_loop().run_in_executor(self.follow_wsgi.executor, function)

    async def shared(self, key: tuple[Any, ...], function: Callable[[], T]) -> T:
        """``function()`` in the pool, once for all who ask with the same ``key`` while it runs: the
        followers of a game woken by one event all read the same next events. Followers put in the key
        the version their wake-up heard (0: none), so that one woken by an append never joins a read
        begun before it, which could not show it."""
        if (reading := self._reading.get(key)) is None:
            reading = self._reading[key] = asyncio.ensure_future(self.in_pool(function))
            reading.add_done_callback(lambda _: self._reading.pop(key, None))
        return await asyncio.shield(reading)

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # (uvicorn runs without lifespan events: nothing else comes)
            return
        scope[ON_LOOP] = True
        if (follow := self.spectators.follow(scope)) is not None:  # (waits at once, without the app)
            start: Message | None = {"headers": [(b"x-request-id", scope[REQUEST_ID].encode())]}
        else:
            parked = _Parked(scope, send)
            wsgi = self.follow_wsgi if scope["path"].endswith(LOG_PATHS) else self.wsgi
            await wsgi(scope, receive, parked.send)
            follow, start = scope.pop(FOLLOW, None), parked.start
            if follow is None:
                return
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            if isinstance(follow, Stream):
                await self._stream(follow, send, gone)
            else:
                await self._long_poll(follow, scope, _with_headers(send, start), gone)
        finally:
            gone.cancel()
            follow.release()

    async def _long_poll(self, follow: LongPoll, scope: dict[str, Any], send: Send, gone: asyncio.Future[None]) -> None:
        """Wait for the event, then answer the page read once for all who wait alike (or run the request again).

        A wake-up whose page shows nothing new (see :meth:`_stream`) is not answered with that empty page,
        which the client would ask again at once: the long-poll waits for news past the wake-up, at most
        ``FRUITLESS_WAIT``, and reads again, until its time is up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + follow.timeout
        since, wait = follow.after, follow.timeout
        while (woken := await self._waited(follow.game_id, since, wait, gone)) is not None:
            if follow.page is None:
                break
            key, read = follow.page
            try:
                answer = await self.shared((key, woken), read)
            except Exception:  # (the request, run again, answers the error as any request does)
                log.exception("the page of %s for a woken long-poll failed; running it again", follow.game_id)
                break
            remaining = deadline - loop.time()
            if answer.news or answer.status != 200 or remaining <= 0:
                await send({"type": "http.response.start", "status": answer.status, "headers": answer.headers})
                await send({"type": "http.response.body", "body": answer.body, "more_body": False})
                follow.answered(answer.status)
                return
            since, wait = (max(since, woken), min(FRUITLESS_WAIT, remaining)) if woken else (follow.after, remaining)
        else:
            return  # (the client left)
        scope[WOKEN] = True
        await self.follow_wsgi(scope, _no_body, send)

    async def _stream(self, follow: Stream, send: Send, gone: asyncio.Future[None]) -> None:
        """Write each new event as it comes, a heartbeat when nothing came for a while, until the end.

        One read a wake-up: once what it found is sent (up to the version this process heard of, with
        no read of the version), the stream waits for the next announcement, unless the page's limit
        left events to read at once.

        A wake-up whose read shows nothing new (the announcement is ahead of what the store lets this
        process read) is followed by a wait for news past it, of at most ``FRUITLESS_WAIT``, and another
        read: never by a read at once, which would spin the event loop for as long as the two disagree."""
        loop = asyncio.get_running_loop()
        after, deadline = follow.after, loop.time() + follow.timeout
        beat, woken = loop.time() + follow.heartbeat, 0  # (woken: the version a wake-up heard)
        while True:
            try:
                batch = await self.shared((follow.game_id, follow.token, after, woken),
                                          lambda after=after, woken=woken: follow.batch(after, bool(woken)))
            except Exception:  # (the answer has begun: all that is left is to end it)
                log.exception("the stream of %s ended on an error", follow.game_id)
                break
            if batch.text:
                after, beat, woken = batch.after, loop.time() + follow.heartbeat, 0
                await send(_body(batch.text))
                if batch.more:
                    continue
            remaining = deadline - loop.time()
            if batch.over or remaining <= 0:
                break
            if loop.time() >= beat:
                beat = loop.time() + follow.heartbeat
                await send(_body(HEARTBEAT))
            since, wait = (max(after, woken), FRUITLESS_WAIT) if woken else (after, beat - loop.time())
            woken = await self._waited(follow.game_id, since, min(wait, remaining), gone)
            if woken is None:
                return
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _waited(self, game_id: str, after: int, timeout: float, gone: asyncio.Future[None]) -> int | None:
        """The version heard if the game passed ``after`` within ``timeout``, else 0; None if the client left first."""
        return await self.hub.wait(game_id, after, timeout, gone)


class _Parked:
    """The app's ``send`` while a view may hand its wait over: a long-poll's first answer is kept
    back (only its headers count); a stream's goes out, left open for the events."""

    def __init__(self, scope: dict[str, Any], send: Send) -> None:
        self.scope, self._send = scope, send
        self.start: Message | None = None

    async def send(self, message: Message) -> None:
        follow = self.scope.get(FOLLOW)
        if follow is None:
            await self._send(message)
        elif message["type"] == "http.response.start":
            self.start = message
            if isinstance(follow, Stream):  # (without the length of its preamble: the stream goes on)
                await self._send({**message, "headers": [(n, v) for n, v in message["headers"] if n != b"content-length"]})
        elif isinstance(follow, Stream) and message.get("body"):
            await self._send(_body(message["body"]))


def _with_headers(send: Send, first: Message | None) -> Send:
    """``send`` adding to the answer's start the headers of the first answer it lacks (rate limits, request id)."""
    extra = [] if first is None else first["headers"]

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {name for name, _ in message["headers"]}
            message = {**message, "headers": [*message["headers"], *((n, v) for n, v in extra if n not in names)]}
        await send(message)

    return sending


class ThreadedWsgi:
    """A WSGI app served to ASGI from a thread pool, crossing threads once each way.

    The body is read on the loop (at most the app's ``MAX_CONTENT_LENGTH`` and one byte more, which
    is how the app tells a chunked body past its limit); the app runs in a thread and its whole
    answer is gathered there; the loop then sends it. a2wsgi's middleware, which this replaces
    (its environ is still built by a2wsgi), crosses threads for each part of the answer and each
    read of the body, three to five times a request: that, on the loop, cost about a quarter of a
    game request's throughput (docs/performance.md). The app's answers are finite here: a view that
    would wait or stream hands that to the loop (:mod:`api.followers`).
    """

    def __init__(self, flask: Flask, threads: int) -> None:
        self.app = flask
        self.limit: int | None = flask.config.get("MAX_CONTENT_LENGTH")
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="cardhall-http")

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        environ = build_environ(scope, io.BytesIO(await self._body(scope, receive)))
        environ["wsgi.input_terminated"] = True  # (a chunked body ends where its bytes end)
        status, headers, body = await asyncio.get_running_loop().run_in_executor(self.executor, self._answer, environ)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _body(self, scope: dict[str, Any], receive: Receive) -> bytes:
        """The request's body, read no further than the app will look (nothing of one declared too long)."""
        declared = next((value for name, value in scope["headers"] if name == b"content-length"), None)
        if self.limit is not None and declared is not None and declared.isdigit() and int(declared) > self.limit:
            return b""  # (the app refuses it by its length alone)
        chunks, size = [], 0
        while self.limit is None or size <= self.limit:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    def _answer(self, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        """The app's whole answer to ``environ``, in this thread: status, headers (as ASGI sends them), body."""
        started: list[Any] = []
        chunks: list[bytes] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
            started[:] = [status, headers]
            return chunks.append

        answer = self.app(environ, start_response)
        try:
            chunks.extend(answer)
        finally:
            if hasattr(answer, "close"):
                answer.close()
        status, headers = started
        return (int(status.split(" ", 1)[0]),
                [(name.lower().encode("latin1"), value.encode("latin1")) for name, value in headers], b"".join(chunks))


def _body(text: str | bytes) -> Message:
    return {"type": "http.response.body", "body": text.encode() if isinstance(text, str) else text, "more_body": True}


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


async def _no_body() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


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

    settings = Settings.from_environment()
    sys.setswitchinterval(SWITCH_INTERVAL)
    return guarded(FollowingApp(wsgi.create(settings), settings.threads), settings.limits)


def __getattr__(name: str) -> Any:
    """``api.asgi:app``, made when the server first asks for it (in its worker), not when the module is
    imported: importing the classes above opens no database and changes nothing of the process."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    global app
    app = _app()
    return app

"""The waiting endpoints: a long-poll (``GET /v1/games/{id}/events`` with ``wait``) and an event stream
(``GET /v1/games/{id}/events/stream``), ``async`` handlers of the ASGI app (:mod:`api.asgi`).

Each checks its request in the thread pool inside the Flask app's request for it
(:func:`in_flask`): the same before-request hooks (limits on the head, request id,
rate limits), the same query schemas, token checks and follower slots, every error
answered by :mod:`api.errors` and every answer given the app's after-request headers,
as on any route. Then it waits holding no thread: it awaits the process's hub
(:class:`service.following.Hub`), which the store's announcements wake, and reads what
it sends in the thread pool, once for all the followers of a game who read alike. A
stream is framed, kept alive and ended (client gone, server stopping, a client that stops
reading) by sse-starlette's ``EventSourceResponse``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
from collections.abc import Awaitable, Callable, Hashable
from functools import partial
from typing import Any, TypeVar

import anyio
from a2wsgi.wsgi import build_environ
from flask import Flask, Response, current_app, jsonify, request
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from api import errors, metrics, requestlog
from api.context import bearer_token, final_headers
from api.followers import Batch, stream_batch, stream_preamble
from api.parsing import Blueprint
from api.schemas import EventsQuerySchema, EventsSchema, StreamHeadersSchema, StreamQuerySchema
from service.following import Hub

log = logging.getLogger(__name__)
T = TypeVar("T")
Headers = list[tuple[bytes, bytes]]
#: How long a follower woken to a read that shows nothing new (an announcement ahead of what this process
#: can read) waits for news past it before it reads again: never at once, which would spin the event loop.
FRUITLESS_WAIT = 0.25
#: How long a stream's write may wait for its client to read: a client that stops reading is dropped then.
SEND_TIMEOUT = 5.0
#: How long past its timeout a stream may take to send its end: then it is dropped, whatever it was doing.
CLOSING_GRACE = 1.0
#: The schemas of the two routes' arguments, which api.games documents.
EVENTS_QUERY, STREAM_QUERY, STREAM_HEADERS = EventsQuerySchema(), StreamQuerySchema(), StreamHeadersSchema()
#: The schema of a page, made once: a schema made per page is a cycle of objects left to the garbage collector.
EVENTS_PAGE = EventsSchema()
PARSER = Blueprint.ARGUMENTS_PARSER


@dataclasses.dataclass
class Follow:
    """A checked follower, holding its slot until ``release()``: what it follows, and the headers the app
    gave its answer (request id, rate limits, CORS); ``answered(status)`` writes a long-poll's access
    line and count once it is answered."""

    kind: str  # long_poll or stream
    game_id: str
    token: str | None
    after: int
    timeout: float
    release: Callable[[], None]
    limit: int = 0  # (a long-poll's page)
    if_none_match: str | None = None
    headers: Headers = dataclasses.field(default_factory=list)
    answered: Callable[[int], None] = lambda status: None


@dataclasses.dataclass(frozen=True)
class Answer:
    """A whole answer, sent as ASGI; ``then(status)`` is told once it is sent."""

    status: int
    headers: Headers
    body: bytes
    news: bool = True  # False: a page with no event, of a game not over (a wake-up its read did not show)
    then: Callable[[int], None] = lambda status: None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body})
        self.then(self.status)


async def _nothing(scope: Scope, receive: Receive, send: Send) -> None:
    """No answer: the client left."""


def in_flask(app: Flask, scope: Scope, check: Callable[[], Follow | Any]) -> Follow | Answer:
    """``check()`` inside the Flask app's request for ``scope`` (in a thread): after its before-request hooks,
    and with its error handlers and after-request hooks around what it answers. A follower ``check``
    gives (:class:`Follow`) gets the headers of the app's answer; a long-poll's access line and count
    wait for its answer."""
    environ = build_environ(scope, io.BytesIO())
    with app.request_context(environ):
        try:
            answer = app.preprocess_request()
            if answer is None:
                if request.routing_exception is not None:
                    raise request.routing_exception
                answer = check()
        except Exception as error:
            answer = app.handle_user_exception(error)
        if not isinstance(answer, Follow):
            return _answer(app.finalize_request(answer), environ)
        try:
            if answer.kind == "long_poll":
                answer.answered = _answered_later()
                start = Response()
            else:
                start = Response(mimetype="text/event-stream", headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
            answer.headers = [(name, value) for name, value in _answer(app.finalize_request(start), environ).headers
                              if name != b"content-length"]
        except BaseException:
            answer.release()
            raise
        return answer


def _answered_later() -> Callable[[int], None]:
    """This request's access line and count, written when called with its status, not at its end."""
    hooks = [requestlog.answered_later(), metrics.answered_later()]

    def answered(status: int) -> None:
        for hook in hooks:
            hook(status)

    return answered


def _answer(response: Response, environ: dict[str, Any], then: Callable[[int], None] = lambda status: None,
            news: bool = True) -> Answer:
    """``response``, as its WSGI call makes it for ``environ`` (conditional, HEAD), made an :class:`Answer`."""
    started: list[Any] = []
    chunks = response(environ, lambda status, headers, exc_info=None: started.extend((status, headers)))
    try:
        body = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    status, headers = started
    return Answer(int(status.split(" ", 1)[0]),
                  [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers], body,
                  news, then)


def page_response(page: dict[str, Any], token: str | None) -> Response:
    """A page of the log as ``GET /events`` answers it (within an app context)."""
    response = jsonify(EVENTS_PAGE.dump(page))
    if page["over"]:
        response.headers.update(final_headers(page["last_version"], token))
    return response


class Waiting:
    """The long-polls and streams of one Flask app's process."""

    def __init__(self, flask: Flask, readers: int) -> None:
        """``readers``: the threads that read for followers (their checks, their pages)."""
        self.flask = flask
        self.games = flask.extensions["cardhall"]
        self.followers = flask.extensions["cardhall_followers"]
        self.readers = readers
        self._loop: asyncio.AbstractEventLoop | None = None

    def _on_this_loop(self) -> None:
        """The hub, the readers' limit and the reads in flight belong to the loop they wait on."""
        if self._loop is not (loop := asyncio.get_running_loop()):
            self._loop, self._limiter = loop, anyio.CapacityLimiter(self.readers)
            self._reading: dict[Hashable, asyncio.Future[Any]] = {}
            self.hub = Hub(self.games, self.in_pool, metrics.fanned_out)

    async def in_pool(self, function: Callable[[], T]) -> T:
        """``function()`` in one of the followers' threads."""
        return await anyio.to_thread.run_sync(function, limiter=self._limiter)

    async def shared(self, key: Hashable, function: Callable[[], T]) -> T:
        """``function()`` in the pool, once for all who ask with the same ``key`` while it runs: the
        followers of a game woken by one event all read the same next events. Followers put in the key
        the version their wake-up heard (0: none), so that one woken by an append never joins a read
        begun before it, which could not show it."""
        if (reading := self._reading.get(key)) is None:
            reading = self._reading[key] = asyncio.ensure_future(self.in_pool(function))
            reading.add_done_callback(lambda _: self._reading.pop(key, None))
        return await asyncio.shield(reading)

    async def long_poll(self, request: Request) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """``GET /v1/games/{id}/events`` with ``wait``: the page after ``after`` once there is one, or once
        ``wait`` is over."""
        self._on_this_loop()
        checked = await self.in_pool(partial(in_flask, self.flask, request.scope, self._check_long_poll))
        if not isinstance(checked, Follow):
            return checked
        gone = asyncio.ensure_future(_disconnected(request.receive))
        try:
            return await self._woken_page(checked, gone)
        finally:
            gone.cancel()
            checked.release()

    def _check_long_poll(self) -> Follow | Response:
        """The page at once if it has news (or ``wait`` is 0), else the follower to wait (in the app's request)."""
        query = PARSER.parse(EVENTS_QUERY, location="query")
        game_id, token, after = request.view_args["game_id"], bearer_token(), query["after"]
        # A follower asking again right after its answer most often finds nothing new: as far as this
        # process has heard, it waits at once, without reading the log (the next event wakes it).
        if query["wait"] <= 0 or not self.games.heard_nothing_after(game_id, token, after):
            page = self.games.events(game_id, token, after=after, limit=query["limit"])
            if page["events"] or query["wait"] <= 0:
                return page_response(page, token)
        release = self.followers.take("long_poll", request.remote_addr)
        return Follow("long_poll", game_id, token, after, min(query["wait"], self.games.max_wait), release, limit=query["limit"],
                      if_none_match=request.headers.get("If-None-Match"))

    async def _woken_page(self, poll: Follow, gone: asyncio.Future[None]) -> Callable[..., Awaitable[None]]:
        """The page once the game passes ``after`` or the wait is over, read once for all who wait alike.

        A wake-up whose page shows nothing new is not answered with that empty page, which the client would
        ask again at once: the long-poll waits for news past it, at most ``FRUITLESS_WAIT``, and reads again,
        until its time is up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + poll.timeout
        since, wait = poll.after, poll.timeout
        while (woken := await self.hub.wait(poll.game_id, since, wait, gone)) is not None:
            try:
                page = await self.shared(("page", poll.game_id, poll.after, poll.limit, poll.token, woken),
                                         partial(self._read_page, poll))
            except Exception as error:
                page = _answer(errors.problem_for(error), {"REQUEST_METHOD": "GET"})
            remaining = deadline - loop.time()
            if page.news or page.status != 200 or remaining <= 0:
                return self._sent_to(poll, page)
            since, wait = (max(since, woken), min(FRUITLESS_WAIT, remaining)) if woken else (poll.after, remaining)
        return _nothing  # (the client left)

    def _read_page(self, poll: Follow) -> Answer:
        """The page a woken long-poll answers, up to the newest version this process heard of (in a thread)."""
        with self.flask.app_context():
            page = self.games.events(poll.game_id, poll.token, after=poll.after, limit=poll.limit, as_heard=True)
            return _answer(page_response(page, poll.token), {"REQUEST_METHOD": "GET"},
                           news=bool(page["events"]) or page["over"])

    @staticmethod
    def _sent_to(poll: Follow, page: Answer) -> Answer:
        """``page`` as this long-poll's answer: conditional on its ``If-None-Match``, with the app's headers."""
        if poll.if_none_match is not None:
            response = Response(page.body, page.status, [(n.decode("latin-1"), v.decode("latin-1")) for n, v in page.headers])
            page = _answer(response.make_conditional({"REQUEST_METHOD": "GET", "HTTP_IF_NONE_MATCH": poll.if_none_match}),
                           {"REQUEST_METHOD": "GET"})
        names = {name for name, _ in page.headers}
        headers = [*page.headers, *((name, value) for name, value in poll.headers if name not in names)]
        return dataclasses.replace(page, headers=headers, then=poll.answered)

    async def stream(self, request: Request) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """``GET /v1/games/{id}/events/stream``: the events as Server-Sent Events until the game is over or
        ``timeout`` runs out."""
        self._on_this_loop()
        checked = await self.in_pool(partial(in_flask, self.flask, request.scope, self._check_stream))
        if not isinstance(checked, Follow):
            return checked
        heartbeat = float(self.flask.config["CARDHALL_SSE_HEARTBEAT"])
        response = EventSourceResponse(
            self._frames(checked), headers={n.decode("latin-1"): v.decode("latin-1") for n, v in checked.headers},
            ping=heartbeat, sep="\n", ping_message_factory=lambda: ServerSentEvent(comment="heartbeat", sep="\n"),
            send_timeout=SEND_TIMEOUT)
        return partial(_streamed, response, checked)

    def _check_stream(self) -> Follow:
        """The stream to follow (in the app's request)."""
        headers = PARSER.parse(STREAM_HEADERS, location="headers")
        query = PARSER.parse(STREAM_QUERY, location="query")
        game_id, token = request.view_args["game_id"], bearer_token()
        self.games.events(game_id, token, after=0, limit=1)  # checks the game and the token before streaming
        after = query.get("after", headers.get("last_event_id", 0))
        timeout = min(query["timeout"], current_app.config["CARDHALL_STREAM_MAX"])
        return Follow("stream", game_id, token, after, timeout, self.followers.take("stream", request.remote_addr))

    async def _frames(self, follow: Follow):  # type: ignore[no-untyped-def]
        """The preamble, then each new event as it comes, until the game is over or the time is up.

        One read a wake-up: once what it found is sent (up to the version this process heard of, with
        no read of the version), the stream waits for the next announcement, unless the page's limit
        left events to read at once. A wake-up whose read shows nothing new is followed by a wait for
        news past it, of at most ``FRUITLESS_WAIT``, and another read."""
        loop = asyncio.get_running_loop()
        after, deadline, woken = follow.after, loop.time() + follow.timeout, 0  # (woken: the version a wake-up heard)
        yield stream_preamble(follow.game_id, after).encode()
        while True:
            try:
                batch: Batch = await self.shared(
                    (follow.game_id, follow.token, after, woken),
                    partial(stream_batch, self.games, follow.game_id, follow.token, after, bool(woken)))
            except Exception:  # (the answer has begun: all that is left is to end it)
                log.exception("the stream of %s ended on an error", follow.game_id)
                return
            if batch.text:
                after, woken = batch.after, 0
                yield batch.text.encode()
                if batch.more:
                    continue
            remaining = deadline - loop.time()
            if batch.over or remaining <= 0:
                return
            since, wait = (max(after, woken), FRUITLESS_WAIT) if woken else (after, remaining)
            woken = await self.hub.wait(follow.game_id, since, min(wait, remaining)) or 0


async def _streamed(response: EventSourceResponse, follow: Follow, scope: Scope, receive: Receive, send: Send) -> None:
    """The stream sent, for no longer than its timeout (and a last write's): then its slot is free."""
    try:
        with anyio.move_on_after(follow.timeout + CLOSING_GRACE):
            await response(scope, receive, send)
    except SendTimeoutError:
        log.info("the client of a stream of %s stopped reading; dropped", follow.game_id)
    finally:
        follow.release()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


"""The waiting endpoints: a long-poll (``GET /v1/games/{id}/events`` with ``wait``) and an event stream
(``GET /v1/games/{id}/events/stream``), ``async`` handlers of the ASGI app (:mod:`api.asgi`); what they
share with the account's (:mod:`api.account_stream`).

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
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
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
from api.mount import whole_answer
from api.parsing import Blueprint
from api.schemas import EventsQuerySchema, EventsSchema, StreamHeadersSchema, StreamQuerySchema
from service.following import Hub
from service.games import GameService

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


@dataclasses.dataclass
class Follow:
    """A checked follower, holding its slot until ``release()``: what it follows (a game's id, or an account's
    key), and the headers the app gave its answer (request id, rate limits, CORS); ``answered(status)``
    writes a long-poll's access line and count once it is answered (:func:`answered_later`)."""

    followed: str
    token: str | None
    after: int
    timeout: float
    release: Callable[[], None]
    limit: int = 0  # (a long-poll's page)
    if_none_match: str | None = None
    answered: Callable[[int], None] = lambda status: None
    headers: Headers = dataclasses.field(default_factory=list)

    def answer(self, page: Answer) -> Answer:
        """``page`` as this follower's answer: with the app's headers (where the page has none of the name)."""
        names = {name for name, _ in page.headers}
        headers = [*page.headers, *((name, value) for name, value in self.headers if name not in names)]
        return dataclasses.replace(page, headers=headers, then=self.answered)


async def _nothing(scope: Scope, receive: Receive, send: Send) -> None:
    """No answer: the client left."""


def in_flask(app: Flask, scope: Scope, check: Callable[[], Follow | Any]) -> Follow | Answer:
    """``check()`` inside the Flask app's request for ``scope`` (in a thread): after its before-request hooks,
    and with its error handlers and after-request hooks around what it answers. A follower ``check``
    gives (:class:`Follow`) gets the headers of the app's answer but those of its body, which the page
    or the stream sets."""
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
            headers = app.finalize_request(Response()).headers
        except BaseException:
            answer.release()
            raise
        answer.headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()
                          if name.lower() not in ("content-type", "content-length")]
        return answer


def answered_later() -> Callable[[int], None]:
    """This request's access line and count (in its Flask request), written when called with its status,
    not at the request's end: a long-poll's, once it is answered."""
    hooks = [requestlog.answered_later(), metrics.answered_later()]

    def answered(status: int) -> None:
        for hook in hooks:
            hook(status)

    return answered


def _answer(response: Response, environ: dict[str, Any], news: bool = True) -> Answer:
    """``response``, as its WSGI call makes it for ``environ`` (conditional, HEAD), made an :class:`Answer`."""
    return Answer(*whole_answer(response, environ), news=news)


def answer_of(app: Flask, response: Callable[[], Response], news: bool = True) -> Answer:
    """The :class:`Answer` ``response()`` makes within ``app``'s context, outside any request (in a thread)."""
    with app.app_context():
        return _answer(response(), {"REQUEST_METHOD": "GET"}, news)


def page_response(page: dict[str, Any], token: str | None) -> Response:
    """A page of the log as ``GET /events`` answers it (within an app context)."""
    response = jsonify(EVENTS_PAGE.dump(page))
    if page["over"]:
        response.headers.update(final_headers(page["last_version"], token))
    return response


@dataclasses.dataclass(frozen=True)
class Batch:
    """What a stream sends next: the frames of the events after some version, the last version sent,
    whether the stream is over (the game finished and every event sent), and whether events are left
    past it (the page's limit cut it: read again at once; else wait for the next announcement)."""

    text: str
    after: int
    over: bool
    more: bool = False


def stream_batch(games: GameService, game_id: str, token: str | None, after: int, woken: bool = False) -> Batch:
    """The SSE frames of the events after ``after`` (id = version, event = type, data = the event);
    ``woken``: up to the newest version this process heard of, without reading it (a stream woken
    by its announcement), as a woken long-poll's page is read."""
    page = games.events(game_id, token, after=after, limit=1000, as_heard=woken)
    frames = []
    for event in page["events"]:
        after = event["version"]
        frames.append(f"id: {after}\nevent: {event['type']}\ndata: {json.dumps(event, default=str)}\n\n")
    last = page["last_version"]
    return Batch("".join(frames), after, page["over"] and after >= last, after < last)


class Waiting:
    """The long-polls and streams of one Flask app's process."""

    def __init__(self, flask: Flask, readers: int) -> None:
        """``readers``: the threads that read for followers (their checks, their pages)."""
        self.flask = flask
        self.games = flask.extensions["cardhall"]
        self.followers = flask.extensions["cardhall_followers"]
        self.pool = ThreadPoolExecutor(readers, thread_name_prefix="cardhall-followers")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._reading: dict[Hashable, asyncio.Future[Any]] = {}

    async def checked(self, request: Request, check: Callable[[], Follow | Any]) -> Follow | Answer:
        """``check()`` in the app's request for ``request`` (:func:`in_flask`), in the followers' pool."""
        if self._loop is not (loop := asyncio.get_running_loop()):  # (the hub and the reads are a loop's)
            self._loop, self._reading = loop, {}
            self.hub = Hub(self.games, self.in_pool, metrics.fanned_out)
        return await self.in_pool(partial(in_flask, self.flask, request.scope, check))

    async def in_pool(self, function: Callable[[], T]) -> T:
        """``function()`` in one of the followers' threads (a plain executor: anyio's ``to_thread`` cost a
        crossing more than twice the CPU, measured with a hundred at once)."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, function)

    async def shared(self, key: Hashable, function: Callable[[], T]) -> T:
        """``function()`` in the pool, once for all who ask with the same ``key`` while it runs: the
        followers of a game woken by one event all read the same next events. Followers put in the key
        the version their wake-up heard (0: none), so that one woken by an append never joins a read
        begun before it, which could not show it."""
        if (reading := self._reading.get(key)) is None:
            reading = self._reading[key] = asyncio.ensure_future(self.in_pool(function))
            reading.add_done_callback(lambda _: self._reading.pop(key, None))
        return await asyncio.shield(reading)

    def event_stream(self, follow: Follow, frames: AsyncIterator[Any], heartbeat: str, comment: str,
                     ended: Callable[[], None] = lambda: None) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """The ASGI answer sending ``frames`` as Server-Sent Events with the app's headers, a ``comment`` every
        ``heartbeat`` seconds (that config value), for no longer than the follower's timeout (and a last
        write's); then its slot is free and ``ended()`` is called."""
        headers = {"Cache-Control": "no-cache", **{n.decode("latin-1"): v.decode("latin-1") for n, v in follow.headers}}
        response = EventSourceResponse(
            frames, headers=headers, ping=float(self.flask.config[heartbeat]), sep="\n", send_timeout=SEND_TIMEOUT,
            ping_message_factory=lambda: ServerSentEvent(comment=comment, sep="\n"))

        async def streamed(scope: Scope, receive: Receive, send: Send) -> None:
            try:
                with anyio.move_on_after(follow.timeout + CLOSING_GRACE):
                    await response(scope, receive, send)
            except SendTimeoutError:
                log.info("the client of a stream of %s stopped reading; dropped", follow.followed)
            finally:
                follow.release()
                ended()

        return streamed

    async def long_poll(self, request: Request) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """``GET /v1/games/{id}/events`` with ``wait``: the page after ``after`` once there is one, or once
        ``wait`` is over."""
        checked = await self.checked(request, self._check_long_poll)
        if not isinstance(checked, Follow):
            return checked
        gone = asyncio.ensure_future(_disconnected(request.receive))
        try:
            return await self._woken_page(checked, gone)
        finally:
            gone.cancel()
            checked.release()

    def _check_long_poll(self) -> Follow | Response:
        """The page at once if it has news (or ``wait`` is 0), else the follower to wait (in the app's request).

        A follower asking again right after its answer most often finds nothing new: the page is read up to
        the newest version this process heard of, which reads neither the version nor (when the game's table
        is cached at it) the log; the next event wakes the follower."""
        query = PARSER.parse(EVENTS_QUERY, location="query")
        game_id, token, after, wait = request.view_args["game_id"], bearer_token(), query["after"], query["wait"]
        page = self.games.events(game_id, token, after=after, limit=query["limit"], as_heard=wait > 0)
        if page["events"] or wait <= 0:
            return page_response(page, token)
        return Follow(game_id, token, after, min(wait, self.games.max_wait),
                      self.followers.take("long_poll", request.remote_addr), limit=query["limit"],
                      if_none_match=request.headers.get("If-None-Match"), answered=answered_later())

    async def _woken_page(self, poll: Follow, gone: asyncio.Future[None]) -> Callable[..., Awaitable[None]]:
        """The page once the game passes ``after`` or the wait is over, read once for all who wait alike.

        A wake-up whose page shows nothing new is not answered with that empty page, which the client would
        ask again at once: the long-poll waits for news past it, at most ``FRUITLESS_WAIT``, and reads again,
        until its time is up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + poll.timeout
        since, wait = poll.after, poll.timeout
        while (woken := await self.hub.wait(poll.followed, since, wait, gone)) is not None:
            try:
                page = await self.shared(("page", poll.followed, poll.after, poll.limit, poll.token, woken),
                                         partial(self._read_page, poll))
            except Exception as error:
                page = _answer(errors.problem_for(error), {"REQUEST_METHOD": "GET"})
            remaining = deadline - loop.time()
            if page.news or page.status != 200 or remaining <= 0:
                return poll.answer(_conditional(page, poll.if_none_match))
            since, wait = (max(since, woken), min(FRUITLESS_WAIT, remaining)) if woken else (poll.after, remaining)
        return _nothing  # (the client left)

    def _read_page(self, poll: Follow) -> Answer:
        """The page a woken long-poll answers, up to the newest version this process heard of (in a thread)."""
        page = self.games.events(poll.followed, poll.token, after=poll.after, limit=poll.limit, as_heard=True)
        return answer_of(self.flask, partial(page_response, page, poll.token), news=bool(page["events"]) or page["over"])

    async def stream(self, request: Request) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """``GET /v1/games/{id}/events/stream``: the events as Server-Sent Events until the game is over or
        ``timeout`` runs out."""
        checked = await self.checked(request, self._check_stream)
        if not isinstance(checked, Follow):
            return checked
        return self.event_stream(checked, self._frames(checked), "CARDHALL_SSE_HEARTBEAT", "heartbeat")

    def _check_stream(self) -> Follow:
        """The stream to follow (in the app's request)."""
        headers = PARSER.parse(STREAM_HEADERS, location="headers")
        query = PARSER.parse(STREAM_QUERY, location="query")
        game_id, token = request.view_args["game_id"], bearer_token()
        self.games.events(game_id, token, after=0, limit=1)  # checks the game and the token before streaming
        after = query.get("after", headers.get("last_event_id", 0))
        timeout = min(query["timeout"], current_app.config["CARDHALL_STREAM_MAX"])
        return Follow(game_id, token, after, timeout, self.followers.take("stream", request.remote_addr))

    async def _frames(self, follow: Follow) -> AsyncIterator[bytes]:
        """How soon to reconnect and what it streams, then each new event as it comes, until the game is over
        or the time is up.

        One read a wake-up: once what it found is sent (up to the version this process heard of, with
        no read of the version), the stream waits for the next announcement, unless the page's limit
        left events to read at once. A wake-up whose read shows nothing new is followed by a wait for
        news past it, of at most ``FRUITLESS_WAIT``, and another read."""
        loop = asyncio.get_running_loop()
        game_id, after, deadline, woken = follow.followed, follow.after, loop.time() + follow.timeout, 0
        yield f"retry: 1000\n: streaming events of {game_id} after {after}\n\n".encode()
        while True:  # (woken: the version a wake-up heard)
            try:
                batch: Batch = await self.shared((game_id, follow.token, after, woken),
                                                 partial(stream_batch, self.games, game_id, follow.token, after, bool(woken)))
            except Exception:  # (the answer has begun: all that is left is to end it)
                log.exception("the stream of %s ended on an error", game_id)
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
            woken = await self.hub.wait(game_id, since, min(wait, remaining)) or 0


def _conditional(page: Answer, if_none_match: str | None) -> Answer:
    """``page`` as an answer to a request with ``If-None-Match`` (a 304 if it matches the page's ETag)."""
    if if_none_match is None:
        return page
    response = Response(page.body, page.status, [(n.decode("latin-1"), v.decode("latin-1")) for n, v in page.headers])
    return _answer(response.make_conditional({"REQUEST_METHOD": "GET", "HTTP_IF_NONE_MATCH": if_none_match}),
                   {"REQUEST_METHOD": "GET"})


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass

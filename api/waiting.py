"""The waiting endpoints, ``async`` handlers of the ASGI app (:mod:`api.asgi`): one long-poll and one event
stream for whatever is followed, a game's log (``GET /v1/games/{id}/events`` with ``wait`` and
``/events/stream``, here) or an account's events (:mod:`api.account_stream`).

Each request is checked in the thread pool inside the Flask app's request for it (:func:`in_flask`): the
same before-request hooks (limits on the head, request id, rate limits), query schemas, token checks and
follower slots, every error answered by :mod:`api.errors` and every answer given the app's after-request
headers. One request is checked on the loop instead, where those hooks would add nothing to it: a spectator's
long-poll with nothing to read yet (:meth:`Waiting.quiet_long_poll`), the one every answered follower sends.
The check gives a :class:`Follow`: how to read what is new after a version and how to wait for news. Then
one loop (:meth:`Waiting.pages`) reads in the pool, once for all who read alike, and waits holding no
thread. A long-poll answers its first page with news as a Starlette response; a stream is framed, kept
alive and ended (client gone, server stopping, a client that stops reading) by sse-starlette's
``EventSourceResponse``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import io
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from types import MappingProxyType
from typing import Any, TypeVar

import anyio
from a2wsgi.wsgi import build_environ
from flask import Flask, Response, current_app, request
from marshmallow import ValidationError
from sse_starlette import EventSourceResponse, ServerSentEvent
from sse_starlette.sse import SendTimeoutError
from starlette import responses
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send
from werkzeug.http import parse_etags

from api import errors, limits, metrics, requestlog
from api.context import bearer_token, final_headers
from api.mount import whole_answer
from api.parsing import Blueprint, headers_fit, line_fits
from api.schemas import EventsQuerySchema, EventsSchema, StreamHeadersSchema, StreamQuerySchema
from service.errors import Unavailable
from service.following import Hub
from service.games import GameService
from service.queries import MAX_LIMIT_EVENTS

log = logging.getLogger(__name__)
T = TypeVar("T")
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
PLAIN_DEFAULTS = {name: field.load_default for name, field in EVENTS_QUERY.fields.items()}
PARSER = Blueprint.ARGUMENTS_PARSER


@dataclasses.dataclass(frozen=True)
class Page:
    """What a read found after some version: the body to send (a long-poll's JSON, or a stream's frames), the
    last version it holds, whether it is news (a long-poll answers it), whether the followed thing is over
    (nothing more will come), whether more is left to read at once (the read's limit cut it), the headers
    of a long-poll's answer, and ``mark``, which the follower's wait may need (an account's generation)."""

    body: bytes
    after: int
    news: bool
    over: bool = False
    more: bool = False
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    mark: int = 0


Wait = Callable[[int, float, "asyncio.Future[None] | None", Page], Awaitable["int | None"]]


@dataclasses.dataclass
class Follow:
    """A checked follower, holding its slot until ``release()``: ``read(after, woken)`` what is new (in a thread;
    ``woken``: up to the version this process heard of), shared by the followers with the same ``share``, and
    made the follower's page by ``shape`` (by default the read is the page);
    ``wait(since, timeout, gone, page)`` for news past ``since``: the version heard, 0 (none: the time is up)
    or None (the client left). ``first``: the read its check made, if any (then it waits first). ``headers``:
    those the app gave its answer (request id, rate limits, CORS); ``answered(status)`` writes a long-poll's
    access line and count once it is answered."""

    share: Hashable
    read: Callable[[int, bool], Any]
    wait: Wait
    after: int
    timeout: float
    release: Callable[[], None]
    if_none_match: str | None = None
    answered: Callable[[int], None] = lambda status: None
    first: Page | None = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    shape: Callable[[Any], Page] = lambda page: page


def in_flask(app: Flask, scope: Scope, check: Callable[[], Follow | Any]) -> Follow | responses.Response:
    """``check()`` inside the Flask app's request for ``scope`` (in a thread): after its before-request hooks,
    and with its error handlers and after-request hooks around what it answers. A follower ``check``
    gives gets the headers of the app's answer but those of its body, which the page or the stream sets."""
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
            return _starlette(app.finalize_request(answer), environ)
        try:
            headers = app.finalize_request(Response()).headers
        except BaseException:
            answer.release()
            raise
        answer.headers = {name: value for name, value in headers.items()
                          if name.lower() not in ("content-type", "content-length")}
        return answer


def _starlette(response: Response, environ: dict[str, Any], headers: dict[str, str] | None = None) -> responses.Response:
    """A Flask ``response``, as its WSGI call makes it for ``environ`` (conditional, HEAD), as Starlette sends it;
    with ``headers`` where it has none of the name."""
    status, own, body = whole_answer(response, environ)
    return responses.Response(body, status, {**(headers or {}), **{n.decode("latin-1"): v.decode("latin-1") for n, v in own}})


def answered_later() -> Callable[[int], None]:
    """This request's access line and count (in its Flask request), written when called with its status,
    not at the request's end: a long-poll's, once it is answered."""
    return _all(requestlog.answered_later(), metrics.answered_later())


def _all(*hooks: Callable[[int], None]) -> Callable[[int], None]:
    """One function that calls each of ``hooks`` with the status it is given."""

    def answered(status: int) -> None:
        for hook in hooks:
            hook(status)

    return answered


def json_body(data: Any) -> bytes:
    """``data`` as the app's ``jsonify`` writes it (compact, keys in their order, a line: api.create_app)."""
    return (json.dumps(data, separators=(",", ":")) + "\n").encode()


@dataclasses.dataclass(eq=False)
class Found:
    """One read of a game's log after ``after``, as ``games.events`` gives it (at most ``MAX_LIMIT_EVENTS``
    events), shared by every follower of the game woken alike, its streams and long-polls of any limit: each
    kind of page is made from it once (:meth:`page`)."""

    after: int
    events: list[dict[str, Any]]
    last_version: int
    over: bool
    pages: dict[Hashable, Page] = dataclasses.field(default_factory=dict)

    def page(self, kind: Hashable, make: Callable[[Found], Page]) -> Page:
        """The page of ``kind`` (a long-poll's of a limit, a stream's), made by ``make`` the first time."""
        if (page := self.pages.get(kind)) is None:
            page = self.pages[kind] = make(self)
        return page


def read_events(games: GameService, game_id: str, token: str | None, after: int, woken: bool) -> Found:
    """The log after ``after`` as ``token`` may see it (``woken``: up to the newest version heard), in a thread."""
    page = games.events(game_id, token, after=after, limit=MAX_LIMIT_EVENTS, as_heard=woken)
    return Found(after, page["events"], page["last_version"], page["over"])


def long_poll_page(token: str | None, limit: int, found: Found) -> Page:
    """The page of at most ``limit`` events a long-poll answers from what a read ``found``."""
    events = found.events[:limit]
    headers = final_headers(found.last_version, token) if found.over else {}
    return Page(json_body(EVENTS_PAGE.dump({"events": events, "last_version": found.last_version})), found.after,
                bool(events) or found.over, found.over, headers=headers)


def stream_batch(found: Found) -> Page:
    """The SSE frames of the events a read ``found`` (id = version, event = type, data = the event); over once
    the game is finished and every event sent, more when the read's limit cut it."""
    after, frames = found.after, []
    for event in found.events:
        after = event["version"]
        frames.append(f"id: {after}\nevent: {event['type']}\ndata: {json.dumps(event)}\n\n")
    last = found.last_version
    return Page("".join(frames).encode(), after, bool(frames), found.over and after >= last, after < last)


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
        # (the app's hooks act on every request with per-client limits, or with other origins allowed)
        self.hooks_idle = not limits.enabled(flask) and not flask.config.get("CARDHALL_CORS_ORIGINS")
        self.events_route = next(rule.rule for rule in flask.url_map.iter_rules() if rule.endpoint == "games.Events")

    async def checked(self, request: Request, check: Callable[[], Follow | Any],
                      quiet: Callable[[Request], Follow | None] = lambda request: None) -> Follow | responses.Response:
        """``quiet(request)`` on the loop, else ``check()`` in the app's request for ``request`` (:func:`in_flask`),
        in the followers' pool."""
        if self._loop is not (loop := asyncio.get_running_loop()):  # (the hub and the reads are a loop's)
            self._loop, self._reading = loop, {}
            self.hub = Hub(self.games, self.in_pool, metrics.fanned_out)
        return quiet(request) or await self.in_pool(partial(in_flask, self.flask, request.scope, check))

    async def in_pool(self, function: Callable[[], T]) -> T:
        """``function()`` in one of the followers' threads (a plain executor: anyio's ``to_thread`` cost a
        crossing more than twice the CPU, measured with a hundred at once)."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, function)

    async def shared(self, key: Hashable, function: Callable[[], T]) -> T:
        """``function()`` in the pool, once for all who ask with the same ``key`` while it
        runs: the followers of a game woken by one event all read the same next events. Followers put in the
        key the version their wake-up heard (0: none), so that one woken by an append never joins a read
        begun before it, which could not show it."""
        if (reading := self._reading.get(key)) is None:
            reading = self._reading[key] = asyncio.ensure_future(self.in_pool(function))
            reading.add_done_callback(lambda _: self._reading.pop(key, None))
        return await asyncio.shield(reading)

    async def pages(self, follow: Follow, gone: asyncio.Future[None] | None = None) -> AsyncIterator[Page]:
        """What is new after the follower's version, page after page, each as soon as there is one, until the
        followed thing is over or the time is up (then the last page read, news or not).

        One read a wake-up: once what it found is given, the follower waits for the next announcement (up to
        the version this process heard of, with no read of the version), unless the read's limit left more to
        read at once. A wake-up whose read shows nothing new is followed by a wait for news past it, of at
        most ``FRUITLESS_WAIT``, and another read: never straight back, which would spin the event loop."""
        loop = asyncio.get_running_loop()
        after, deadline, woken, page = follow.after, loop.time() + follow.timeout, 0, follow.first
        while True:  # (woken: the version a wake-up heard)
            if page is None:
                page = follow.shape(await self.shared((follow.share, after, woken), partial(_read, follow, after, bool(woken))))
            remaining = deadline - loop.time()
            if page.news or page.over or remaining <= 0:
                yield page
            if page.over or remaining <= 0:
                return
            if page.news:
                after, woken = page.after, 0
                if page.more:
                    page = None
                    continue
            since, wait = (max(after, woken), FRUITLESS_WAIT) if woken else (after, remaining)
            if (heard := await follow.wait(since, min(wait, remaining), gone, page)) is None:
                return
            woken, page = heard, None

    async def long_poll(self, request: Request, check: Callable[[], Follow | Any],
                        quiet: Callable[[Request], Follow | None] = lambda request: None) -> ASGIApp:
        """A long-poll: the first page with news after ``after``, or the last read once ``wait`` is over; a 304
        if it is final and its ETag matches ``If-None-Match``. (``quiet``: as for :meth:`checked`.)"""
        checked = await self.checked(request, check, quiet)
        if not isinstance(checked, Follow):
            return checked
        gone = asyncio.ensure_future(_disconnected(request.receive))
        try:
            async with contextlib.aclosing(self.pages(checked, gone)) as pages:
                async for page in pages:
                    return _answer(checked, page)
        except Exception as error:
            return _told(_starlette(errors.problem_for(error), {"REQUEST_METHOD": "GET"}, checked.headers), checked)
        finally:
            gone.cancel()
            checked.release()
        return _nothing  # (the client left)

    async def stream(self, request: Request, check: Callable[[], Follow | Any], heartbeat: str = "CARDHALL_SSE_HEARTBEAT",
                     comment: str = "heartbeat", preamble: bool = True,
                     opened: Callable[[Follow], Callable[[], None]] = lambda follow: lambda: None) -> ASGIApp:
        """An event stream: how soon to reconnect, then the frames of each page as it comes, until the followed
        thing is over or the time is up; a ``comment`` every ``heartbeat`` seconds (that config value). Its
        slot is free once it ends (and ``opened(follow)``'s function is called); a client that stops reading
        is dropped."""
        follow = await self.checked(request, check)
        if not isinstance(follow, Follow):
            return follow
        ended = opened(follow)
        response = EventSourceResponse(
            self._frames(follow, preamble), headers={"Cache-Control": "no-cache", **follow.headers},
            ping=float(self.flask.config[heartbeat]), sep="\n", send_timeout=SEND_TIMEOUT,
            ping_message_factory=lambda: ServerSentEvent(comment=comment, sep="\n"))

        async def streamed(scope: Scope, receive: Receive, send: Send) -> None:
            try:
                with anyio.move_on_after(follow.timeout + CLOSING_GRACE):
                    await response(scope, receive, send)
            except SendTimeoutError:
                log.info("the client of a stream of %s stopped reading; dropped", follow.share)
            finally:
                follow.release()
                ended()

        return streamed

    async def _frames(self, follow: Follow, preamble: bool) -> AsyncIterator[bytes]:
        if preamble:
            yield f"retry: 1000\n: streaming events of {follow.share[1]} after {follow.after}\n\n".encode()
        try:
            async for page in self.pages(follow):
                if page.body:
                    yield page.body
        except Exception:  # (the answer has begun: all that is left is to end it)
            log.exception("the stream of %s ended on an error", follow.share)

    def check_long_poll(self) -> Follow | dict[str, Any] | Response:
        """The page at once if it has news (or ``wait`` is 0), else the follower to wait (in the app's request).

        A follower asking again right after its answer most often finds nothing new: the page is read up to
        the newest version this process heard of, which reads neither the version nor (when the game's table
        is cached at it) the log; the next event wakes the follower."""
        query = PARSER.parse(EVENTS_QUERY, location="query")
        game_id, token, after, wait, limit = (request.view_args["game_id"], bearer_token(), query["after"],
                                              query["wait"], query["limit"])
        page = long_poll_page(token, limit, Found(after, **self.games.events(game_id, token, after=after, limit=limit,
                                                                          as_heard=wait > 0)))
        if page.news or wait <= 0:
            return Response(page.body, headers=page.headers, mimetype="application/json")
        return self._page_follow(game_id, token, limit, after, wait, self.followers.take("long_poll", request.remote_addr),
                                 if_none_match=request.headers.get("If-None-Match"), answered=answered_later(), first=page)

    def quiet_long_poll(self, request: Request) -> Follow | None:
        """A long-poll of a game with nothing after ``after`` yet for its follower (a spectator, or a seat token this
        process knows), checked here, on the loop, without the app; or None: the app's to check (an account key,
        a token not known here, a head or query the app would refuse or not take as plainly, news to answer at
        once, no free slot, an app whose hooks act on every request).

        A follower answered asks again at once and most often finds nothing new: in the app, a whole request
        in a thread, only to wait (docs/performance.md, "Followers"). This makes the app's checks of it (the
        head's limits, the query's schema, a follower slot) and gives it what the app gives every answer:
        its request id, access line and count. Whether the game is quiet is known without a read."""
        scope, started = request.scope, time.perf_counter()
        text, heads, client = scope["query_string"].decode("latin-1"), scope["headers"], (scope.get("client") or (None,))[0]
        if not self.hooks_idle or scope["method"] != "GET" or not line_fits("GET", f"{scope['path']}?{text}") \
                or not headers_fit(heads):
            return None
        game_id, query, token = request.path_params["game_id"], _plain_query(text), _plain_bearer(heads)
        if query is None or token is False or query["wait"] <= 0 or not self.games.quiet(game_id, query["after"], token):
            return None
        try:
            release = self.followers.take("long_poll", client)
        except Unavailable:
            return None
        asked, tags = _joined(heads, b"x-request-id"), _joined(heads, b"if-none-match")  # (as the app reads them)
        identity = requestlog.request_id_for(asked)
        answered = _all(requestlog.access_line("GET", scope["path"], self.events_route, client, identity, started),
                        metrics.request_count(self.events_route, "GET", self.games))
        return self._page_follow(game_id, token, query["limit"], query["after"], query["wait"], release,
                                 if_none_match=tags or None, answered=answered,
                                 first=Page(b"", query["after"], news=False),  # (nothing new to read: it waits first)
                                 headers={requestlog.HEADER: identity})

    def _page_follow(self, game_id: str, token: str | None, limit: int, after: int, wait: float,
                     release: Callable[[], None], **more: Any) -> Follow:
        """A long-poll of a game's log, holding the slot ``release`` gives back."""
        return self._game_follow(game_id, token, after, min(wait, self.games.max_wait), release,
                                 lambda found: found.page(limit, partial(long_poll_page, token, limit)), **more)

    def _game_follow(self, game_id: str, token: str | None, after: int, timeout: float, release: Callable[[], None],
                     shape: Callable[[Found], Page], **more: Any) -> Follow:
        """A follower of a game's log (a long-poll or a stream: ``shape`` makes its kind of page), sharing the reads
        of every follower of the game with the same token, woken by the hub."""
        return Follow(("game", game_id, token), partial(read_events, self.games, game_id, token),
                      lambda since, timeout, gone, page: self.hub.wait(game_id, since, timeout, gone), after, timeout,
                      release, shape=shape, **more)

    def check_stream(self) -> Follow:
        """The stream to follow (in the app's request)."""
        headers = PARSER.parse(STREAM_HEADERS, location="headers")
        query = PARSER.parse(STREAM_QUERY, location="query")
        game_id, token = request.view_args["game_id"], bearer_token()
        self.games.events(game_id, token, after=0, limit=1)  # checks the game and the token before streaming
        after = query.get("after", headers.get("last_event_id", 0))
        timeout = min(query["timeout"], current_app.config["CARDHALL_STREAM_MAX"])
        return self._game_follow(game_id, token, after, timeout, self.followers.take("stream", request.remote_addr),
                                 lambda found: found.page("stream", stream_batch))


def _read(follow: Follow, after: int, woken: bool) -> Any:
    """What ``follow`` reads after ``after``, with its own kind of page made from it (in the pool: the follower
    that begins a read shapes it there; a follower of another kind sharing it, on the loop)."""
    found = follow.read(after, woken)
    follow.shape(found)
    return found


@functools.lru_cache(maxsize=4096)
def _plain_query(text: str) -> Mapping[str, Any] | None:
    """A long-poll's query (with its defaults) if it is plainly one the app takes: each of its parameters
    once, as plain decimal digits, valid by their fields of its schema; else None (the app decides). The
    followers of a game ask alike (the same ``after`` and ``wait``): each text is checked once, while it
    is among the last few thousand asked (a query's text is at most a request line)."""
    query: dict[str, Any] = {}
    for pair in text.split("&") if text else ():
        name, _, value = pair.partition("=")
        if (field := EVENTS_QUERY.fields.get(name)) is None or name in query or not value.isascii() or not value.isdigit():
            return None
        try:
            query[name] = field.deserialize(value)
        except ValidationError:
            return None
    return MappingProxyType({**PLAIN_DEFAULTS, **query})


def _joined(heads: list[tuple[bytes, bytes]], name: bytes) -> str:
    """The values of a request's headers named ``name`` (lower case), joined by commas as its WSGI environ joins
    them for the app; "" for none. (Read from the scope: Starlette's ``request.headers`` builds a mapping first.)"""
    return ",".join(value.decode("latin-1") for key, value in heads if key == name)


def _plain_bearer(heads: list[tuple[bytes, bytes]]) -> str | bool | None:
    """The bearer token of a request's one ``Authorization`` header as the app reads it (None: no header), or
    False: not plainly one (the app decides)."""
    given = [value.decode("latin-1") for name, value in heads if name == b"authorization"]
    if not given:
        return None
    scheme, _, token = given[0].partition(" ")
    return token.strip() if len(given) == 1 and scheme.lower() == "bearer" and token.strip() else False


def _answer(follow: Follow, page: Page) -> ASGIApp:
    """``page`` as the follower's answer, with the app's headers: a 304 if its ETag matches ``If-None-Match``."""
    headers = {**follow.headers, **page.headers}
    tag = page.headers.get("ETag")
    if tag and follow.if_none_match and parse_etags(follow.if_none_match).contains_weak(tag.strip('"')):
        return _told(responses.Response(status_code=304, headers=headers), follow)
    return _told(responses.Response(page.body, headers=headers, media_type="application/json"), follow)


def _told(answer: responses.Response, follow: Follow) -> ASGIApp:
    """``answer``, whose status the follower's ``answered`` is told once it is sent."""

    async def send_and_tell(scope: Scope, receive: Receive, send: Send) -> None:
        await answer(scope, receive, send)
        follow.answered(answer.status_code)

    return send_and_tell


async def _nothing(scope: Scope, receive: Receive, send: Send) -> None:
    """No answer: the client left."""


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass

"""The account's events as it waits for them: ``GET /v1/account/stream`` (Server-Sent Events) and
``GET /v1/account/events`` with ``wait`` (a long-poll), ``async`` handlers of the ASGI app (:mod:`api.asgi`).

Served by :mod:`api.waiting` as a game's log is: this says how to check the request (the key and its
``read`` scope), how to read an account's events and how to wait for them, on the process's account
hub (:class:`service.hub.AccountHub`). A stream sends a keep-alive comment
every ``CARDHALL_ACCOUNT_HEARTBEAT`` seconds (10 by default) and resumes after ``Last-Event-ID``;
an account holds at most ``CARDHALL_ACCOUNT_STREAMS`` streams open in a process: a new one past
that closes the account's oldest, as Lichess's event stream does.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import marshmallow as ma
from flask import Flask, Response, current_app, request
from marshmallow import fields, validate
from starlette.requests import Request
from starlette.types import ASGIApp

from api.context import bearer_token
from api.schemas import Lenient, QueryInteger, QueryNumber, Strict, Timestamp
from api.waiting import PARSER, Follow, Page, Waiting, answered_later, json_body
from service.accounts import READ, rendered
from service.errors import Unauthorized
from service.timestamps import json_default


class AccountStreamQuerySchema(Strict):
    after = QueryInteger(validate=validate.Range(min=0, max=2**31 - 1),
                         metadata={"description": "Start after this event id (default: Last-Event-ID, else 0)"})
    timeout = QueryNumber(load_default=3600, validate=validate.Range(min=0, max=3600),
                          metadata={"description": "Seconds before the server ends the stream (reconnect then)"})


class AccountEventsQuerySchema(Strict):
    after = QueryInteger(load_default=None, validate=validate.Range(min=0, max=2**31 - 1),
                         metadata={"description": "The id of the last event seen (default: Last-Event-ID, else 0)"})
    limit = QueryInteger(load_default=100, validate=validate.Range(min=1, max=1000))
    wait = QueryNumber(load_default=0, validate=validate.Range(min=0, max=30),
                       metadata={"description": "Seconds to wait for an event after 'after'"})


class AccountHeadersSchema(Lenient):
    last_event_id = QueryInteger(data_key="Last-Event-ID", validate=validate.Range(min=0, max=2**31 - 1),
                                 metadata={"description": "Resume after this event id (when the query has no after)"})


class AccountEventSchema(ma.Schema):
    id = fields.Integer(metadata={"description": "Counts the account's events from 1; resume after it"})
    type = fields.String(metadata={"description": "challenge, challengeAccepted, challengeCanceled, challengeDeclined, "
                                                  "gameStart or gameFinish"})
    data = fields.Dict()
    recorded_at = Timestamp()


class AccountEventsSchema(ma.Schema):
    events = fields.List(fields.Nested(AccountEventSchema))
    last_id = fields.Integer()


STREAM_QUERY, EVENTS_QUERY, EVENTS_PAGE = AccountStreamQuerySchema(), AccountEventsQuerySchema(), AccountEventsSchema()
HEADERS = AccountHeadersSchema()


def last_event_id() -> int:
    """The ``Last-Event-ID`` header as an event id, 0 without one; 422 for one that is no id, as a game's stream
    answers (taken as 0, ten digits past the ids' 32-bit range were a 500 on PostgreSQL, and garbage replayed
    every event from the first)."""
    return PARSER.parse(HEADERS, location="headers").get("last_event_id", 0)


def page(found: list[Any], after: int) -> dict[str, Any]:
    """A page of the account's events as ``GET /v1/account/events`` answers it."""
    return {"events": [rendered(event) for event in found], "last_id": found[-1].seq if found else after}


class AccountFollowing:
    """The account streams and long-polls of one Flask app's process, served by :class:`api.waiting.Waiting`."""

    def __init__(self, flask: Flask, waiting: Waiting) -> None:
        self.flask = flask
        self.waiting = waiting
        self.accounts = flask.extensions["cardhall"].accounts
        self.followers = flask.extensions["cardhall_followers"]
        self._open: defaultdict[str, deque[asyncio.Event]] = defaultdict(deque)  # (on the loop only)

    async def stream(self, request: Request) -> ASGIApp:
        """``GET /v1/account/stream``: the account's events as Server-Sent Events, for ``timeout`` seconds, until
        a newer stream of the account closes it or its key is revoked (asked at every wake-up, at least every
        few seconds)."""
        closed = asyncio.Event()
        return await self.waiting.stream(request, partial(self._check_stream, closed), "CARDHALL_ACCOUNT_HEARTBEAT",
                                         "keep-alive", preamble=False, opened=partial(self._opened, closed))

    def _opened(self, closed: asyncio.Event, follow: Follow) -> Callable[[], None]:
        """A stream of the account opens: past the cap, the account's oldest streams close. What to call once it ends."""
        account = follow.share[1]
        streams = self._open[account]
        streams.append(closed)
        for oldest in list(streams)[:max(0, len(streams) - int(self.flask.config["CARDHALL_ACCOUNT_STREAMS"]))]:
            oldest.set()

        def ended() -> None:
            streams.remove(closed)
            if not streams:
                self._open.pop(account, None)

        return ended

    def _check_stream(self, closed: asyncio.Event) -> Follow:
        """The account stream to follow (in the app's request): the key needs ``read``."""
        query = PARSER.parse(STREAM_QUERY, location="query")
        token = bearer_token()
        key = self.accounts.required_caller(token, READ).key
        after = query["after"] if "after" in query else last_event_id()
        timeout = min(query["timeout"], current_app.config["CARDHALL_STREAM_MAX"])
        return self._follow(("stream", key, id(closed)), partial(self._frames, key, token, closed), after, timeout,
                            "stream", closed)

    def check_long_poll(self) -> Follow | Any:
        """The page at once if it has events (or ``wait`` is 0), else the follower to wait (in the app's request)."""
        query, token = PARSER.parse(EVENTS_QUERY, location="query"), bearer_token()
        key, limit = self.accounts.required_caller(token, READ).key, query["limit"]
        after = last_event_id() if query["after"] is None else query["after"]
        if query["wait"] <= 0:
            return page(self.accounts.events(key, after, limit), after)
        follow = self._follow(("page", key, limit, token), partial(self._page, key, limit, token), after,
                              min(query["wait"], self.flask.extensions["cardhall"].max_wait), "long_poll", asyncio.Event(),
                              answered=answered_later())
        try:
            follow.first = self._page(key, limit, token, after, False)  # (read once the hub runs: news past it wakes it)
        except BaseException:
            follow.release()
            raise
        if follow.first.news:
            follow.release()
            return Response(follow.first.body, mimetype="application/json")
        return follow

    def _follow(self, share: Any, read: Callable[[int, bool], Page], after: int, timeout: float,
                kind: str, closed: asyncio.Event, **more: Any) -> Follow:
        """A follower of an account, holding a slot and the hub's thread; woken by the hub (or ``closed``)."""
        hub, slot = self.accounts.hub, self.followers.take(kind, request.remote_addr)
        try:
            unfollow = hub.follow()
        except BaseException:
            slot()
            raise

        async def wait(since: int, timeout: float, gone: asyncio.Future[None] | None, page: Page) -> int | None:
            await _first(hub.wait_async(share[1], page.mark, timeout), closed.wait(), *([gone] if gone else []))
            return None if gone is not None and gone.done() else 0

        def release() -> None:
            unfollow()
            slot()

        return Follow(share, read, wait, after, timeout, release, **more)

    def _page(self, key: str, limit: int, token: str | None, after: int, woken: bool) -> Page:
        """The page of the account's events after ``after`` (in a thread); 401 once the long-poll's key is revoked, as
        a stream of the key ends (a long-poll waiting when its key was revoked was answered the events that came)."""
        self.accounts.required_caller(token, READ)
        generation = self.accounts.hub.generation(key)
        found = self.accounts.events(key, after, limit)
        return Page(json_body(EVENTS_PAGE.dump(page(found, after))), after, bool(found), mark=generation)

    def _frames(self, key: str, token: str | None, closed: asyncio.Event, after: int, woken: bool) -> Page:
        """The SSE frames of the account's events after ``after`` (``id``: its id, ``event``: its type, ``data``: its
        JSON); over once the stream is closed or its key revoked (in a thread)."""
        generation = self.accounts.hub.generation(key)
        if closed.is_set() or not self._valid(token):
            return Page(b"", after, False, over=True)
        found, frames = self.accounts.events(key, after, 100), []
        for event in found:
            after = event.seq
            frames.append(f"id: {after}\nevent: {event.type}\ndata: {json.dumps(rendered(event), default=json_default)}\n\n")
        return Page("".join(frames).encode(), after, bool(found), more=len(found) == 100, mark=generation)

    def _valid(self, key: str | None) -> bool:
        """Whether the stream's key is still good (not revoked)."""
        try:
            return self.accounts.caller(key) is not None
        except Unauthorized:
            return False


async def _first(*waits: Awaitable[Any]) -> None:
    """Until the first of ``waits`` is done; the others are cancelled (but a future given, which is another's)."""
    tasks = [wait if isinstance(wait, asyncio.Future) else asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task, wait in zip(tasks, waits):
            if task is not wait:
                task.cancel()

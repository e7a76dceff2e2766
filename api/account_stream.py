"""The account's events as it waits for them: ``GET /v1/account/stream`` (Server-Sent Events) and
``GET /v1/account/events`` with ``wait`` (a long-poll), ``async`` handlers of the ASGI app (:mod:`api.asgi`).

As :mod:`api.waiting` does for a game's log: the request is checked in the thread pool inside
the Flask app's request for it (its hooks, the key and its ``read`` scope, its errors and
headers), then waits holding no thread, on the process's account hub
(:class:`service.hub.AccountHub`), reading in the pool. A stream sends a keep-alive comment
every ``CARDHALL_ACCOUNT_HEARTBEAT`` seconds (10 by default) and resumes after ``Last-Event-ID``;
an account holds at most ``CARDHALL_ACCOUNT_STREAMS`` streams open in a process: a new one past
that closes the account's oldest, as Lichess's event stream does.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import marshmallow as ma
from flask import Flask, Response, current_app, jsonify, request
from marshmallow import fields, validate
from sse_starlette import ServerSentEvent
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from api.context import bearer_token
from api.schemas import QueryInteger, QueryNumber, Strict
from api.waiting import PARSER, Follow, Waiting, answer_of, answered_later
from service.accounts import READ, rendered
from service.errors import Unauthorized


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


class AccountEventSchema(ma.Schema):
    id = fields.Integer(metadata={"description": "Counts the account's events from 1; resume after it"})
    type = fields.String(metadata={"description": "challenge, challengeAccepted, challengeCanceled, challengeDeclined, "
                                                  "gameStart or gameFinish"})
    data = fields.Dict()
    recorded_at = fields.DateTime()


class AccountEventsSchema(ma.Schema):
    events = fields.List(fields.Nested(AccountEventSchema))
    last_id = fields.Integer()


STREAM_QUERY, EVENTS_QUERY, EVENTS_PAGE = AccountStreamQuerySchema(), AccountEventsQuerySchema(), AccountEventsSchema()


def last_event_id() -> int:
    """The ``Last-Event-ID`` header as an event id; 0 without one (or with one that is no id)."""
    value = request.headers.get("Last-Event-ID", "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 10 else 0


def page(found: list[Any], after: int) -> dict[str, Any]:
    """A page of the account's events as ``GET /v1/account/events`` answers it."""
    return {"events": [rendered(event) for event in found], "last_id": found[-1].seq if found else after}


def _page_response(found: list[Any], after: int) -> Response:
    """That page as the long-poll answers it (within an app context)."""
    return jsonify(EVENTS_PAGE.dump(page(found, after)))


class AccountFollowing:
    """The account streams and long-polls of one Flask app's process."""

    def __init__(self, flask: Flask, waiting: Waiting) -> None:
        self.flask = flask
        self.waiting = waiting
        self.accounts = flask.extensions["cardhall"].accounts
        self.followers = flask.extensions["cardhall_followers"]
        self._open: defaultdict[str, deque[asyncio.Event]] = defaultdict(deque)  # (on the loop only)

    async def stream(self, request: Request) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """``GET /v1/account/stream``: the account's events as Server-Sent Events, for ``timeout`` seconds."""
        checked = await self.waiting.checked(request, self._check_stream)
        if not isinstance(checked, Follow):
            return checked
        account, closed = checked.followed, asyncio.Event()
        streams = self._open[account]
        streams.append(closed)
        for oldest in list(streams)[:max(0, len(streams) - int(self.flask.config["CARDHALL_ACCOUNT_STREAMS"]))]:
            oldest.set()  # (past the cap, the account's oldest streams close)

        def ended() -> None:
            streams.remove(closed)
            if not streams:
                self._open.pop(account, None)

        return self.waiting.event_stream(checked, self._frames(checked, closed), "CARDHALL_ACCOUNT_HEARTBEAT",
                                         "keep-alive", ended)

    def _check_stream(self) -> Follow:
        """The account stream to follow (in the app's request): the key needs ``read``."""
        query = PARSER.parse(STREAM_QUERY, location="query")
        caller = self.accounts.required_caller(bearer_token(), READ)
        after = query["after"] if "after" in query else last_event_id()
        timeout = min(query["timeout"], current_app.config["CARDHALL_STREAM_MAX"])
        return Follow(caller.key, bearer_token(), after, timeout, self.followers.take("stream", request.remote_addr))

    async def _frames(self, follow: Follow, closed: asyncio.Event) -> AsyncIterator[ServerSentEvent]:
        """Each event of the account as it comes (``id``: its id, ``event``: its type, ``data``: its JSON),
        until the time is up, a newer stream of the account closes this one, or its key is revoked (asked
        at every wake-up, at least every few seconds)."""
        loop = asyncio.get_running_loop()
        account, after, deadline = follow.followed, follow.after, loop.time() + follow.timeout
        hub = self.accounts.hub
        with hub.following():
            while not closed.is_set() and await self.waiting.in_pool(partial(self._valid, follow.token)):
                generation = hub.generation(account)
                found = await self.waiting.in_pool(partial(self.accounts.events, account, after, 100))
                for event in found:
                    after = event.seq
                    yield ServerSentEvent(json.dumps(rendered(event), default=str), event=event.type,
                                          id=str(event.seq), sep="\n")
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return
                if len(found) < 100:
                    await _first(hub.wait_async(account, generation, remaining), closed.wait())

    def _valid(self, key: str | None) -> bool:
        """Whether the stream's key is still good (not revoked)."""
        try:
            return self.accounts.caller(key) is not None
        except Unauthorized:
            return False

    async def long_poll(self, request: Request) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
        """``GET /v1/account/events`` with ``wait``: the events after ``after`` once there are some, or
        once ``wait`` is over."""
        checked = await self.waiting.checked(request, self._check_long_poll)
        if not isinstance(checked, Follow):
            return checked
        try:
            hub, account, after = self.accounts.hub, checked.followed, checked.after
            deadline = time.monotonic() + checked.timeout
            with hub.following():
                while True:
                    generation = hub.generation(account)
                    found = await self.waiting.in_pool(partial(self.accounts.events, account, after, checked.limit))
                    remaining = deadline - time.monotonic()
                    if found or remaining <= 0:
                        break
                    await hub.wait_async(account, generation, remaining)
            answer = await self.waiting.in_pool(partial(answer_of, self.flask, partial(_page_response, found, after)))
            return checked.answer(answer)
        finally:
            checked.release()

    def _check_long_poll(self) -> Follow | Any:
        """The page at once if it has events (or ``wait`` is 0), else the follower to wait (in the app's request)."""
        query = PARSER.parse(EVENTS_QUERY, location="query")
        caller = self.accounts.required_caller(bearer_token(), READ)
        after = last_event_id() if query["after"] is None else query["after"]
        found = self.accounts.events(caller.key, after, query["limit"])
        if found or query["wait"] <= 0:
            return _page_response(found, after)
        wait = min(query["wait"], self.flask.extensions["cardhall"].max_wait)
        return Follow(caller.key, None, after, wait, self.followers.take("long_poll", request.remote_addr),
                      limit=query["limit"], answered=answered_later())


async def _first(*waits: Awaitable[Any]) -> None:
    """Until the first of ``waits`` is done; the others are cancelled."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()

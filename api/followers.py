"""Followers (long-polls and event streams): a per-process limit, and waits handed to the event loop.

Served through :mod:`api.asgi` (``cardhall serve``), a follower holds no thread
while it waits: the view checks everything as for any request, and where it
would wait it answers at once with a :class:`LongPoll` or :class:`Stream` left
in the ASGI scope (:func:`park`); the ASGI layer waits for the game's next event
on its event loop and then has the page read in the thread pool. Served by a
plain WSGI server (Flask's test client, Werkzeug's development server) the view
waits in its thread, as it always did, and :func:`client_gone` tells when its
client left.

A process follows at most ``CARDHALL_MAX_FOLLOWERS`` at once (``cardhall serve
--max-followers``) and answers any follower past that 503 ``unavailable`` with
``Retry-After``; ordinary requests never wait for a follower's slot.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import socket
import threading
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from flask import Response, current_app, request

from service.errors import Unavailable
from service.games import GameService

#: Keys of the ASGI scope shared by the ASGI layer and the views (a2wsgi hands it over as ``asgi.scope``).
ON_LOOP, FOLLOW, WOKEN, REQUEST_ID = "cardhall.on_loop", "cardhall.follow", "cardhall.woken", "cardhall.request_id"
#: The app's hooks run once a long-poll is answered on the event loop (see :func:`on_answered`).
ANSWERED = "cardhall_answered"


class Followers:
    """The follower slots of one process, and how many of each kind are open."""

    def __init__(self, limit: int, counted: Callable[[str, int], None] = lambda kind, change: None) -> None:
        """``counted(kind, +1 or -1)`` is told of each follower that starts or ends (metrics)."""
        self.limit = limit
        self.counted = counted
        self._open = 0
        self._lock = threading.Lock()

    def take(self, kind: str) -> None:
        """Take a slot now, or Unavailable (503) if every slot is taken."""
        with self._lock:
            if self._open >= self.limit:
                raise Unavailable(f"this server follows as many games as it can ({self.limit}); retry shortly")
            self._open += 1
        self.counted(kind, 1)

    def give_back(self, kind: str) -> None:
        """Free a slot taken by :meth:`take`."""
        with self._lock:
            self._open -= 1
        self.counted(kind, -1)

    @contextlib.contextmanager
    def slot(self, kind: str = "long_poll") -> Iterator[None]:
        """A slot for the time of the block."""
        self.take(kind)
        try:
            yield
        finally:
            self.give_back(kind)


def followers() -> Followers:
    """The app's followers."""
    return current_app.extensions["cardhall_followers"]


@dataclasses.dataclass(frozen=True)
class Answer:
    """A whole answer made outside a request: status, headers (as ASGI sends them) and body."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    news: bool = True  # False: a page with no event, of a game not over (a wake-up its read did not show)


@dataclasses.dataclass(frozen=True)
class LongPoll:
    """A long-poll waiting on the event loop. Once woken (or timed out) it is answered by ``page``'s read,
    ``(key, read)``, run once for all the long-polls asking with the same key (the same game, version,
    limit and viewer), then ``answered(status)`` is told; without ``page`` the request runs again."""

    game_id: str
    after: int
    timeout: float
    release: Callable[[], None]
    page: tuple[Hashable, Callable[[], Answer]] | None = None
    answered: Callable[[int], None] = lambda status: None


@dataclasses.dataclass(frozen=True)
class Batch:
    """What a stream sends next: the frames of the events after some version, the last version sent,
    whether the stream is over (the game finished and every event sent), and whether events are left
    past it (the page's limit cut it: read again at once; else wait for the next announcement)."""

    text: str
    after: int
    over: bool
    more: bool = False


@dataclasses.dataclass(frozen=True)
class Stream:
    """An event stream written by the event loop, which calls ``batch(after, woken)`` in the thread pool
    (once for all the streams of the game with the same token at the same version; ``woken``: by an
    announcement)."""

    game_id: str
    token: str | None
    after: int
    timeout: float
    heartbeat: float
    batch: Callable[[int, bool], Batch]
    release: Callable[[], None]


HEARTBEAT = ": heartbeat\n\n"


def stream_preamble(game_id: str, after: int) -> str:
    """What a stream sends first: how soon to reconnect, and a comment saying what it streams."""
    return f"retry: 1000\n: streaming events of {game_id} after {after}\n\n"


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


def scope() -> dict[str, Any]:
    """The ASGI scope of this request (a new empty dict without the ASGI layer)."""
    return request.environ.get("asgi.scope") or {}


def waits_on_loop() -> bool:
    """Whether this request is served through the ASGI layer, which waits for the views."""
    return bool(scope().get(ON_LOOP))


def may_park() -> bool:
    """Whether a wait of this request can be handed to the event loop (it was not handed over already)."""
    return waits_on_loop() and not woken()


def woken() -> bool:
    """Whether this is a long-poll's second run, after the event loop waited for it."""
    return bool(scope().get(WOKEN))


def answered_later() -> bool:
    """Whether this request's answer is not this one: a long-poll handed to the event loop runs again."""
    return isinstance(scope().get(FOLLOW), LongPoll)


def on_answered(app: Any, hook: Callable[[], Callable[[int], None]]) -> None:
    """Have ``hook()`` called in each request whose long-poll will be answered on the event loop; what it
    gives is called with the status once it is (the access line, the request's count)."""
    app.extensions.setdefault(ANSWERED, []).append(hook)


def when_answered() -> Callable[[int], None]:
    """What to call with the status once this request's long-poll is answered on the event loop."""
    hooks = [hook() for hook in current_app.extensions.get(ANSWERED, ())]

    def answered(status: int) -> None:
        for hook in hooks:
            hook(status)

    return answered


def park(kind: str, follow: Callable[[Callable[[], None]], LongPoll | Stream], response: Response) -> Response:
    """Take a follower slot (or 503) and hand the wait to the event loop: ``follow(release)`` is left in
    the scope; ``response`` starts the answer (a stream's headers and preamble; a long-poll's headers)."""
    slots = followers()
    slots.take(kind)
    scope()[FOLLOW] = follow(lambda: slots.give_back(kind))
    return response


def client_gone() -> Callable[[], bool]:
    """A check of whether the client of this request has closed its connection.

    The server's socket (Werkzeug's development server's) is peeked without blocking: an
    orderly close reads as end of file, a reset as an error. Pipelined bytes of a next request
    mean the client is still there. Without a socket (the test client, the ASGI layer, which
    waits for its followers) the client never leaves.
    """
    connection = request.environ.get("werkzeug.socket")
    if connection is None:
        return lambda: False

    def gone() -> bool:
        try:
            return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    return gone

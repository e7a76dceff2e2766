"""Followers (long-polls and event streams) hold a server thread each: a cap keeps threads for everyone else.

Until the serving model changes, every waiting request holds one of a worker's
threads for as long as it waits. A process therefore follows at most
``CARDHALL_MAX_FOLLOWERS`` at once (``cardhall serve --max-followers``, by default
half its threads) and answers any follower past that 503 ``unavailable`` with
``Retry-After``; ordinary requests never wait for a follower's slot.

A follower that goes away must give its slot back soon: a waiting request looks
at its connection every second (``service.games.GONE_CHECK_SECONDS``, :func:`client_gone`) and ends
when the client has closed it, instead of at the end of its wait or at the next
heartbeat that fails to send.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator

from flask import current_app, request

from service.errors import Unavailable


class Followers:
    """The slots of one process's followers."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)

    def take(self) -> None:
        """Take a slot now, or Unavailable (503) if every slot is taken."""
        if not self._slots.acquire(blocking=False):
            raise Unavailable(f"this server follows as many games as it can ({self.limit}); retry shortly")

    def give_back(self) -> None:
        """Free a slot taken by :meth:`take`."""
        self._slots.release()

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """A slot for the time of the block."""
        self.take()
        try:
            yield
        finally:
            self.give_back()


def followers() -> Followers:
    """The app's followers."""
    return current_app.extensions["cardhall_followers"]


def client_gone() -> Callable[[], bool]:
    """A check of whether the client of this request has closed its connection.

    The server's socket (gunicorn's, or Werkzeug's development server's) is peeked without
    blocking: an orderly close reads as end of file, a reset as an error. Pipelined bytes of
    a next request mean the client is still there. Without a socket (the test client) the
    client never leaves.
    """
    connection = request.environ.get("gunicorn.socket") or request.environ.get("werkzeug.socket")
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

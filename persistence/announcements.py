"""Announcing a game's appends to those who follow it, within and across processes.

Every process keeps one :class:`Announcements` board: appends committed in this
process announce themselves on it at once, and one background thread per
process announces what other processes committed — a LISTEN connection on
PostgreSQL (:class:`PostgresListener`), a poll of the events table on SQLite
(:class:`SqlitePoller`). Followers :meth:`Announcements.subscribe`: their callback
is called from the announcing thread and must only hand the news on (e.g.
``loop.call_soon_threadsafe``); they confirm with a read from the store, so a lost
or late announcement costs latency, never correctness.
"""

from __future__ import annotations

import collections
import logging
import threading
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from persistence.schema import events

CHANNEL = "cardhall_events"
log = logging.getLogger(__name__)


class Announcements:
    """The latest version announced for each game, and the callbacks of those who follow a game."""

    #: How many games' newest versions :meth:`heard` remembers before it forgets them all.
    HEARD_LIMIT = 100_000

    def __init__(self) -> None:
        self._changed = threading.Condition()  # (notified when someone subscribes: a poller idles without them)
        self._heard: dict[str, int] = {}
        self._heard_lock = threading.Lock()
        self._subscribers: dict[str, set[Callable[[int | None], None]]] = collections.defaultdict(set)

    def announce(self, game_id: str, version: int) -> None:
        """A commit made the game reach ``version``."""
        with self._heard_lock:
            if len(self._heard) >= self.HEARD_LIMIT:
                self._heard.clear()
            self._heard[game_id] = max(self._heard.get(game_id, 0), version)
        if game_id not in self._subscribers:  # (unlocked: a subscriber is added before its first read of the store)
            return
        with self._changed:
            subscribers = list(self._subscribers.get(game_id, ()))
        for callback in subscribers:
            callback(version)

    def announce_all(self) -> None:
        """Announcements may have been lost: every subscriber re-reads the store, and what was heard is forgotten."""
        with self._heard_lock:
            self._heard.clear()
        with self._changed:
            subscribers = [callback for callbacks in self._subscribers.values() for callback in callbacks]
        for callback in subscribers:
            callback(None)

    def subscribe(self, game_id: str, callback: Callable[[int | None], None]) -> Callable[[], None]:
        """Call ``callback(version)`` on each announcement of the game, ``callback(None)`` when
        announcements may have been lost (re-read the store); the function that unsubscribes.

        The subscriber hears at once the newest version heard before it subscribed, so an append
        between its last read and now is not missed.
        """
        with self._changed:
            self._subscribers[game_id].add(callback)
            self._changed.notify_all()  # (a poller idling for want of subscribers)
        if (heard := self.heard(game_id)) is not None:
            callback(heard)

        def unsubscribe() -> None:
            with self._changed:
                self._subscribers[game_id].discard(callback)
                if not self._subscribers[game_id]:
                    del self._subscribers[game_id]

        return unsubscribe

    def heard(self, game_id: str) -> int | None:
        """The newest version announced for the game since the last :meth:`announce_all`, if any."""
        return self._heard.get(game_id)

    def has_subscribers(self) -> bool:
        """Whether anyone follows a game at all."""
        with self._changed:
            return bool(self._subscribers)

    def idle(self, timeout: float) -> None:
        """Sleep while nobody follows a game, at most ``timeout``."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._subscribers), timeout)


class _Background:
    """A daemon thread started on first use and stopped by :meth:`close`."""

    name = "cardhall-wakeups"

    def __init__(self, board: Announcements) -> None:
        self.board = board
        self.ready = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread unless it runs already."""
        with self._lock:
            if self._thread is None and not self._closed.is_set():
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()

    def close(self) -> None:
        """Stop the thread."""
        self._closed.set()
        self.board.announce_all()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _run(self) -> None:
        raise NotImplementedError


class SqlitePoller(_Background):
    """Announces other processes' commits by polling the events table while anyone waits."""

    name = "cardhall-sqlite-poller"

    def __init__(self, board: Announcements, engine: sa.Engine, interval: float = 0.05) -> None:
        super().__init__(board)
        self.engine, self.interval = engine, interval

    def _run(self) -> None:
        last = self._poll(None)
        self.ready.set()
        while not self._closed.is_set():
            self.board.idle(timeout=0.25)
            if self.board.has_subscribers() and not self._closed.wait(self.interval):
                last = self._poll(last)

    def _poll(self, last: int | None) -> int | None:
        """Announce each game's newest version past position ``last``; the new last position."""
        try:
            with self.engine.connect() as connection:
                if last is None:
                    return connection.scalar(sa.select(sa.func.max(events.c.position))) or 0
                query = (
                    sa.select(events.c.game_id, sa.func.max(events.c.version), sa.func.max(events.c.position))
                    .where(events.c.position > last)
                    .group_by(events.c.game_id)
                )
                rows = connection.execute(query).all()
        except sa.exc.DBAPIError:
            log.exception("polling the events table failed")
            return last
        for game_id, version, position in rows:
            self.board.announce(game_id, version)
            last = max(last, position)
        return last


class PostgresListener(_Background):
    """One LISTEN connection per process; each NOTIFY ``game_id:version`` is announced."""

    name = "cardhall-pg-listener"

    def __init__(self, board: Announcements, connect: Callable[[], Any]) -> None:
        super().__init__(board)
        self.connect = connect

    def _run(self) -> None:
        while not self._closed.is_set():
            try:
                self._listen()
            except Exception:  # the server went away: reconnect, and make everyone re-read
                log.exception("the LISTEN connection failed; reconnecting")
            self.ready.clear()
            self.board.announce_all()
            self._closed.wait(1.0)

    def _listen(self) -> None:
        with self.connect() as connection:
            connection.execute(f"LISTEN {CHANNEL}")
            self.ready.set()
            self.board.announce_all()
            while not self._closed.is_set():
                for notice in connection.notifies(timeout=0.25):  # so close() is quick
                    game_id, _, version = notice.payload.rpartition(":")
                    self.board.announce(game_id, int(version))

"""A process's announcements of appends (the :class:`persistence.port.Announcements` port): its own
commits at once, and other processes' as its backend's listener tells it.

Every store keeps one :class:`Board`: appends committed in this process are announced on it
at commit, and a :class:`Listener` thread (started on first use) announces what other
processes committed — the PostgreSQL store's LISTEN connection, the SQLite store's poll of
the events table. A backend that hears of nothing else (memory) has no listener.
Followers subscribe: their callback is called from the announcing thread and must only hand
the news on (e.g. ``loop.call_soon_threadsafe``); they confirm with a read from the store, so a
lost or late announcement costs latency, never correctness.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable

from persistence.port import Announcements


class Board(Announcements):
    """The latest version announced for each game, and the callbacks of those who follow a game."""

    #: How many games' newest versions :meth:`latest` remembers before it forgets them all.
    HEARD_LIMIT = 100_000

    def __init__(self, listener: Callable[[Board], Listener] | None = None) -> None:
        """``listener(board)``: the thread that announces other processes' appends on it (None: there are none)."""
        self._changed = threading.Condition()  # (notified when someone subscribes: a poller idles without them)
        self._heard: dict[str, int] = {}
        self._heard_lock = threading.Lock()
        self._subscribers: dict[str, set[Callable[[int | None], None]]] = collections.defaultdict(set)
        self._watchers: list[Callable[[str, int], None]] = []  # (told of every game's appends)
        self.listener = None if listener is None else listener(self)

    def announce(self, game_id: str, version: int) -> None:
        """A commit made the game reach ``version``."""
        with self._heard_lock:
            if len(self._heard) >= self.HEARD_LIMIT:
                self._heard.clear()
            self._heard[game_id] = max(self._heard.get(game_id, 0), version)
        for watcher in self._watchers:
            watcher(game_id, version)
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
        """The subscriber hears at once the newest version heard before it subscribed, so an append between
        its last read and now is not missed."""
        if self.listener is not None:
            self.listener.start()
        with self._changed:
            self._subscribers[game_id].add(callback)
            self._changed.notify_all()  # (a poller idling for want of subscribers)
        if (heard := self._heard.get(game_id)) is not None:
            callback(heard)

        def unsubscribe() -> None:
            with self._changed:
                self._subscribers[game_id].discard(callback)
                if not self._subscribers[game_id]:
                    del self._subscribers[game_id]

        return unsubscribe

    def watch(self, callback: Callable[[str, int], None]) -> Callable[[], None]:
        """Hear of every game's appends (``callback(game_id, version)``, from the announcing thread, which it
        must only hand the news on); the listener is started. Returns the function that stops it."""
        if self.listener is not None:
            self.listener.start()
        self._watchers = [*self._watchers, callback]

        def unwatch() -> None:
            self._watchers = [watcher for watcher in self._watchers if watcher is not callback]

        return unwatch

    def latest(self, game_id: str) -> int | None:
        """Only once the listener runs (started here): before, the board knows this process's appends alone."""
        if self.listener is not None:
            self.listener.start()
            if not self.listener.ready.is_set():
                return None
        return self._heard.get(game_id)

    def has_subscribers(self) -> bool:
        """Whether anyone follows a game at all."""
        with self._changed:
            return bool(self._subscribers)

    def idle(self, timeout: float) -> None:
        """Sleep while nobody follows a game, at most ``timeout``."""
        with self._changed:
            self._changed.wait_for(lambda: bool(self._subscribers), timeout)

    def close(self) -> None:
        """Stop the listener."""
        if self.listener is not None:
            self.listener.close()


class Listener:
    """A daemon thread that announces other processes' appends on a board: started on first use, stopped by
    :meth:`close`; ``ready`` while it hears every append."""

    name = "cardhall-listener"

    def __init__(self, board: Board) -> None:
        self.board = board
        self.ready = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the thread unless it runs already."""
        if self._thread is not None:
            return
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

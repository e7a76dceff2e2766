"""Followers that hold no thread: one process's fan-out of wake-ups to the coroutines waiting on games.

The store hears of appends (``EventStore.subscribe``: one LISTEN connection per
process on PostgreSQL, the in-process board and its poller on SQLite) in some
thread; each announcement crosses to the event loop once
(``loop.call_soon_threadsafe``) and is fanned out there to every waiter of that
game. While anyone waits on a game its version is also re-read now and then, in
the thread pool, and at once when announcements may have been lost: a lost
announcement costs latency, never an event. A game is followed until a re-read finds
nobody waiting on it. Nothing here touches the database on
the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from service.games import GameService

log = logging.getLogger(__name__)
T = TypeVar("T")
#: How often the version of a followed game is re-read although nothing was announced.
RECHECK_SECONDS = 5.0


class Hub:
    """The waiters of one event loop, by game."""

    def __init__(self, games: GameService, in_pool: Callable[[Callable[[], T]], Awaitable[T]],
                 fanned_out: Callable[[float], None] = lambda seconds: None) -> None:
        """``in_pool(f)`` runs ``f`` in a thread and awaits it; ``fanned_out(seconds)`` is told how long
        each announcement took from the announcing thread to its last waiter."""
        self.games, self.in_pool, self.fanned_out = games, in_pool, fanned_out
        self._followed: dict[str, _Followed] = {}

    async def wait(self, game_id: str, after: int, timeout: float, gone: asyncio.Future[None] | None = None) -> int | None:
        """Until the game is heard to pass ``after`` (the version heard), ``timeout`` passes (0) or ``gone``
        is done (None: the follower left). One future and one timer a wait: thousands of them wait."""
        if (followed := self._followed.get(game_id)) is None:
            followed = self._followed[game_id] = _Followed(self, game_id)
        arrived = followed.waiter(after)
        timer = followed.loop.call_later(timeout, _settle, arrived, 0)

        def left(_: asyncio.Future[None]) -> None:
            _settle(arrived, None)

        if gone is not None:
            gone.add_done_callback(left)
        try:
            return await arrived
        finally:
            timer.cancel()
            if gone is not None:
                gone.remove_done_callback(left)
            followed.waiters.pop(arrived, None)


class _Followed:
    """One game's waiters in one loop, its subscription to the store and its re-reads.

    It outlives its last waiter until its next re-read finds nobody waiting: a game's followers,
    all woken by each of its events, leave together and come back a moment later, and a
    subscription ended and begun again for each event would leave the garbage collector a
    cancelled task's frames and errors each time: its pauses stop every thread of the process,
    the moves' too (docs/performance.md, "Followers")."""

    def __init__(self, hub: Hub, game_id: str) -> None:
        self.hub, self.game_id = hub, game_id
        self.loop = asyncio.get_running_loop()
        self.latest = 0
        self.waiters: dict[asyncio.Future[int | None], int] = {}
        self.lost = asyncio.Event()
        self.rereads = self.loop.create_task(self._reread())
        self.unsubscribe = hub.games.store.announcements.subscribe(game_id, self._heard_in_thread)

    def waiter(self, after: int) -> asyncio.Future[int | None]:
        """A future that is the version heard once the game passes ``after`` (unless settled otherwise first)."""
        arrived: asyncio.Future[int | None] = self.loop.create_future()
        self.waiters[arrived] = after
        if self.latest > after:
            arrived.set_result(self.latest)
        return arrived

    def close(self) -> None:
        """Leave the hub and the store's announcements (on the loop, from the re-reads' task)."""
        self.hub._followed.pop(self.game_id, None)
        self.unsubscribe()

    def _heard_in_thread(self, version: int | None) -> None:
        """The store's callback, in whatever thread heard it."""
        with contextlib.suppress(RuntimeError):  # (the loop has closed: nobody waits any more)
            self.loop.call_soon_threadsafe(self._heard, version, time.monotonic())

    def _heard(self, version: int | None, since: float | None = None) -> None:
        if version is None:
            self.lost.set()
            return
        if version <= self.latest:
            return
        self.latest = version
        for arrived, after in self.waiters.items():
            if after < version:
                _settle(arrived, version)
        if since is not None:
            self.hub.fanned_out(time.monotonic() - since)

    async def _reread(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.lost.wait(), RECHECK_SECONDS)
            self.lost.clear()
            if not self.waiters:
                self.close()
                return
            try:
                version = await self.hub.in_pool(lambda: self.hub.games.store.last_version(self.game_id))
            except Exception:  # (the database is out of reach: announcements still wake the waiters)
                log.warning("re-reading the version of %s failed", self.game_id, exc_info=True)
                continue
            self._heard(version or 0)



def _settle(future: asyncio.Future[int | None], outcome: int | None) -> None:
    """Give a wait its outcome, unless it has one."""
    if not future.done():
        future.set_result(outcome)

"""Followers that hold no thread: one process's fan-out of wake-ups to the coroutines waiting on games.

The store hears of appends (``EventStore.subscribe``: one LISTEN connection per
process on PostgreSQL, the in-process board and its poller on SQLite) in some
thread; each announcement crosses to the event loop once
(``loop.call_soon_threadsafe``) and is fanned out there to every waiter of that
game. The versions of the games followed are also re-read now and then, in the
thread pool, and at once when announcements may have been lost: a lost
announcement costs latency, never an event. Nothing here touches the database on
the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

from service.games import GameService

log = logging.getLogger(__name__)
T = TypeVar("T")
#: How often the version of a followed game is re-read although nothing was announced.
RECHECK_SECONDS = 5.0


class Hub:
    """The waiters of one event loop, by game; the followed games' subscriptions to the store, and their re-reads.

    A game is followed until a re-read finds nobody waiting on it: a game's followers, all woken by each
    of its events, leave together and come back a moment later, and a subscription ended and begun again
    for each event would leave the garbage collector work each time, whose pauses stop every thread of
    the process, the moves' too (docs/performance.md, "Followers"). One task re-reads every game followed."""

    def __init__(self, games: GameService, in_pool: Callable[[Callable[[], T]], Awaitable[T]],
                 fanned_out: Callable[[float], None] = lambda seconds: None) -> None:
        """``in_pool(f)`` runs ``f`` in a thread and awaits it; ``fanned_out(seconds)`` is told how long
        each announcement took from the announcing thread to its last waiter. Made on the loop it serves."""
        self.games, self.in_pool, self.fanned_out = games, in_pool, fanned_out
        self.loop = asyncio.get_running_loop()
        self.latest: dict[str, int] = {}
        self.waiters: dict[str, dict[asyncio.Future[int | None], int]] = {}
        self.unsubscribe: dict[str, Callable[[], None]] = {}
        self.lost = asyncio.Event()
        self.rereads = self.loop.create_task(self._reread())

    async def wait(self, game_id: str, after: int, timeout: float, gone: asyncio.Future[None] | None = None) -> int | None:
        """Until the game is heard to pass ``after`` (the version heard), ``timeout`` passes (0) or ``gone``
        is done (None: the follower left). One future and one timer a wait: thousands of them wait."""
        if (waiters := self.waiters.get(game_id)) is None:
            waiters = self.waiters[game_id] = {}
            self.unsubscribe[game_id] = self.games.store.announcements.subscribe(
                game_id, partial(self._heard_in_thread, game_id))
        arrived: asyncio.Future[int | None] = self.loop.create_future()
        waiters[arrived] = after
        if self.latest.get(game_id, 0) > after:
            arrived.set_result(self.latest[game_id])
        timer = self.loop.call_later(timeout, _settle, arrived, 0)

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
            waiters.pop(arrived, None)

    def _heard_in_thread(self, game_id: str, version: int | None) -> None:
        """The store's callback, in whatever thread heard it."""
        with contextlib.suppress(RuntimeError):  # (the loop has closed: nobody waits any more)
            self.loop.call_soon_threadsafe(self._heard, game_id, version, time.monotonic())

    def _heard(self, game_id: str, version: int | None, since: float | None = None) -> None:
        if version is None:
            self.lost.set()
            return
        if version <= self.latest.get(game_id, 0) or game_id not in self.waiters:
            return
        self.latest[game_id] = version
        for arrived, after in self.waiters[game_id].items():
            if after < version:
                _settle(arrived, version)
        if since is not None:
            self.fanned_out(time.monotonic() - since)

    async def _reread(self) -> None:
        """Every ``RECHECK_SECONDS``, or at once when announcements may have been lost: the games nobody waits
        on any more are left, the others' versions re-read (in the pool)."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.lost.wait(), RECHECK_SECONDS)
            self.lost.clear()
            for game_id in [game_id for game_id, waiters in self.waiters.items() if not waiters]:
                self.unsubscribe.pop(game_id)()
                del self.waiters[game_id]
                self.latest.pop(game_id, None)
            try:
                versions = await self.in_pool(partial(self._versions, list(self.waiters)))
            except Exception:  # (the database is out of reach: announcements still wake the waiters)
                log.warning("re-reading the versions of the games followed failed", exc_info=True)
                continue
            for game_id, version in versions.items():
                self._heard(game_id, version)

    def _versions(self, game_ids: list[str]) -> dict[str, int]:
        return self.games.store.last_versions(game_ids)  # (on SQL, a statement for hundreds of games)


def _settle(future: asyncio.Future[int | None], outcome: int | None) -> None:
    """Give a wait its outcome, unless it has one."""
    if not future.done():
        future.set_result(outcome)

"""Waking the readers of account streams when their account gets an event.

Each account has a generation, bumped when the process hears of a new event of it:
within :data:`POLL_SECONDS` (at once for this process's own writes, :meth:`AccountHub.poke`),
by one thread that reads which accounts the newest events went to, and that runs only while
someone waits. A reader takes the generation, reads, and waits for it to change; it reads
again at least every :data:`RECHECK_SECONDS` all the same, so nothing is waited out for a
missed wake-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import defaultdict
from collections.abc import Callable

from persistence.accounts import AccountStore

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05
RECHECK_SECONDS = 2.0
IDLE_SECONDS = 1.0  # the thread ends this long after its last waiter left


class AccountHub:
    """The generations of this process's accounts, and the thread that hears of new events."""

    def __init__(self, store: AccountStore) -> None:
        self.store = store
        self._lock = threading.Lock()  # (the count of waiters, and the thread)
        self._generations: defaultdict[str, int] = defaultdict(int)
        self._waiters = 0
        self._position = 0
        self._poke = threading.Event()
        self._thread: threading.Thread | None = None
        #: On each event loop, the waits of each account under way there (touched on that loop only).
        self._loops: dict[asyncio.AbstractEventLoop, defaultdict[str, set[asyncio.Event]]] = {}

    def follow(self) -> Callable[[], None]:
        """A reader follows: the thread runs (started, if need be, before the reader's first read) until every
        reader has called the function returned."""
        with self._lock:
            self._waiters += 1
            if self._thread is None:
                self._position = self.store.newest_position()
                self._thread = threading.Thread(target=self._run, name="account-hub", daemon=True)
                self._thread.start()
        done = False

        def unfollow() -> None:
            nonlocal done
            with self._lock:
                self._waiters -= 0 if done else 1
                done = True

        return unfollow

    def generation(self, account: str) -> int:
        """The account's generation now; take it before reading, then wait for it to change."""
        return self._generations[account]

    def poke(self) -> None:
        """This process wrote account events: find out whose now."""
        self._poke.set()

    async def wait_async(self, account: str, generation: int, timeout: float) -> None:
        """Until the account's generation moves past ``generation`` (or at most ``timeout``, and at most
        RECHECK_SECONDS: then the reader reads again all the same). Only this account's news wakes it: a
        process following many accounts wakes one waiter per account that has news."""
        loop = asyncio.get_running_loop()
        waits = self._loops.get(loop)
        if waits is None:
            waits = self._loops[loop] = defaultdict(set)
        woken = asyncio.Event()
        waits[account].add(woken)
        try:
            if self._generations[account] == generation:  # (after registering: news from now on wakes it)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken.wait(), min(timeout, RECHECK_SECONDS))
        finally:
            waits[account].discard(woken)
            if not waits[account]:
                del waits[account]

    def _run(self) -> None:
        idle_since = time.monotonic()
        while True:
            self._poke.wait(POLL_SECONDS)
            self._poke.clear()
            with self._lock:
                if not self._waiters:
                    if time.monotonic() - idle_since > IDLE_SECONDS:
                        self._thread = None
                        return
                    continue
            idle_since = time.monotonic()
            try:
                self._read_news()
            except Exception:  # (the database out of reach: readers recheck on their own)
                log.warning("account hub: could not read new account events", exc_info=True)
                time.sleep(RECHECK_SECONDS)

    def _read_news(self) -> None:
        position, accounts = self.store.accounts_after(self._position)
        self._position = position
        if not accounts:
            return
        for account in accounts:
            self._generations[account] += 1
        for loop, waits in list(self._loops.items()):
            try:
                loop.call_soon_threadsafe(_wake, waits, accounts)
            except RuntimeError:  # (a loop that closed)
                self._loops.pop(loop, None)


def _wake(waits: dict[str, set[asyncio.Event]], accounts: set[str]) -> None:
    """On a waits' loop: wake those waiting for these accounts."""
    for account in accounts & waits.keys():
        for woken in waits[account]:
            woken.set()

"""Followers (long-polls and event streams): a per-process limit and a per-client one.

A process follows at most ``CARDHALL_MAX_FOLLOWERS`` at once (``cardhall serve
--max-followers``), and at most ``CARDHALL_MAX_FOLLOWERS_PER_CLIENT`` of them for one
client address, so that one client cannot take every slot; a follower past either gets
503 ``unavailable`` with ``Retry-After``. Ordinary requests never wait for a slot.
The followers themselves are served by :mod:`api.waiting`.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable

from service.errors import Unavailable


class Followers:
    """The follower slots of one process, and how many of each kind are open."""

    def __init__(self, limit: int, per_client: int | None = None,
                 counted: Callable[[str, int], None] = lambda kind, change: None) -> None:
        """``counted(kind, +1 or -1)`` is told of each follower that starts or ends (metrics)."""
        self.limit = limit
        self.per_client = limit if per_client is None else min(per_client, limit)
        self.counted = counted
        self._open = 0
        self._by_client: collections.Counter[str | None] = collections.Counter()
        self._lock = threading.Lock()

    def take(self, kind: str, client: str | None) -> Callable[[], None]:
        """Take a slot for ``client`` now, or Unavailable (503); the function that gives it back."""
        with self._lock:
            if self._open >= self.limit:
                raise Unavailable(f"this server follows as many games as it can ({self.limit}); retry shortly")
            if self._by_client[client] >= self.per_client:
                raise Unavailable(f"this address follows as many games as one may ({self.per_client}); "
                                  "retry once one of its followers is done")
            self._open += 1
            self._by_client[client] += 1
        self.counted(kind, 1)
        given_back = False

        def give_back() -> None:  # (once: asked and marked under the lock, as the hub's unfollow is)
            nonlocal given_back
            with self._lock:
                if given_back:
                    return
                given_back = True
                self._open -= 1
                self._by_client[client] -= 1
                if not self._by_client[client]:
                    del self._by_client[client]
            self.counted(kind, -1)

        return give_back

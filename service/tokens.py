"""Which seat a bearer token acts for, remembered per process.

A token is bound to one seat of one game when it is issued and never changes,
so a lookup found once stays true in every process; only found tokens are
remembered (a token issued by another process a moment ago is looked up again).
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

from persistence.port import EventStore

#: How every seat token begins (as an account key begins with ``chk_``).
SEAT_TOKEN_START = "chs_"


def new_seat_token() -> str:
    """A new seat token: it begins with letters, so that a command line never takes it for an option."""
    return f"{SEAT_TOKEN_START}{secrets.token_urlsafe(32)}"


class TokenSeats:
    """Token hash to (game id, seat), least recently used dropped first."""

    def __init__(self, store: EventStore, size: int = 65536) -> None:
        self.store = store
        self.size = size
        self._seats: OrderedDict[str, tuple[str, int]] = OrderedDict()
        self._lock = threading.Lock()

    def known(self, token_hash: str) -> tuple[str, int] | None:
        """As :meth:`get`, from what this process remembers only (None: not remembered; no read)."""
        with self._lock:
            return self._seats.get(token_hash)

    def get(self, token_hash: str) -> tuple[str, int] | None:
        """The (game id, seat) the token hash acts for; None if no token has this hash."""
        with self._lock:
            found = self._seats.get(token_hash)
            if found is not None:
                self._seats.move_to_end(token_hash)
                return found
        found = self.store.seat_for_token(token_hash)
        if found is not None:
            with self._lock:
                self._seats[token_hash] = found
                while len(self._seats) > self.size:
                    self._seats.popitem(last=False)
        return found

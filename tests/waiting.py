"""Waiting for what a server or store does in the background: one bounded poll for every test.

A wait ends as soon as what it waits for happens, so its patience costs a healthy run nothing; it is long
because a loaded CI machine (a load average of 16 on two cores, seen) is slow, not because anything should take
that long.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
#: Seconds a wait gives what it waits for.
PATIENCE = 30.0


def until(check: Callable[[], T], what: str = "the check", *, seconds: float = PATIENCE, every: float = 0.01) -> T:
    """``check()``'s first true answer, asked every ``every`` seconds; an AssertionError naming ``what`` if none
    came within ``seconds``."""
    deadline = time.monotonic() + seconds
    while not (answer := check()):
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(every)
    return answer

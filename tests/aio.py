"""Running a coroutine to its end from a synchronous test."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coroutine)`` on a loop of its own, in a thread of its own.

    A browser test earlier in the same worker leaves an event loop marked as running in the main thread
    (Playwright's sync API drives its loop from there), and ``asyncio.run`` refuses to start under one.
    """
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()

"""A GET called on an ASGI app as uvicorn calls it, without a socket (the tests of the waiting routes, and
``bench/deliveries.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

Message = dict[str, Any]


async def get(app: Callable[..., Awaitable[None]], path: str, query: str, sent: Callable[[Message], None],
              gone: asyncio.Event, headers: Sequence[tuple[bytes, bytes]] = ((b"host", b"test"),)) -> None:
    """``GET path?query`` answered by ``app``, each message it sends given to ``sent``; the client leaves once
    ``gone`` is set (its request's empty body read first)."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
             "headers": list(headers), "client": ("127.0.0.1", 5000), "server": ("test", 80)}
    asked = False

    async def receive() -> Message:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent(message)

    await app(scope, receive, send)

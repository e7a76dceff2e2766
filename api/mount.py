"""The Flask app as the ASGI app's fallback: each request crosses to a thread once and back once.

Its body is read on the event loop first (no further than the limit of the route it is for and
one byte more, which is how the app tells a chunked body past its limit; nothing of a body
declared longer), the app makes its whole answer in a thread of the pool, and the loop sends it.
That limit is the app's ``MAX_CONTENT_LENGTH`` (64 KiB), unless the route's view takes more (its
``max_content_length``, as the records' replay does); a route is looked up for that only when a
body is declared longer than the app's limit or sent without a length.
a2wsgi's ``WSGIMiddleware``, which this stands for (its environ is still a2wsgi's), crosses
threads for each part of the answer and each read of the body: measured in-process
(docs/deploy.md, "Serving model"), a request through it cost 0.3–0.5 ms more CPU, about
two thirds more than through this. The Flask app's answers are finite: the routes that wait or
stream are the ASGI app's own (:mod:`api.waiting`).
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from a2wsgi.wsgi import build_environ
from flask import Flask
from starlette.types import Receive, Scope, Send
from werkzeug.exceptions import HTTPException


class ThreadedWsgi:
    """``flask`` served to ASGI from a pool of ``threads`` threads."""

    def __init__(self, flask: Flask, threads: int) -> None:
        self.app = flask
        self.limit: int = flask.config["MAX_CONTENT_LENGTH"]  # (the app has one: no body is read unbounded)
        self.executor = ThreadPoolExecutor(threads, thread_name_prefix="cardhall-http")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        environ = build_environ(scope, None)  # type: ignore[arg-type]
        environ["wsgi.input"] = io.BytesIO(await self._body(environ, receive))
        environ["wsgi.input_terminated"] = True  # (a chunked body ends where its bytes end)
        status, headers, body = await asyncio.get_running_loop().run_in_executor(self.executor, whole_answer, self.app, environ)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _body(self, environ: dict[str, Any], receive: Receive) -> bytes:
        """The request's body, read no further than its route will look (nothing of one declared too long)."""
        text = environ.get("CONTENT_LENGTH", "")
        declared = int(text) if text.isdigit() else None
        limit = self._limit(environ, declared)
        if declared is not None and declared > limit:
            return b""  # (the app refuses it by its length alone)
        chunks, size = [], 0
        while size <= limit:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    def _limit(self, environ: dict[str, Any], declared: int | None) -> int:
        """The most the request's route reads of a body: the app's ``MAX_CONTENT_LENGTH``, unless the body may be
        longer (``declared`` so, or sent chunked) and the view of its route takes more (its ``max_content_length``)."""
        longer = declared > self.limit if declared is not None else "HTTP_TRANSFER_ENCODING" in environ
        if not longer:
            return self.limit
        try:
            endpoint, _ = self.app.url_map.bind_to_environ(environ).match()
        except HTTPException:  # (no such route, or another method: the app answers that)
            return self.limit
        view = getattr(self.app.view_functions[endpoint], "view_class", None)
        return max(self.limit, getattr(view, "max_content_length", self.limit))


def whole_answer(app: Callable[..., Any], environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """The whole answer of the WSGI ``app`` (a Flask app, or a response, which is one too) to ``environ``, in
    this thread: status, headers (as ASGI sends them), body."""
    started: list[Any] = []
    chunks: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Callable[[bytes], Any]:
        started[:] = [status, headers]
        return chunks.append

    answer = app(environ, start_response)
    try:
        chunks.extend(answer)
    finally:
        if hasattr(answer, "close"):
            answer.close()
    status, headers = started
    return (int(status.split(" ", 1)[0]),
            [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers], b"".join(chunks))

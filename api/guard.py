"""What every request meets before the app: a plain ASGI middleware that wraps any ASGI app.

:func:`guarded` puts it around the app a worker serves (``api.asgi``), whatever that app is:

- **Honest addresses.** The client's address is the TCP peer's, unless the peer is a proxy the
  operator trusts (``cardhall serve --forwarded-allow-ips``, none by default): then uvicorn's
  :class:`~uvicorn.middleware.proxy_headers.ProxyHeadersMiddleware`, given that list and no
  other, takes it from ``X-Forwarded-For``. uvicorn's own copy of that middleware (which trusts
  ``FORWARDED_ALLOW_IPS``, 127.0.0.1 by default) is switched off where the server is configured
  (``cardhall_cli/gunicorn_conf.py``).
- **A bounded head.** A request with more than ``max_headers`` headers, or a head (request line
  and headers) past ``max_head_bytes``, is answered 431 before anything looks at one header: the
  count is the length of a list, the size a sum over at most ``max_headers`` of them. A request
  line past ``max_request_line`` is answered 414. The server's protocol (:mod:`api.connections`)
  stops such a head while it is still being read; this check holds under any server.
- **A request id on every answer.** The client's ``X-Request-ID`` if well formed, else a new one,
  put in the request's headers (the app logs and answers with it) and on the answer if the app
  did not set it: refusals made before the app (here, in the protocol, the rate limiter) carry it.
- **Headers of every answer.** ``X-Content-Type-Options: nosniff``; one ``Date`` (uvicorn adds its
  own: the app's, e.g. a static file's, is dropped).

Refusals here are problem+json (``api.errors``), logged as access lines like any answer.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

from api.errors import PROBLEM, problem_document
from api.requestlog import access_line, request_id_for

Message = dict[str, Any]
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

_REQUEST_ID = b"x-request-id"
_NOSNIFF = (b"x-content-type-options", b"nosniff")


@dataclasses.dataclass(frozen=True)
class Limits:
    """What a client may send and how slowly (docs/deploy.md, "Limits on clients")."""

    #: Headers a request may have (gunicorn's default, which the server had before uvicorn).
    max_headers: int = 100
    #: Bytes of a request's head: its request line and every header line.
    max_head_bytes: int = 32 * 1024
    #: Bytes of a request line (method, target, version).
    max_request_line: int = 4094
    #: Bytes of one header line (name, ": ", value).
    max_header_line: int = 8190
    #: Seconds a request's head may take to arrive, from its first byte.
    head_timeout: float = 10.0
    #: Seconds a request's body may take to arrive, from the end of its head.
    body_timeout: float = 30.0
    #: Seconds a connection may stay open without a request (before its first, between two).
    idle_timeout: float = 5.0
    #: Connections one address may hold open to a worker at once (trusted proxies are not counted).
    max_connections_per_address: int = 128
    #: Addresses (or networks, or ``*``) of the proxies whose ``X-Forwarded-For`` is believed.
    forwarded_allow_ips: tuple[str, ...] = ()


def guarded(app: App, limits: Limits) -> App:
    """``app`` behind the guard, and behind the proxy-headers middleware if the operator trusts proxies."""
    inner: App = Guard(app, limits)
    if limits.forwarded_allow_ips:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        inner = ProxyHeadersMiddleware(inner, trusted_hosts=list(limits.forwarded_allow_ips))  # type: ignore[arg-type]
    return inner


class Guard:
    """The checks and headers above, around ``app`` (plain ASGI: HTTP only; anything else passes through)."""

    def __init__(self, app: App, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        refusal = self.refusal(scope)
        asked = b""
        if refusal is None:
            for name, value in headers:
                if name == _REQUEST_ID:
                    asked = value
        identity = request_id_for(asked.decode("latin-1"))
        if refusal is not None:
            await refuse(scope, send, identity, *refusal)
            return
        if asked != identity.encode():  # (the app reads the id from the request: one header, well formed)
            scope["headers"] = [*(item for item in headers if item[0] != _REQUEST_ID), (_REQUEST_ID, identity.encode())]
        await self.app(scope, receive, _answering(send, identity.encode()))

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, detail) if the request's head is past the limits, else None; the count first, alone."""
        limits, headers = self.limits, scope["headers"]
        if len(headers) > limits.max_headers:
            return 431, f"a request may have at most {limits.max_headers} headers"
        line = len(scope.get("method", "")) + len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + 11
        if line > limits.max_request_line:
            return 414, f"the request line is longer than {limits.max_request_line} bytes"
        size = line
        for name, value in headers:
            length = len(name) + len(value) + 4
            if length > limits.max_header_line:
                return 431, f"a header line is longer than {limits.max_header_line} bytes"
            size += length
        if size > limits.max_head_bytes:
            return 431, f"the request's head is longer than {limits.max_head_bytes} bytes"
        return None


def _answering(send: Send, identity: bytes) -> Send:
    """``send`` with the request id (if the app set none), ``nosniff``, and no ``Date`` of the app's own."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [item for item in message.get("headers", ()) if item[0] != b"date"]
            names = {name for name, _ in headers}
            if _REQUEST_ID not in names:
                headers.append((_REQUEST_ID, identity))
            if _NOSNIFF[0] not in names:
                headers.append(_NOSNIFF)
            message = {**message, "headers": headers}
        await send(message)

    return sending


async def refuse(scope: Scope, send: Send, identity: str, status: int, detail: str) -> None:
    """Answer ``status`` as problem+json without the app, and log it."""
    started = time.perf_counter()
    body = problem_bytes(status, detail)
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode()),
        (_REQUEST_ID, identity.encode()), _NOSNIFF, (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body, "more_body": False})
    client = scope.get("client")
    access_line(scope.get("method", "-"), scope.get("path", "-"), None, client[0] if client else None, identity,
                started)(status)


def problem_bytes(status: int, detail: str) -> bytes:
    """The problem+json body of a refusal made outside the app."""
    from api.errors import CODE_OF_STATUS

    return json.dumps(problem_document(status, CODE_OF_STATUS.get(status, "error"), detail)).encode()

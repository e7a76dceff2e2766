"""uvicorn's httptools protocol with limits on what a connection may send, and how slowly.

uvicorn bounds none of it: httptools reads a head of any size (a header repeated 300,000 times
is 300,000 callbacks and tuples before the app is called), and a connection that trickles its
head or body, or sends nothing at all, stays open for good. :func:`protocol` gives the class
``cardhall serve`` runs (``cardhall_cli/gunicorn_conf.py``), bound to the operator's
:class:`api.guard.Limits`:

- **head**: past ``max_headers`` headers, ``max_head_bytes`` (counted as the head arrives, so
  one enormous header is stopped too) or a request line past ``max_request_line``, parsing stops
  and the answer is 431 (414); the header after the limit is never looked at;
- **head timeout**: a head not complete ``head_timeout`` seconds after its first byte: 408, closed;
- **body timeout**: a body not complete ``body_timeout`` seconds after its head: 408 if nothing was
  answered yet, and the connection is closed (the app sees the client leave);
- **idle timeout**: a connection with no request for ``idle_timeout`` seconds is closed — the
  first request too (uvicorn's keep-alive timeout covers only the wait between two);
- **connections per address**: past ``max_connections_per_address`` open connections from one
  address (the TCP peer's; trusted proxies are not counted), a new one is answered 429 and closed.

Each refusal is problem+json with an ``X-Request-ID`` and an access line, as the app's are.
"""

from __future__ import annotations

import asyncio
import collections
import time
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from api.errors import PROBLEM
from api.guard import Limits, problem_bytes
from api.requestlog import access_line, request_id_for


class _Refused(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def protocol(limits: Limits) -> type[HttpToolsProtocol]:
    """The protocol class serving connections within ``limits`` (one count of connections per class)."""
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    trusted = ProxyHeadersMiddleware(None, trusted_hosts=list(limits.forwarded_allow_ips)).trusted_hosts  # type: ignore[arg-type]
    return type("GuardedHttpToolsProtocol", (GuardedHttpToolsProtocol,),
                {"limits": limits, "trusted": trusted, "open_by_address": collections.Counter()})


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """See the module's docstring. ``limits``, ``trusted`` and ``open_by_address`` are set by :func:`protocol`."""

    limits: Limits
    trusted: Any
    open_by_address: collections.Counter[str]

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._in_head = False
        self._head_bytes = self._header_count = 0
        self._timer: asyncio.TimerHandle | None = None
        host = self.client[0] if self.client else None
        self._counted = host if host is not None and host not in self.trusted else None
        if self._counted is not None:
            self.open_by_address[self._counted] += 1
            if self.open_by_address[self._counted] > self.limits.max_connections_per_address:
                self._refuse(429, f"at most {self.limits.max_connections_per_address} connections "
                                  "from one address at once")
                return
        # (uvicorn's keep-alive timer, which the first byte of a request cancels, armed for the first request too)
        self.timeout_keep_alive_task = self.loop.call_later(self.limits.idle_timeout, self.timeout_keep_alive_handler)

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        if self._counted is not None:
            left = self.open_by_address[self._counted] - 1
            if left > 0:
                self.open_by_address[self._counted] = left
            else:
                del self.open_by_address[self._counted]
            self._counted = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.parser is None or self.transport.is_closing():
            return
        self._unset_keepalive_if_required()
        was_in_head = self._in_head
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            super().data_received(b"")  # (not reached: the app serves no upgrade; uvicorn's answer if it did)
            return
        except httptools.HttpParserError as error:
            refused = error.__context__ if isinstance(error.__context__, _Refused) else None
            if refused is not None:
                self._refuse(refused.status, refused.detail)
            else:
                self.logger.warning("Invalid HTTP request received.")
                self.send_400_response("Invalid HTTP request received.")
            return
        if was_in_head and self._in_head:  # (a head that spans the whole of this read: every byte of it counts)
            self._head_bytes += len(data)
            if self._head_bytes > self.limits.max_head_bytes:
                self._refuse(431, f"the request's head is longer than {self.limits.max_head_bytes} bytes")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = self._header_count = 0
        self._arm(self.limits.head_timeout, "the request's head took longer than {} s to arrive")

    def on_url(self, url: bytes) -> None:
        if len(self.url) + len(url) > self.limits.max_request_line:
            raise _Refused(414, f"the request line is longer than {self.limits.max_request_line} bytes")
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._header_count += 1
        if self._header_count > self.limits.max_headers:
            raise _Refused(431, f"a request may have at most {self.limits.max_headers} headers")
        if len(name) + len(value) + 4 > self.limits.max_header_line:
            raise _Refused(431, f"a header line is longer than {self.limits.max_header_line} bytes")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._arm(self.limits.body_timeout, "the request's body took longer than {} s to arrive")
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._cancel_timer()
        super().on_message_complete()

    def _arm(self, seconds: float, detail: str) -> None:
        self._cancel_timer()
        self._timer = self.loop.call_later(seconds, self._timed_out, detail.format(f"{seconds:g}"))

    def _cancel_timer(self) -> None:
        if getattr(self, "_timer", None) is not None:
            self._timer.cancel()  # type: ignore[union-attr]
            self._timer = None

    def _timed_out(self, detail: str) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
            self._refuse(408, detail)
        else:  # (the app has begun its answer: all that is left is to end the connection)
            self.transport.close()

    def _refuse(self, status: int, detail: str) -> None:
        """Answer ``status`` (problem+json, an id, ``Connection: close``), log it, and close."""
        started = time.perf_counter()
        identity = request_id_for("")
        body = problem_bytes(status, detail)
        head = [STATUS_LINE[status]]
        for name, value in self.server_state.default_headers:
            head += [name, b": ", value, b"\r\n"]
        head += [b"content-type: ", PROBLEM.encode(), b"\r\ncontent-length: ", str(len(body)).encode(),
                 b"\r\nx-request-id: ", identity.encode(), b"\r\nx-content-type-options: nosniff",
                 b"\r\nconnection: close\r\n\r\n", body]
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.keep_alive = False
        self.transport.write(b"".join(head))
        self.transport.close()
        scope = self.scope or {}
        method = scope.get("method") or "-"
        path = scope.get("path") or (self.url.decode("latin-1", "replace")[:200] if getattr(self, "url", None) else "-")
        access_line(method, path, None, self.client[0] if self.client else None, identity, started)(status)


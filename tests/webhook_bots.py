"""A local webhook bot server for tests and benchmarks: on 127.0.0.1 only, one per test.

Every call is verified with examples/webhook_bot.py's verifier and recorded. Each bot (by path
prefix ``/NAME``) has a mode the test sets: ``good`` (a random legal move), ``slow`` (answers after
its deadline), ``nonsense`` (``{"move": "..."}``), ``down`` (500), ``hold`` (holds its answer to
its first /move until the test sets ``released``, at most a minute), or ``receiver`` (a
subscription's endpoint: fails its first ``fail_first`` deliveries with 500). Each call records the
caller's address (``peer``), so a test can tell which process made it.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from webhook_bot import verify


@dataclasses.dataclass
class Received:
    bot: str
    kind: str
    headers: dict[str, str]
    body: bytes
    verified: bool
    at: float
    peer: tuple[str, int]

    @property
    def payload(self) -> Any:
        return json.loads(self.body)


class Bots:
    """The bots of one server: their secrets, modes and the calls they received."""

    def __init__(self) -> None:
        self.secrets: dict[str, list[str]] = {}
        self.modes: dict[str, str] = {}
        self.fail_first = 0
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.released = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, bot: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{bot}"

    def calls(self, bot: str | None = None, kind: str | None = None) -> list[Received]:
        with self.lock:
            return [one for one in self.received if (bot is None or one.bot == bot) and (kind is None or one.kind == kind)]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _answer(self, bot: str, kind: str, payload: Any) -> tuple[int, Any]:
        mode = self.modes.get(bot, "good")
        if mode == "receiver":
            with self.lock:
                failing = len([one for one in self.received if one.bot == bot]) <= self.fail_first
            return (500, {}) if failing else (200, {})
        if kind != "move":
            return 200, {}
        if mode == "down":
            return 500, {}
        if mode == "nonsense":
            return 200, {"move": "nonsense"}
        if mode == "slow":
            time.sleep(payload["time_left_ms"] / 1000 + 0.3)
        if mode == "hold" and len(self.calls(bot, "move")) == 1:
            self.released.wait(60)
        return 200, {"move": random.choice(payload["view"]["legal_moves"])}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        bots = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                bot, _, kind = self.path.strip("/").rpartition("/")
                if bots.modes.get(kind) == "receiver":
                    bot, kind = kind, "event"
                headers = {name.lower(): value for name, value in self.headers.items()}
                verified = verify(bots.secrets.get(bot, []), headers, body)
                with bots.lock:
                    bots.received.append(Received(bot, kind, headers, body, verified, time.monotonic(),
                                                  self.client_address))
                status, document = bots._answer(bot, kind, json.loads(body)) if verified else (401, {})
                data = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

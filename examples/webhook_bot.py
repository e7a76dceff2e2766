"""A webhook bot with the standard library alone: python3 examples/webhook_bot.py PORT SECRET (see docs/bots.md).

Cardhall calls POST /start, /move and /end, signed as Standard Webhooks specifies. This bot refuses
any call whose signature does not verify, and answers each /move with a random legal move. It says on
standard error where it listens, each game it starts and ends, and each call it refuses.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_SECONDS = 5 * 60


def verify(secrets: list[str], headers: dict[str, str], body: bytes, now: float | None = None) -> bool:
    """Whether ``body`` was signed by Cardhall with one of ``secrets`` (``whsec_…``), less than 5 minutes ago."""
    message_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    try:
        if abs((time.time() if now is None else now) - int(timestamp)) > TOLERANCE_SECONDS:
            return False
    except ValueError:
        return False
    signed = f"{message_id}.{timestamp}.".encode() + body
    expected = [base64.b64encode(hmac.new(base64.b64decode(secret.removeprefix("whsec_")), signed,
                                          hashlib.sha256).digest()) for secret in secrets]
    for given in headers.get("webhook-signature", "").split():
        version, _, signature = given.partition(",")
        if version == "v1" and any(hmac.compare_digest(signature.encode(), one) for one in expected):
            return True
    return False


def choose(call: dict) -> dict:
    """The move to play: any legal one."""
    return random.choice(call["view"]["legal_moves"])


def say(line: str) -> None:
    """A line on standard error, at once."""
    print(line, file=sys.stderr, flush=True)


def handler(secrets: list[str]) -> type[BaseHTTPRequestHandler]:
    class Bot(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if not verify(secrets, {name.lower(): value for name, value in self.headers.items()}, body):
                say(f"refused a call to {self.path}: its signature does not verify with the secret given (the "
                    "\"secret\" that PUT /v1/account/webhook answered; a new one since, after a rotation?), or it "
                    "was signed more than 5 minutes ago")
                self.answer(401, {"error": "bad signature"})
            elif self.path.endswith("/move"):
                self.answer(200, {"move": choose(json.loads(body))})
            else:  # /start, /end
                call = json.loads(body)
                said = f"result {json.dumps(call['result'])}" if self.path.endswith("/end") else "started"
                say(f"{call['game']} game {call['game_id']}, seat {call['seat']}: {said}")
                self.answer(200, {})

        def answer(self, status: int, document: dict) -> None:
            data = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    return Bot


if __name__ == "__main__":
    port, secret = int(sys.argv[1]), sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", port), handler([secret]))
    say(f"webhook bot listening on http://127.0.0.1:{port} (the url to register with PUT /v1/account/webhook)")
    server.serve_forever()

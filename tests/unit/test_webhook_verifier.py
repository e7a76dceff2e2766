"""The example bot's verifier (examples/webhook_bot.py) against what Cardhall signs (service.signing):
it refuses a tampered call and a stale one. (That a rotated secret's header, as a server sends it,
verifies with either secret: tests/e2e/test_webhooks.py.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from service import signing

_spec = importlib.util.spec_from_file_location("webhook_bot", Path(__file__).parents[2] / "examples" / "webhook_bot.py")
assert _spec is not None and _spec.loader is not None
webhook_bot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(webhook_bot)

SECRET = signing.new_secret()
SENT_AT = 1_800_000_000
BODY = b'{"game_id": "g1", "version": 7, "seat": 0}'


def signed(body: bytes = BODY, secrets: tuple[str, ...] = (SECRET,)) -> dict[str, str]:
    return signing.headers(secrets, "call_g1_7_0_move", SENT_AT, body)


def test_a_call_signed_with_the_bots_secret_verifies() -> None:
    assert webhook_bot.verify([SECRET], signed(), BODY, now=SENT_AT + 1)


def test_a_tampered_body_is_refused() -> None:
    assert not webhook_bot.verify([SECRET], signed(), BODY.replace(b"7", b"8"), now=SENT_AT + 1)


def test_a_tampered_webhook_id_or_timestamp_is_refused() -> None:
    assert not webhook_bot.verify([SECRET], {**signed(), "webhook-id": "call_g1_8_0_move"}, BODY, now=SENT_AT)
    assert not webhook_bot.verify([SECRET], {**signed(), "webhook-timestamp": str(SENT_AT + 1)}, BODY, now=SENT_AT)


def test_a_call_older_than_the_tolerance_is_refused_and_one_just_within_it_verifies() -> None:
    tolerance = webhook_bot.TOLERANCE_SECONDS
    assert webhook_bot.verify([SECRET], signed(), BODY, now=SENT_AT + tolerance)
    assert not webhook_bot.verify([SECRET], signed(), BODY, now=SENT_AT + tolerance + 1)
    assert not webhook_bot.verify([SECRET], signed(), BODY, now=SENT_AT - tolerance - 1)  # (from the future)


def test_a_call_signed_with_another_secret_or_unsigned_is_refused() -> None:
    assert not webhook_bot.verify([signing.new_secret()], signed(), BODY, now=SENT_AT)
    assert not webhook_bot.verify([SECRET], {**signed(), "webhook-signature": ""}, BODY, now=SENT_AT)
    assert not webhook_bot.verify([SECRET], {**signed(), "webhook-timestamp": "soon"}, BODY, now=SENT_AT)


def test_the_example_bot_says_where_it_listens_each_game_it_plays_and_each_call_it_refuses() -> None:
    """It said nothing at all: a bot given the wrong secret refused every call in silence (the server then saw
    401s and played the clock's moves), and whether it was even listening was left to guess."""
    import http.client
    import json
    import queue
    import socket
    import subprocess
    import sys
    import threading
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    bot = subprocess.Popen([sys.executable, str(Path(__file__).parents[2] / "examples" / "webhook_bot.py"), str(port),
                            SECRET], stderr=subprocess.PIPE, text=True)
    said: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [said.put(line) for line in bot.stderr], daemon=True).start()  # type: ignore

    def line() -> str:
        try:
            return said.get(timeout=10)
        except queue.Empty:
            return "(nothing said in 10 s)"

    try:
        assert line() == f"webhook bot listening on http://127.0.0.1:{port} (the url to register with " \
                                        "PUT /v1/account/webhook)\n"

        def post(path: str, document: dict, secrets: tuple[str, ...] = (SECRET,)) -> int:
            body = json.dumps(document).encode()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("POST", path, body, signing.headers(secrets, "call_g1_0_0_x", int(time.time()), body))
            status = connection.getresponse().status
            connection.close()
            return status

        call = {"game_id": "g1", "version": 0, "seat": 1, "game": "scat", "result": None}
        assert post("/start", call) == 200
        assert post("/move", {**call, "view": {"legal_moves": []}}, (signing.new_secret(),)) == 401
        assert post("/end", {**call, "version": 40, "result": {"winners": [1], "lives": [0, 2]}}) == 200
        assert [line() for _ in range(3)] == [
            "scat game g1, seat 1: started\n",
            "refused a call to /move: its signature does not verify with the secret given (the \"secret\" that PUT "
            "/v1/account/webhook answered; a new one since, after a rotation?), or it was signed more than 5 minutes "
            "ago\n",
            'scat game g1, seat 1: result {"winners": [1], "lives": [0, 2]}\n']
    finally:
        bot.terminate()
        bot.wait(timeout=10)

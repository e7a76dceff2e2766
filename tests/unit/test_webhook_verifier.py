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

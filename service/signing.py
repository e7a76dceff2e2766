"""Signing as Standard Webhooks specifies (https://www.standardwebhooks.com/).

A secret reads ``whsec_`` + base64 of 24 random bytes; its key is those bytes. A message is signed
over ``{webhook-id}.{webhook-timestamp}.{body}`` with HMAC-SHA256; ``webhook-signature`` holds
``v1,<base64 signature>`` once for each secret live at the time (space-separated): during a
rotation both the new and the old secret sign, so a receiver that knows either one verifies.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable

PREFIX = "whsec_"


def new_secret() -> str:
    """A new signing secret (shown once to its owner)."""
    return PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """One ``v1,…`` signature of the message with ``secret``."""
    key = base64.b64decode(secret.removeprefix(PREFIX))
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def headers(live_secrets: Iterable[str], message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three headers of a signed message: its id, timestamp and a signature by each live secret."""
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp),
            "webhook-signature": " ".join(signature(secret, message_id, timestamp, body) for secret in live_secrets)}

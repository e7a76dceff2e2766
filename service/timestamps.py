"""How Cardhall writes a moment, wherever one leaves it — API answers, stream frames, records, webhook
payloads, account events: RFC 3339 in UTC, to the millisecond, with ``Z`` (``2026-12-01T09:00:30.000Z``).
One format, so that a client parses every timestamp one way and compares two of them as text.

The service hands the API datetimes wherever the API writes the answer (its marshmallow ``Timestamp`` fields and
its JSON provider call :func:`timestamp`); it writes the text itself only into the documents it keeps or sends
as JSON: a move's answer (kept for idempotent replays), a view's ``deadline`` (a webhook bot's call carries the
view), an event as the log shows it, a record, a challenge (an account event's data) and a webhook's payload."""

from __future__ import annotations

import datetime as dt
from typing import Any


def timestamp(moment: dt.datetime) -> str:
    """``moment`` (timezone-aware) as Cardhall writes it."""
    return moment.astimezone(dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def json_default(value: Any) -> str:
    """``json.dumps``' ``default``: a moment as :func:`timestamp` writes it; anything else is no JSON."""
    if isinstance(value, dt.datetime):
        return timestamp(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")

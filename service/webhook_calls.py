"""One call of a webhook bot (``/start``, ``/move``, ``/end``): its body, deadline, timeout and signed headers.

A call's body is JSON encoded once, when the call is made up (:func:`call_of`); its signatures are over those bytes.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

from domain import table as tables
from persistence.webhooks import Webhook
from service import signing
from service.games import GameService
from service.queries import with_deadline
from service.timestamps import timestamp

DEADLINE_MARGIN = 0.05  # seconds: a move's call ends this long before its turn's deadline, to be played in time
START_END_TIMEOUT_MS = 1000  # /start and /end: at most this (or the bot's timeout, if shorter)


@dataclasses.dataclass(frozen=True, slots=True)
class Call:
    """One call of a webhook bot, claimed by this process: where, what, and by when."""

    key: tuple[str, int, int, str]  # game id, version (0 for /start and /end), seat, kind
    account: str
    url: str
    body: bytes
    secrets: tuple[str, ...]
    timeout: float  # seconds
    deadline: dt.datetime | None  # a move's: the turn's deadline
    probe: bool = False  # the call that tries an offline bot again
    webhook: Webhook | None = None  # the bot's webhook as read for the call (its circuit, checked when settled)

    @property
    def kind(self) -> str:
        return self.key[3]

    @property
    def message_id(self) -> str:
        """The webhook-id: the same for every try of this call (a receiver deduplicates by it)."""
        game_id, version, seat, kind = self.key
        return f"call_{game_id}_{version}_{seat}_{kind}"

    def headers(self, now: dt.datetime) -> dict[str, str]:
        return signing.headers(self.secrets, self.message_id, int(now.timestamp()), self.body)


def iso(moment: dt.datetime | None) -> str | None:
    return None if moment is None else timestamp(moment)


def call_of(games: GameService, table: tables.Table, game_id: str, seat: int, webhook: Webhook, kind: str,
            now: dt.datetime, probe: bool = False, began: dt.datetime | None = None) -> Call | None:
    """The call of ``kind`` for ``seat`` as ``table`` stands, secrets not yet read; None if no time is left."""
    body, deadline, timeout = _body(games, table, game_id, seat, webhook, kind, now, began)
    if timeout <= 0:
        return None
    key = (game_id, table.version if kind == "move" else 0, seat, kind)
    return Call(key, webhook.account, webhook.url, body, (), timeout, deadline, probe, webhook)


def _body(games: GameService, table: tables.Table, game_id: str, seat: int, webhook: Webhook, kind: str,
          now: dt.datetime, began: dt.datetime | None = None) -> tuple[bytes, dt.datetime | None, float]:
    """A call's body, its turn's deadline and how long it may take (``began``: when the turn began, if known)."""
    if kind != "move":
        body = {"game_id": game_id, "version": table.version, "seat": seat, "game": table.game.name,
                "players": table.players, "options": tables.public_options(table), "status": table.status,
                "result": table.game.result(table.state) if table.status == tables.FINISHED else None}
        return json.dumps(body).encode(), None, min(webhook.timeout_ms, START_END_TIMEOUT_MS) / 1000
    view = with_deadline(tables.view(table, seat), table, began) if began else games.seat_view(game_id, seat, table)
    deadline = dt.datetime.fromisoformat(view["deadline"].replace("Z", "+00:00")) if view.get("deadline") else None
    left = (deadline - now).total_seconds() if deadline else webhook.timeout_ms / 1000
    body = {"game_id": game_id, "version": table.version, "seat": seat, "view": view, "deadline": view.get("deadline"),
            "time_left_ms": max(0, int(left * 1000)), "timeout_ms": webhook.timeout_ms,
            "last_latency_ms": webhook.last_latency_ms, "last_late": webhook.last_late}
    return json.dumps(body).encode(), deadline, min(webhook.timeout_ms / 1000, left - DEADLINE_MARGIN)

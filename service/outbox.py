"""Subscriptions' deliveries: the outbox, a projection of the account events, sent at least once.

Each round (:meth:`Outbox.step`, from the delivery's loop): the account events since the outbox's
position that a subscription asks for are put in the outbox (each once: its row's id, the
``webhook-id``, is ``msg_`` + the event's position, so the projection can be run again, from any
process, to the same rows), then the entries due are claimed (one process each) and posted,
signed. An entry not answered 2xx is tried again after ``base_seconds`` doubling with each try (at
most :data:`MAX_BACK_OFF_SECONDS`), for up to ``max_age_seconds`` after its event; then given up.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

from service import outbound, signing
from service.webhooks import EVENT_OF_TYPE, SUBSCRIPTIONS, Webhooks, iso

log = logging.getLogger(__name__)

BATCH = 200
DUE_BATCH = 50
MAX_BACK_OFF_SECONDS = 3600.0
LEASE = dt.timedelta(seconds=60)
TIMEOUT_SECONDS = 10.0


def payload(row: Any) -> dict[str, Any] | None:
    """What a subscription is sent for an account event (None: it did not ask for it)."""
    event = EVENT_OF_TYPE.get(row.type)
    if event is None or event not in row.events:
        return None
    return {"type": event, "timestamp": iso(row.recorded_at), "data": {"account": row.account, **row.data}}


class Outbox:
    """The projection of account events into the outbox, and the outbox's delivery."""

    def __init__(self, webhooks: Webhooks, base_seconds: float = 5.0, max_age_seconds: float = 86_400.0) -> None:
        self.webhooks = webhooks
        self.base_seconds = base_seconds
        self.max_age = dt.timedelta(seconds=max_age_seconds)

    def project(self) -> int:
        """Put the new account events subscriptions ask for in the outbox; how many events were read."""
        return self.webhooks.games.accounts.write(
            lambda tx, _writes: self.webhooks.store.writes(tx).project(BATCH, payload))

    def due(self) -> list[Any]:
        """The entries due now, each claimed for this process."""
        now = self.webhooks.games.clock()
        claimed = []
        for entry in self.webhooks.store.due_outbox(now, DUE_BATCH):
            if self.webhooks.games.accounts.write(
                    lambda tx, _writes, entry=entry: self.webhooks.store.writes(tx).claim_outbox(entry.id, now, now + LEASE)):
                subscription = self.webhooks.store.subscription(entry.account)
                secrets = self.webhooks.store.live_secrets(entry.account, SUBSCRIPTIONS, now)
                claimed.append((entry, subscription, secrets))
        return claimed

    def tried(self, entry: Any, error: str | None) -> None:
        """Record a try: delivered (``error`` None), or when to try again (never, past the maximum age)."""
        now = self.webhooks.games.clock()
        attempts = entry.attempts + 1
        retry = None
        if error is not None:
            retry = now + dt.timedelta(seconds=min(MAX_BACK_OFF_SECONDS, self.base_seconds * 2 ** min(attempts - 1, 20)))
            if retry - entry.created_at > self.max_age:
                retry = None
                log.warning("gave up delivering %s to %s: %s", entry.id, entry.account, error)
        self.webhooks.games.accounts.write(lambda tx, _writes: self.webhooks.store.writes(tx).outbox_tried(
            entry.id, attempts, now if error is None else None, retry, error))

    async def step(self, delivery: Any) -> None:
        """One round: project, then post what is due."""
        while await delivery.in_thread(self.project) == BATCH:
            pass
        for entry, subscription, secrets in await delivery.in_thread(self.due):
            error = await self._post(delivery.client, entry, subscription, secrets)
            await delivery.in_thread(self.tried, entry, error)

    async def _post(self, client: outbound.Client, entry: Any, subscription: Any, secrets: list[str]) -> str | None:
        """Post one entry; None once answered 2xx, else why not."""
        if subscription is None or not secrets:
            return "no subscription"
        body = json.dumps(entry.payload).encode()
        headers = signing.headers(secrets, entry.id, int(dt.datetime.now(dt.UTC).timestamp()), body)
        try:
            answer = await outbound.post(client, subscription.url, body, headers, TIMEOUT_SECONDS,
                                         self.webhooks.resolver, self.webhooks.allow_private)
        except (outbound.Refused, outbound.CallFailed, outbound.CallTimeout) as error:
            return f"{type(error).__name__}: {error}"
        return None if 200 <= answer.status < 300 else f"answered {answer.status}"

"""The webhook store: bot webhooks and their circuits, signing secrets, calls, subscriptions and their outbox.

On the event store's own database (SQL backends only): reads go through the store's pooled reads,
writes through an event store transaction (:meth:`WebhookStore.writes`), so a circuit that opens
commits with the account event saying so. Two processes claiming one call are decided by the
call's primary key (an insert that finds the row takes it only if its lease ran out).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from persistence.port import EventStore, Transaction
from persistence.schema import (
    account_events,
    account_seats,
    accounts,
    games,
    subscriptions,
    webhook_calls,
    webhook_outbox,
    webhook_positions,
    webhook_secrets,
    webhooks,
)


@dataclasses.dataclass(frozen=True, slots=True)
class Webhook:
    account: str  # the account's name key
    url: str
    timeout_ms: int
    concurrency: int
    created_at: dt.datetime
    failures: int
    offline_since: dt.datetime | None
    retry_at: dt.datetime | None
    last_latency_ms: int | None
    last_late: bool


@dataclasses.dataclass(frozen=True, slots=True)
class Subscription:
    account: str
    url: str
    events: list[str]
    created_at: dt.datetime


@dataclasses.dataclass(frozen=True, slots=True)
class OutboxEntry:
    id: str
    account: str
    payload: dict[str, Any]
    created_at: dt.datetime
    attempts: int


def _insert(connection: sa.Connection, table: sa.Table) -> Any:
    module = sa.dialects.postgresql if connection.dialect.name == "postgresql" else sa.dialects.sqlite
    return module.insert(table)


class WebhookWrites:
    """The webhook writes of one event store transaction."""

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection

    def put_webhook(self, webhook: Webhook) -> None:
        """Add or replace the account's webhook (its circuit closed again)."""
        row = dataclasses.asdict(webhook)
        insert = _insert(self.connection, webhooks)
        self.connection.execute(insert.on_conflict_do_update(index_elements=["account"], set_=row), row)

    def delete_webhook(self, account: str) -> bool:
        self.delete_secrets(account, "bot")
        return self.connection.execute(webhooks.delete().where(webhooks.c.account == account)).rowcount == 1

    def delete_secrets(self, account: str, purpose: str) -> None:
        self.connection.execute(webhook_secrets.delete().where(webhook_secrets.c.account == account,
                                                               webhook_secrets.c.purpose == purpose))

    def add_secret(self, account: str, purpose: str, secret: str, now: dt.datetime,
                   retire_after: dt.datetime | None = None) -> None:
        """A new live secret; the live one before it expires at ``retire_after`` (None: at once), and those already
        retiring at once: only the one before the new one signs beside it (each rotation kept one more, and every
        call was signed with each of them: a header and a run of HMACs as long as the rotations of a day)."""
        mine = (webhook_secrets.c.account == account, webhook_secrets.c.purpose == purpose)
        # (the account's row locked first: rotations at once on PostgreSQL each retired the live secret of its own
        # snapshot, and left as many live as there were)
        self.connection.execute(sa.select(accounts.c.name_key).where(accounts.c.name_key == account)
                                .with_for_update(key_share=True))
        self.connection.execute(webhook_secrets.delete().where(*mine, webhook_secrets.c.expires_at.is_not(None)))
        self.connection.execute(webhook_secrets.update().where(*mine, webhook_secrets.c.expires_at.is_(None))
                                .values(expires_at=retire_after or now))
        self.connection.execute(webhook_secrets.delete().where(*mine, webhook_secrets.c.expires_at <= now))
        self.connection.execute(webhook_secrets.insert(), {"account": account, "purpose": purpose, "secret": secret,
                                                           "created_at": now, "expires_at": None})

    def update_webhook(self, account: str, expected: Webhook, **values: Any) -> bool:
        """Change the webhook's circuit fields, if they are still as ``expected`` (False: someone changed them)."""
        statement = webhooks.update().where(
            webhooks.c.account == account, webhooks.c.failures == expected.failures,
            webhooks.c.offline_since.is_(None) if expected.offline_since is None
            else webhooks.c.offline_since == expected.offline_since).values(**values)
        return self.connection.execute(statement).rowcount == 1

    def claim(self, key: tuple[str, int, int, str], account: str, owner: str, now: dt.datetime,
              lease_until: dt.datetime, concurrency: int) -> int | None:
        """Claim a call (``(game_id, version, seat, kind)``) until ``lease_until``: how many times it has been
        claimed, this one included; None if another process holds it, it was answered, or the account
        has ``concurrency`` calls under way already."""
        under_way = self.connection.execute(sa.select(sa.func.count()).select_from(webhook_calls).where(
            webhook_calls.c.account == account, webhook_calls.c.outcome.is_(None),
            webhook_calls.c.lease_until > now)).scalar()
        if under_way >= concurrency:
            return None
        game_id, version, seat, kind = key
        insert = _insert(self.connection, webhook_calls).on_conflict_do_nothing().returning(webhook_calls.c.calls)
        row = {"game_id": game_id, "version": version, "seat": seat, "kind": kind, "account": account,
               "claimed_by": owner, "lease_until": lease_until, "calls": 1}
        if self.connection.execute(insert, row).first() is not None:
            return 1
        taken = self.connection.execute(webhook_calls.update().where(
            webhook_calls.c.game_id == game_id, webhook_calls.c.version == version, webhook_calls.c.seat == seat,
            webhook_calls.c.kind == kind, webhook_calls.c.outcome.is_(None), webhook_calls.c.lease_until <= now,
        ).values(claimed_by=owner, lease_until=lease_until, calls=webhook_calls.c.calls + 1)
         .returning(webhook_calls.c.calls)).first()
        return None if taken is None else int(taken[0])

    def answered(self, key: tuple[str, int, int, str], outcome: str, latency_ms: int | None, now: dt.datetime) -> None:
        game_id, version, seat, kind = key
        self.connection.execute(webhook_calls.update().where(
            webhook_calls.c.game_id == game_id, webhook_calls.c.version == version, webhook_calls.c.seat == seat,
            webhook_calls.c.kind == kind).values(outcome=outcome, latency_ms=latency_ms, answered_at=now))

    def put_subscription(self, subscription: Subscription) -> None:
        row = dataclasses.asdict(subscription)
        insert = _insert(self.connection, subscriptions)
        self.connection.execute(insert.on_conflict_do_update(index_elements=["account"], set_=row), row)

    def delete_subscription(self, account: str) -> bool:
        self.delete_secrets(account, "subscriptions")
        return self.connection.execute(subscriptions.delete().where(subscriptions.c.account == account)).rowcount == 1

    def project(self, limit: int, make: Any) -> int:
        """Read the account events after the outbox's position, put in the outbox the payload
        ``make(event, subscription)`` gives each one a subscription wants (None: it wants none), and
        move the position on: how many events were read."""
        position = self.connection.execute(sa.select(webhook_positions.c.position)
                                           .where(webhook_positions.c.name == "outbox")).scalar()
        if position is None:  # (first run: only what comes from now on)
            position = self.connection.execute(sa.select(sa.func.coalesce(sa.func.max(account_events.c.position), 0))
                                               ).scalar()
            # (another process may start the outbox in the same moment: the first one's position stands)
            self.connection.execute(_insert(self.connection, webhook_positions).on_conflict_do_nothing(),
                                    {"name": "outbox", "position": position})
            position = self.connection.execute(sa.select(webhook_positions.c.position)
                                               .where(webhook_positions.c.name == "outbox")).scalar_one()
        rows = self.connection.execute(
            sa.select(account_events.c.position, account_events.c.account, account_events.c.type,
                      account_events.c.data, account_events.c.recorded_at, subscriptions.c.url,
                      subscriptions.c.events, subscriptions.c.created_at)
            .join(subscriptions, subscriptions.c.account == account_events.c.account, isouter=True)
            .where(account_events.c.position > position).order_by(account_events.c.position).limit(limit)).all()
        for row in rows:
            if row.url is None or row.recorded_at < row.created_at or (payload := make(row)) is None:
                continue
            insert = _insert(self.connection, webhook_outbox).on_conflict_do_nothing()
            self.connection.execute(insert, {"id": f"msg_{row.position}", "account": row.account, "payload": payload,
                                             "created_at": row.recorded_at, "attempts": 0,
                                             "next_attempt_at": row.recorded_at})
        if rows:
            self.connection.execute(webhook_positions.update().where(
                webhook_positions.c.name == "outbox", webhook_positions.c.position < rows[-1].position)
                .values(position=rows[-1].position))
        return len(rows)

    def claim_outbox(self, entry_id: str, now: dt.datetime, lease_until: dt.datetime) -> bool:
        """Take a due entry until ``lease_until`` (False: another process took it first)."""
        return self.connection.execute(webhook_outbox.update().where(
            webhook_outbox.c.id == entry_id, webhook_outbox.c.next_attempt_at <= now,
        ).values(next_attempt_at=lease_until)).rowcount == 1

    def outbox_tried(self, entry_id: str, attempts: int, delivered_at: dt.datetime | None,
                     next_attempt_at: dt.datetime | None, error: str | None) -> None:
        self.connection.execute(webhook_outbox.update().where(webhook_outbox.c.id == entry_id).values(
            attempts=attempts, delivered_at=delivered_at, next_attempt_at=next_attempt_at,
            last_error=None if error is None else error[:200]))


#: How long a process signs a bot's calls with the webhook and secrets it read (their changes by other
#: processes are seen within this; its own at once).
CACHE_SECONDS = 1.0


class WebhookStore:
    """Reads of webhooks, secrets, calls and subscriptions; writes go through :meth:`writes`."""

    def __init__(self, store: EventStore, cache_seconds: float = CACHE_SECONDS) -> None:
        self.store = store
        self.cache_seconds = cache_seconds
        self._cached: dict[str, tuple[float, Webhook, tuple[str, ...]]] = {}  # account -> (read at, webhook, secrets)

    def bot(self, account: str, now: dt.datetime) -> tuple[Webhook | None, tuple[str, ...]]:
        """The account's webhook and its live bot secrets, as read at most ``cache_seconds`` ago."""
        cached = self._cached.get(account)
        if cached is not None and time.monotonic() - cached[0] < self.cache_seconds:
            return cached[1], cached[2]
        read_at, webhook = time.monotonic(), self.webhook(account)
        if webhook is None:
            self._cached.pop(account, None)
            return None, ()
        secrets = tuple(self.live_secrets(account, "bot", now))
        self._cached[account] = (read_at, webhook, secrets)
        return webhook, secrets

    def changed(self, account: str, webhook: Webhook | None = None) -> None:
        """This process changed the account's webhook: to ``webhook`` (its secrets as they were), or else read
        it again next time (registered, removed, a secret rotated)."""
        cached = self._cached.get(account)
        if webhook is None or cached is None:
            self._cached.pop(account, None)
        else:
            self._cached[account] = (cached[0], webhook, cached[2])

    def writes(self, tx: Transaction) -> WebhookWrites:
        return WebhookWrites(tx.connection)  # type: ignore[attr-defined]

    def _rows(self, query: sa.Executable) -> Sequence[Any]:
        return self.store._read(lambda connection: connection.execute(query).all())  # type: ignore[attr-defined]

    def webhook(self, account: str) -> Webhook | None:
        rows = self._rows(sa.select(*(getattr(webhooks.c, field.name) for field in dataclasses.fields(Webhook)))
                          .where(webhooks.c.account == account))
        return Webhook(*rows[0]) if rows else None

    def webhook_accounts(self) -> set[str]:
        return {row.account for row in self._rows(sa.select(webhooks.c.account))}

    def live_secrets(self, account: str, purpose: str, now: dt.datetime) -> list[str]:
        """The account's secrets for ``purpose`` that sign now, newest first."""
        rows = self._rows(sa.select(webhook_secrets.c.secret).where(
            webhook_secrets.c.account == account, webhook_secrets.c.purpose == purpose,
            sa.or_(webhook_secrets.c.expires_at.is_(None), webhook_secrets.c.expires_at > now))
            .order_by(webhook_secrets.c.created_at.desc()))
        return [row.secret for row in rows]

    def webhook_games(self) -> list[str]:
        """The active games with a seat held by an account that has a webhook."""
        rows = self._rows(sa.select(account_seats.c.game_id).distinct()
                          .join(webhooks, webhooks.c.account == account_seats.c.account)
                          .join(games, games.c.id == account_seats.c.game_id)
                          .where(account_seats.c.finished.is_(False), games.c.status == "active"))
        return [row.game_id for row in rows]

    def calls(self, game_id: str) -> list[dict[str, Any]]:
        """The game's calls of webhook bots, in the order they were made: every ``start``, the moves by version, every
        ``end`` (a start's and an end's version is 0: by version alone, the ends came before the starts)."""
        stage = sa.case((webhook_calls.c.kind == "start", 0), (webhook_calls.c.kind == "end", 2), else_=1)
        rows = self._rows(sa.select(webhook_calls.c.version, webhook_calls.c.seat, webhook_calls.c.kind,
                                    webhook_calls.c.account, webhook_calls.c.calls, webhook_calls.c.outcome,
                                    webhook_calls.c.latency_ms)
                          .where(webhook_calls.c.game_id == game_id)
                          .order_by(stage, webhook_calls.c.version, webhook_calls.c.seat, webhook_calls.c.kind))
        return [dict(row._mapping) for row in rows]

    def subscription(self, account: str) -> Subscription | None:
        rows = self._rows(sa.select(subscriptions.c.account, subscriptions.c.url, subscriptions.c.events,
                                    subscriptions.c.created_at).where(subscriptions.c.account == account))
        return Subscription(*rows[0]) if rows else None

    def due_outbox(self, now: dt.datetime, limit: int) -> list[OutboxEntry]:
        rows = self._rows(sa.select(webhook_outbox.c.id, webhook_outbox.c.account, webhook_outbox.c.payload,
                                    webhook_outbox.c.created_at, webhook_outbox.c.attempts)
                          .where(webhook_outbox.c.next_attempt_at <= now)
                          .order_by(webhook_outbox.c.next_attempt_at).limit(limit))
        return [OutboxEntry(*row) for row in rows]

"""Webhooks: bots that are called, and subscriptions for integrators (API "Webhooks", docs/api.md).

A bot account registers a URL (:meth:`Webhooks.register`); its seats are then played by calling it
(``POST {url}/start``, ``/move``, ``/end``: :mod:`service.webhook_delivery` makes the calls). This
module holds what those calls need from the database, in the threads the delivery hands it:
:meth:`Webhooks.claims` finds the turns a game waits for from webhook bots and claims each call
(once across every process: the call's row), and :meth:`Webhooks.settle` plays an answer through
the service's ordinary move path (:meth:`GameService.move_for`), records how the call went and
keeps the bot's circuit. A late, invalid or failed answer plays nothing: the turn is the clock's,
whose default move is recorded as every timeout is (``TurnTimedOut``), which is why a webhook bot
only sits in clocked games (:meth:`Webhooks.require_clock`).

The circuit: ``failures_to_open`` failed calls in a row mark the bot offline (account event
``webhookOffline``); its turns then go to the clock. After ``retry_seconds`` (doubling with each
failed probe, at most :data:`MAX_RETRY_SECONDS`) one call is tried; an answer closes the circuit
(``webhookOnline``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from typing import Any

from domain import table as tables
from domain.errors import DomainError, InvalidOptions
from persistence.accounts import key_of
from persistence.webhooks import Subscription, Webhook, WebhookStore
from service import outbound, signing
from service.accounts import PLAY, READ, Caller
from service.errors import ClockRequired, NotABot, NotFound, UrlRefused
from service.games import GameService
from service.webhook_calls import Call, call_of, iso
from service.writes import Write

#: The events a subscription may ask for, and the account events each is made from.
SUBSCRIBABLE = {"game.started": "gameStart", "game.finished": "gameFinish", "challenge.created": "challenge",
                "challenge.accepted": "challengeAccepted", "challenge.declined": "challengeDeclined",
                "challenge.canceled": "challengeCanceled"}
EVENT_OF_TYPE = {account_type: event for event, account_type in SUBSCRIBABLE.items()}
BOT, SUBSCRIPTIONS = "bot", "subscriptions"
MAX_RETRY_SECONDS = 600.0
LEASE_MARGIN = dt.timedelta(seconds=1)  # a claim outlives its call's timeout by this much


class Webhooks:
    """Registrations, subscriptions, and the database side of calling bots; one per process."""

    def __init__(self, games: GameService, *, allow_private: bool = False,
                 resolver: outbound.Resolver = outbound.system_resolver, failures_to_open: int = 5,
                 retry_seconds: float = 30.0, rotation_seconds: float = 86_400.0) -> None:
        self.games = games
        self.store = WebhookStore(games.store)
        self.allow_private = allow_private
        self.resolver = resolver
        self.failures_to_open = failures_to_open
        self.retry_seconds = retry_seconds
        self.rotation = dt.timedelta(seconds=rotation_seconds)
        self.owner = uuid.uuid4().hex  # (this process, in the claims it makes)
        self.bot_accounts: set[str] = set()  # accounts with a webhook, as last scanned
        self._started: set[tuple[str, int]] = set()  # (game, seat) whose /start this process knows is claimed

    # -- registering ---------------------------------------------------------------------------
    def check_url(self, url: str) -> None:
        """UrlRefused unless ``url`` is one Cardhall would call now (decided before any connection). A URL refused only
        for what the operator's flag for development allows says so: a bot author trying a bot on 127.0.0.1 is told
        the way, not only the rule."""
        try:
            outbound.checked_now(url, self.resolver, self.allow_private)
        except outbound.Refused as refusal:
            hint = ("; a server started with --webhooks-allow-private (CARDHALL_WEBHOOKS_ALLOW_PRIVATE) calls loopback "
                    "and private addresses, over http too: for development on one machine") if refusal.private else ""
            raise UrlRefused(f"this URL is not one Cardhall calls: {refusal}{hint}") from None

    def register(self, caller: Caller, url: str, timeout_ms: int, concurrency: int) -> dict[str, Any]:
        """Make the caller's bot account a webhook bot (its circuit closed); a new secret, shown once."""
        caller.require(PLAY)
        if not caller.bot:
            raise NotABot("only a bot account plays by webhook")
        self.check_url(url)
        now = self.games.clock()
        webhook = Webhook(caller.key, url.rstrip("/"), timeout_ms, concurrency, now, 0, None, None, None, False)
        secret = self._put_with_new_secret(caller, BOT, lambda writes: writes.put_webhook(webhook), now)
        self.bot_accounts.add(caller.key)
        return {**self._webhook(webhook), "secret": secret}

    def webhook(self, caller: Caller) -> dict[str, Any]:
        return self._webhook(self._own_webhook(caller))

    def unregister(self, caller: Caller) -> None:
        caller.require(PLAY)
        self._own_webhook(caller)
        self.games.accounts.write(lambda tx, _writes: self.store.writes(tx).delete_webhook(caller.key))
        self.bot_accounts.discard(caller.key)
        self.store.changed(caller.key)

    def _put_with_new_secret(self, caller: Caller, purpose: str, put: Any, now: dt.datetime) -> str:
        """``put(writes)`` (a webhook or a subscription) with one new secret for ``purpose`` in place of every
        earlier one, in one transaction; the secret."""
        secret = signing.new_secret()

        def work(tx: Any, _writes: Any) -> None:
            writes = self.store.writes(tx)
            put(writes)
            writes.delete_secrets(caller.key, purpose)
            writes.add_secret(caller.key, purpose, secret, now)

        self.games.accounts.write(work)
        self.store.changed(caller.key)
        return secret

    def rotate(self, caller: Caller, purpose: str) -> dict[str, Any]:
        """A new secret for the caller's webhook (or subscription); the one before it signs on for
        ``rotation_seconds`` (both sign meanwhile)."""
        if purpose == BOT:
            self._own_webhook(caller)
        else:
            self._own_subscription(caller)
        now = self.games.clock()
        secret = signing.new_secret()
        self.games.accounts.write(lambda tx, _writes: self.store.writes(tx).add_secret(
            caller.key, purpose, secret, now, now + self.rotation))
        self.store.changed(caller.key)
        return {"secret": secret, "previous_expires_at": iso(now + self.rotation)}

    def _own_webhook(self, caller: Caller) -> Webhook:
        caller.require(PLAY)
        found = self.store.webhook(caller.key)
        if found is None:
            raise NotFound(f"the account {caller.account.name!r} has no webhook")
        return found

    @staticmethod
    def _webhook(webhook: Webhook) -> dict[str, Any]:
        return {"url": webhook.url, "timeout_ms": webhook.timeout_ms, "concurrency": webhook.concurrency,
                "created_at": iso(webhook.created_at), **_circuit(webhook)}

    def status(self, name: str) -> dict[str, Any] | None:
        """An account's webhook as its public page shows it (None: it has none)."""
        found = self.store.webhook(key_of(name))
        return None if found is None else _circuit(found)

    def calls(self, game_id: str) -> dict[str, Any]:
        """The game's calls of webhook bots: each turn's outcome and the bot's latency."""
        self.games.table(game_id)
        return {"calls": self.store.calls(game_id)}

    # -- subscriptions -------------------------------------------------------------------------
    def subscribe(self, caller: Caller, url: str, events: list[str]) -> dict[str, Any]:
        """Send the caller's account's ``events`` to ``url`` from now on; a new secret, shown once."""
        caller.require(READ)
        if unknown := sorted(set(events) - set(SUBSCRIBABLE)):
            raise InvalidOptions(f"unknown events {unknown}; known: {', '.join(SUBSCRIBABLE)}")
        self.check_url(url)
        now = self.games.clock()
        subscription = Subscription(caller.key, url, sorted(set(events)), now)
        secret = self._put_with_new_secret(caller, SUBSCRIPTIONS, lambda writes: writes.put_subscription(subscription),
                                           now)
        return {**_subscription(subscription), "secret": secret}

    def subscription(self, caller: Caller) -> dict[str, Any]:
        return _subscription(self._own_subscription(caller))

    def unsubscribe(self, caller: Caller) -> None:
        self._own_subscription(caller)
        self.games.accounts.write(lambda tx, _writes: self.store.writes(tx).delete_subscription(caller.key))

    def _own_subscription(self, caller: Caller) -> Subscription:
        caller.require(READ)
        found = self.store.subscription(caller.key)
        if found is None:
            raise NotFound(f"the account {caller.account.name!r} has no subscription")
        return found

    # -- seats -------------------------------------------------------------------------------
    def require_clock(self, account: str, options: dict[str, Any]) -> None:
        """ClockRequired if ``account`` is a webhook bot and a game of ``options`` has no clock."""
        if options.get("move_seconds") is None and self.store.webhook(key_of(account)) is not None:
            raise ClockRequired(f"{account} plays by webhook: it sits only in games with a clock "
                                "(options.move_seconds)")

    # -- calling (in the delivery's threads) ---------------------------------------------------
    def scan(self) -> list[str]:
        """The active games with a webhook bot's seat (the accounts with webhooks remembered)."""
        self.bot_accounts = self.store.webhook_accounts()
        return self.store.webhook_games() if self.bot_accounts else []

    def claims(self, game_id: str) -> list[Call]:
        """The calls game ``game_id`` waits for now, each claimed for this process: a webhook bot's
        ``/start`` first seen, ``/move`` for each of its seats to act, ``/end`` once the game is over."""
        table = self.games.table(game_id)
        seats = self._bot_seats(table)
        if not seats or table.status == tables.WAITING:
            return []
        if table.status in tables.OVER:
            return [call for seat, account in seats.items()
                    if (call := self._claim(table, game_id, seat, account, "end")) is not None]
        found = [call for seat, account in seats.items() if (game_id, seat) not in self._started
                 and (call := self._claim(table, game_id, seat, account, "start")) is not None]
        self._started.update((game_id, seat) for seat in seats)
        if table.clock is not None:
            found += [call for seat in tables.to_act(table) if seat in seats
                      and (call := self._claim(table, game_id, seat, seats[seat], "move")) is not None]
        return found

    def _bot_seats(self, table: tables.Table) -> dict[int, str]:
        """The table's seats held by webhook bots (their accounts' keys), but those abandoned."""
        return {index: key_of(seat.account) for index, seat in enumerate(table.seats)
                if seat is not None and seat.account is not None and index not in table.abandoned
                and key_of(seat.account) in self.bot_accounts}

    def _claim(self, table: tables.Table, game_id: str, seat: int, account: str, kind: str) -> Call | None:
        now = self.games.clock()
        webhook, secrets = self.store.bot(account, now)
        if webhook is None:
            return None
        probe = False
        if kind == "move" and webhook.offline_since is not None:
            if webhook.retry_at is not None and webhook.retry_at > now:
                return None  # (offline: the clock plays its turns until then)
            probe = True
        if (call := call_of(self.games, table, game_id, seat, webhook, kind, now, probe=probe)) is None:
            return None

        def work(tx: Any, _writes: Any) -> int | None:
            writes = self.store.writes(tx)
            if probe and not writes.update_webhook(account, webhook, retry_at=now + self._back_off(webhook)):
                return None  # (another process probes it)
            return self._claimed(writes, call, now)

        if self.games.accounts.write(work) is None:
            return None
        if probe:
            self.store.changed(account, dataclasses.replace(webhook, retry_at=now + self._back_off(webhook)))
        return dataclasses.replace(call, secrets=secrets)

    def _claimed(self, writes: Any, call: Call, now: dt.datetime) -> int | None:
        """Claim ``call`` for this process in ``writes``' transaction, its lease outliving its timeout."""
        assert call.webhook is not None
        return writes.claim(call.key, call.account, self.owner, now,
                            now + dt.timedelta(seconds=call.timeout) + LEASE_MARGIN, call.webhook.concurrency)

    def _ahead(self, write: Write) -> list[Call]:
        """The /move calls a move's ``write`` begins a turn for (online bots' seats to act), read before the move's
        transaction, which claims them (:meth:`_play`); a turn the write did not begin is left to :meth:`claims`."""
        after, now = write.after, write.recorded_at
        if after.clock is None or not write.turn_began:
            return []
        seats = self._bot_seats(after)
        calls = []
        for seat in tables.to_act(after):
            webhook, secrets = self.store.bot(seats[seat], now) if seat in seats else (None, ())
            if webhook is None or webhook.offline_since is not None:
                continue  # (an offline bot's probe is decided by claims)
            if (call := call_of(self.games, after, write.game_id, seat, webhook, "move", now, began=now)) is not None:
                calls.append(dataclasses.replace(call, secrets=secrets))
        return calls

    def _back_off(self, webhook: Webhook) -> dt.timedelta:
        times = max(0, webhook.failures - self.failures_to_open)
        return dt.timedelta(seconds=min(MAX_RETRY_SECONDS, self.retry_seconds * 2 ** min(times, 16)))

    def settle(self, call: Call, outcome: str, move: Any, latency_ms: int | None) -> tuple[str, list[Call]]:
        """Play an answered move through the service's move path; record the call's outcome (``played``,
        ``illegal``, ``invalid``, ``late``, ``failed``) and keep the bot's circuit. The outcome, and the
        next turn's calls claimed with the move (to be made at once: :meth:`_ahead`)."""
        now = self.games.clock()
        ahead: list[Call] = []
        webhook = call.webhook  # (as read for the call: its circuit is checked by the update, else read again)
        if outcome == "answered" and call.kind == "move":
            outcome, recorded, ahead = self._play(call, move, latency_ms, now)
            if recorded:
                return outcome, ahead
            webhook = None if outcome == "played" else webhook  # (played: the circuit changed since the call's read)
        for _ in range(5):
            webhook = webhook or self.store.webhook(call.account)
            if self.games.accounts.write(lambda tx, writes, webhook=webhook: self._record(
                    tx, writes, call, outcome, latency_ms, now, webhook)):
                break
            webhook = None
        return outcome, ahead

    def _play(self, call: Call, move: Any, latency_ms: int | None, now: dt.datetime) -> tuple[str, bool, list[Call]]:
        """Play an answered move with its call's record and the next turn's claims in the move's transaction (one
        commit a turn): the outcome, whether it was recorded (not if the circuit changed meanwhile), the calls claimed."""
        game_id, version, seat, _ = call.key
        webhook = call.webhook or self.store.webhook(call.account)
        recorded: list[bool] = []
        claimed: list[Call] = []

        def also(write: Write) -> Any:
            ahead = self._ahead(write)

            def record(tx: Any) -> None:
                with self.games.accounts.store.within(tx) as writes:
                    recorded[:] = [self._record(tx, writes, call, "played", latency_ms, now, webhook)]
                claimed[:] = [next_call for next_call in ahead  # (claimed with the move that began their turn)
                              if self._claimed(self.store.writes(tx), next_call, write.recorded_at) is not None]
            return record

        try:
            self.games.move_for(game_id, seat, move, expected_version=version, also=also)
        except DomainError as error:
            # (a move that came after the clock's: the turn was played already)
            return ("late" if error.code == "version_conflict" else "illegal"), False, []
        self.games.accounts.hub.poke()
        return "played", recorded == [True], claimed

    def _record(self, tx: Any, writes: Any, call: Call, outcome: str, latency_ms: int | None, now: dt.datetime,
                webhook: Webhook | None) -> bool:
        """Record the call's outcome and keep the bot's circuit (False: the circuit changed since ``webhook``)."""
        mine = self.store.writes(tx)
        mine.answered(call.key, outcome, latency_ms, now)
        if call.kind != "move" or webhook is None:
            return True
        return self._keep_circuit(mine, writes, webhook, outcome, latency_ms, now)

    def _keep_circuit(self, mine: Any, writes: Any, webhook: Webhook, outcome: str, latency_ms: int | None,
                      now: dt.datetime) -> bool:
        """The bot's circuit after a call: closed by an answer played, opened by the Nth failure in a row."""
        values: dict[str, Any] = {"last_latency_ms": latency_ms, "last_late": outcome == "late"}
        event = None
        if outcome == "played":
            values.update(failures=0, offline_since=None, retry_at=None)
            if webhook.offline_since is not None:
                event = ("webhookOnline", {"offline_since": iso(webhook.offline_since)})
        else:
            failures = webhook.failures + 1
            values["failures"] = failures
            if webhook.offline_since is None and failures >= self.failures_to_open:
                values.update(offline_since=now, retry_at=now + dt.timedelta(seconds=self.retry_seconds))
                event = ("webhookOffline", {"failures": failures, "last_outcome": outcome,
                                            "retry_at": iso(values["retry_at"])})
        if not mine.update_webhook(webhook.account, webhook, **values):
            return False
        self.store.changed(webhook.account, dataclasses.replace(webhook, **values))  # (if rolled back: the next
        # update's check fails, and the row is read again)
        if event is not None:
            writes.append(webhook.account, event[0], event[1], now)
        return True


def _circuit(webhook: Webhook) -> dict[str, Any]:
    return {"online": webhook.offline_since is None, "offline_since": iso(webhook.offline_since),
            "retry_at": iso(webhook.retry_at), "failures_in_a_row": webhook.failures}


def _subscription(subscription: Subscription) -> dict[str, Any]:
    return {"url": subscription.url, "events": subscription.events, "created_at": iso(subscription.created_at)}

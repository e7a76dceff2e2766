"""Calling webhook bots and delivering subscriptions, from the process's event loop.

One :class:`Delivery` per server process, started with the ASGI app (its lifespan, :mod:`api.asgi`):
it holds no request thread. It learns that a turn began from the store's announcements (this
process's appends at once, other processes' as the backend's listener hears them) and from a scan,
every ``scan_seconds``, of the active games with a webhook bot's seat — which also resumes, after a
restart, a call whose process died (its claim's lease runs out; the call is made again, with the
same ``webhook-id``, and the append's version check plays its answer once). A bot's answer played
claims, in the move's transaction, the calls of the turn it begins (:meth:`Webhooks.settle`): they
are made next, without waiting to hear of the move. The database work
(claims, moves, the circuit) runs in a few threads of its own (:class:`service.webhooks.Webhooks`);
the calls go through the outbound guard (:mod:`service.outbound`) with one aiohttp client a process.

A ``/move`` is tried at most twice, the retry only after a failure that left time before the
turn's deadline, and both within the call's timeout (which its claim's lease outlives); an answer
is read as ``{"move": {...}}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from persistence.interruptions import Interruption
from persistence.sqlstore import SqlEventStore
from service import outbound
from service.errors import OUTAGES
from service.games import GameService
from service.outbox import Outbox
from service.webhook_calls import DEADLINE_MARGIN, Call
from service.webhooks import Webhooks

log = logging.getLogger(__name__)

_T = TypeVar("_T")
SCAN_SECONDS = 1.0
THREADS = 4
MIN_RETRY_SECONDS = 0.05  # a retry with less time than this left is not made


def attach(games: GameService, options: dict[str, Any]) -> tuple[Webhooks | None, Delivery | None]:
    """The webhooks of ``games`` (SQL stores only: else none) and the delivery its process runs (none where
    ``options["scan_seconds"]`` is 0); a webhook bot is then seated only in clocked games."""
    if not isinstance(games.store, SqlEventStore):
        return None, None
    webhooks = Webhooks(games, allow_private=options["allow_private"], failures_to_open=options["failures_to_open"],
                        retry_seconds=options["retry_seconds"], rotation_seconds=options["rotation_seconds"])
    games.seat_checks.append(webhooks.require_clock)
    if options["scan_seconds"] <= 0:
        return webhooks, None
    return webhooks, Delivery(webhooks, Outbox(webhooks, options["subscription_retry_seconds"]), options["scan_seconds"])


class Delivery:
    """The process's calls of webhook bots and its subscriptions' deliveries (an asyncio task)."""

    def __init__(self, webhooks: Webhooks, outbox: Outbox | None = None, scan_seconds: float = SCAN_SECONDS,
                 threads: int = THREADS) -> None:
        self.webhooks = webhooks
        self.outbox = outbox
        self.scan_seconds = scan_seconds
        self.threads = threads
        self._running: dict[str, asyncio.Task[None]] = {}
        self._again: set[str] = set()
        self._ahead: dict[str, list[Call]] = {}  # game -> the calls its last move claimed (made next, without claims)
        self._known: set[str] = set()  # games with a webhook bot's seat, as last scanned
        self._task: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None
        self.client: outbound.Client | None = None  # (made on the loop, by start)

    async def in_thread(self, work: Any, *args: Any) -> Any:
        assert self._executor is not None
        return await asyncio.get_running_loop().run_in_executor(self._executor, work, *args)

    def start(self) -> None:
        """Start delivering on the running event loop."""
        self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="cardhall-webhooks")
        self.client = outbound.client()
        loop = asyncio.get_running_loop()
        board = self.webhooks.games.store.announcements
        self._unwatch = board.watch(lambda game_id, _version: self._wanted(game_id) and loop.call_soon_threadsafe(
            self.wake, game_id))
        self._task = loop.create_task(self._run())

    async def stop(self) -> None:
        """Stop: calls under way are dropped (their claims run out; another process, or this one
        restarted, makes them again)."""
        self._unwatch()
        for task in [self._task, *self._running.values()]:
            if task is not None:
                task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*(task for task in [self._task, *self._running.values()] if task is not None),
                                 return_exceptions=True)
        if self.client is not None:
            await self.client.close()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    async def _run(self) -> None:
        interruption = Interruption(log, "webhook delivery")
        while True:
            try:
                found = await self.in_thread(self.webhooks.scan)
                self._known = set(found)
                for game_id in found:
                    self.wake(game_id)
                if self.outbox is not None:
                    await self.outbox.step(self)
                interruption.worked()
            except OUTAGES as error:  # (a database outage: its first round said, in a line; the next round tries again)
                interruption.failed(error)
            except Exception:  # (a bug: the next round tries again)
                log.exception("webhook delivery round failed")
            await asyncio.sleep(self.scan_seconds)

    def _wanted(self, game_id: str) -> bool:
        """Whether a change of ``game_id`` may concern a webhook bot (decided in the announcing thread too: a
        server without webhook bots does not wake its event loop for every append)."""
        return game_id in self._known or bool(self.webhooks.bot_accounts)

    def wake(self, game_id: str) -> None:
        """Game ``game_id`` changed: see what it waits for from webhook bots (once at a time per game)."""
        if not self._wanted(game_id):
            return
        if game_id in self._running:
            self._again.add(game_id)
            return
        self._running[game_id] = asyncio.get_running_loop().create_task(self._serve(game_id))

    async def _serve(self, game_id: str) -> None:
        try:
            while True:
                calls = self._ahead.pop(game_id, [])
                if not calls:  # (else the game's last move claimed its next calls: they are made at once)
                    self._again.discard(game_id)
                    calls = await self.in_thread(self.webhooks.claims, game_id)
                if calls:
                    self._known.add(game_id)
                for call in calls:
                    if call.kind == "start":
                        await self.call(call)
                await asyncio.gather(*(self.call(call) for call in calls if call.kind != "start"))
                if game_id not in self._again and game_id not in self._ahead:
                    return
        except Exception:
            log.exception("game %s: webhook calls failed", game_id)
        finally:
            self._running.pop(game_id, None)
            self._ahead.pop(game_id, None)  # (claimed but not made: their leases run out and they are made then)

    async def call(self, call: Call) -> str:
        """Make ``call`` (a retry at most, within the deadline) and settle its answer; the outcome."""
        outcome, move, latency = "failed", None, None
        started = time.monotonic()
        for attempt in (1, 2):
            timeout = call.timeout if attempt == 1 else self._left(call, time.monotonic() - started)
            if attempt == 2 and timeout < MIN_RETRY_SECONDS:
                break
            began = time.monotonic()
            try:
                answer = await outbound.post(self.client, f"{call.url}/{call.kind}", call.body,  # type: ignore[arg-type]
                                             call.headers(dt.datetime.now(dt.UTC)), timeout,
                                             self.webhooks.resolver, self.webhooks.allow_private)
            except outbound.Refused as refusal:
                log.warning("webhook of %s refused: %s", call.account, refusal)
                break
            except outbound.CallTimeout:
                outcome, latency = "late", int(timeout * 1000)
                break
            except outbound.CallFailed:
                outcome, latency = "failed", int((time.monotonic() - began) * 1000)
                continue
            latency = int((time.monotonic() - began) * 1000)
            if answer.status >= 500:
                outcome = "failed"
                continue
            outcome, move = _read_answer(call, answer)
            break
        outcome, ahead = await self.in_thread(self.webhooks.settle, call, outcome, move, latency)
        if ahead:
            self._ahead.setdefault(call.key[0], []).extend(ahead)
        return outcome

    @staticmethod
    def _left(call: Call, spent: float) -> float:
        """How long a retry may take: what is left of the call's timeout (so that the call ends before
        its claim's lease does, and no other process calls again meanwhile) and of the turn."""
        if call.deadline is None:
            return 0.0
        return min(call.timeout - spent, (call.deadline - dt.datetime.now(dt.UTC)).total_seconds() - DEADLINE_MARGIN)


def _read_answer(call: Call, answer: outbound.Answer) -> tuple[str, Any]:
    """A call's outcome from its answer: a /move's ``{"move": {...}}`` (else ``invalid``)."""
    if call.kind != "move":
        return ("answered" if 200 <= answer.status < 300 else "failed"), None
    if not 200 <= answer.status < 300 or answer.cut:
        return "invalid", None
    try:
        move = json.loads(answer.body)["move"]
    except (ValueError, KeyError, TypeError, RecursionError):  # (RecursionError: JSON nested a thousand deep, which
        # escaped the call: its outcome never recorded, it was claimed and made again until its turn timed out)
        return "invalid", None
    return ("answered", move) if isinstance(move, dict) else ("invalid", None)

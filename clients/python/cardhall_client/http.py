"""``CardhallClient``: every endpoint of the Cardhall HTTP API, over httpx.

Errors come back as the exceptions of :mod:`cardhall_client.errors`. Reads are retried
on connection errors and 5xx answers; a move is retried too, safely, because
every move carries an ``Idempotency-Key`` and a retry sends the same key.
"""

from __future__ import annotations

import functools
import json
import logging
import secrets
import ssl
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any, Self

import httpx

from cardhall_client import sse
from cardhall_client.errors import CardhallError, ServerError, error_from
from cardhall_client.types import (
    Audit,
    Event,
    EventPage,
    GamePage,
    GameSummary,
    GameType,
    Health,
    JoinResult,
    MoveResult,
    View,
)

LONG_POLL = 25.0  # seconds per long-poll: under the server's 30 s cap
#: Seconds between two warnings that a client is rate limited: one says it, a flood would bury the rest.
RATE_LIMIT_WARNING_EVERY = 30.0
log = logging.getLogger("cardhall.client")


@functools.cache
def _tls() -> ssl.SSLContext:
    """One TLS context (the system's trusted certificates) for every client of the process: httpx would
    load them all into a new one for each client, tens of milliseconds of CPU (an arena makes many)."""
    return httpx.create_ssl_context()


class CardhallClient:
    """A client of one Cardhall server; ``token`` (from :meth:`join`) acts for one seat of one game."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 10.0, *,
                 retries: int = 4, backoff: float = 0.25, http: httpx.Client | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self._http = http or httpx.Client(base_url=self.base_url, timeout=timeout, verify=_tls())
        self._warned_at = -RATE_LIMIT_WARNING_EVERY

    def seated(self, token: str | None) -> CardhallClient:
        """A client for another seat's token, sharing this one's connections."""
        return CardhallClient(self.base_url, token, self.timeout, retries=self.retries, backoff=self.backoff,
                              http=self._http)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the endpoints --------------------------------------------------------
    def healthz(self) -> Health:
        """Liveness and database reachability."""
        return self._call("GET", "/healthz")

    def game_types(self) -> list[GameType]:
        """The games offered, their player ranges, options and move types."""
        return self._call("GET", "/v1/game-types")["game_types"]

    def create_game(self, game: str, players: int, options: Mapping[str, Any] | None = None) -> GameSummary:
        """Create a game; its summary (``id`` included)."""
        body = {"game": game, "players": players, "options": dict(options or {})}
        return self._call("POST", "/v1/games", json=body, safe=False)

    def list_games(self, status: str | None = None, game: str | None = None, limit: int = 50,
                   cursor: str | None = None) -> GamePage:
        """One page of games, newest first; pass ``next_cursor`` back as ``cursor`` for the next."""
        params = {"status": status, "game": game, "limit": limit, "cursor": cursor}
        return self._call("GET", "/v1/games", params=params)

    def iter_games(self, status: str | None = None, game: str | None = None, page_size: int = 100
                   ) -> Iterator[GameSummary]:
        """Every game matching the filters, following the cursor page after page."""
        cursor = None
        while True:
            page = self.list_games(status, game, page_size, cursor)
            yield from page["games"]
            cursor = page["next_cursor"]
            if not cursor:
                return

    def game(self, game_id: str) -> GameSummary:
        """The game summary: seats, status, version, result."""
        return self._call("GET", f"/v1/games/{game_id}")

    def join(self, game_id: str, name: str, entropy: str | None = None) -> JoinResult:
        """Take the next free seat; the answer's ``token`` is shown once (see :meth:`seated`).

        The seat adds ``entropy`` (64 hex) to the game's shuffles: by default 32 fresh bytes from
        the system's cryptographic source, so no one else alone chooses the deals (API "Fairness")."""
        body = {"name": name, "entropy": entropy or secrets.token_hex(32)}
        return self._call("POST", f"/v1/games/{game_id}/seats", json=body, safe=False)

    def seat_bot(self, game_id: str, kind: str = "random") -> JoinResult:
        """Seat a house bot (``random`` or ``greedy``) in the next free seat."""
        return self._call("POST", f"/v1/games/{game_id}/seats", json={"bot": kind}, safe=False)

    def state(self, game_id: str, at: int | None = None) -> View:
        """This client's view (a spectator's without a token), now or as it stood after event ``at``."""
        return self._call("GET", f"/v1/games/{game_id}/state", params={"at": at})

    def move(self, game_id: str, move: Mapping[str, Any], expected_version: int | None = None, *,
             if_match: int | None = None, idempotency_key: str | None = None) -> MoveResult:
        """Make a move; retried with the same ``Idempotency-Key`` on connection errors and 5xx."""
        body = dict(move)
        if expected_version is not None:
            body["expected_version"] = expected_version
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        if if_match is not None:
            headers["If-Match"] = f'"{if_match}"'
        return self._call("POST", f"/v1/games/{game_id}/moves", json=body, headers=headers)

    def resign(self, game_id: str) -> MoveResult:
        """Leave a game under way: a house bot plays this client's seat on; its view after, and the events."""
        return self._call("POST", f"/v1/games/{game_id}/resign", safe=False)

    def abort(self, game_id: str) -> MoveResult:
        """End a game still waiting for players (any seated player may): it becomes ``aborted``."""
        return self._call("POST", f"/v1/games/{game_id}/abort", safe=False)

    def events(self, game_id: str, after: int = 0, limit: int = 100, wait: float = 0) -> EventPage:
        """The log as this client may see it; ``wait`` (≤ 30 s) holds the request until an event after ``after``."""
        params = {"after": after, "limit": limit, "wait": wait or None}
        return self._call("GET", f"/v1/games/{game_id}/events", params=params, timeout=self.timeout + wait)

    def audit(self, game_id: str) -> Audit:
        """Every shuffle's commitment and, once the game is over, its salt, order and check (``verified``)."""
        return self._call("GET", f"/v1/games/{game_id}/audit")

    def stream_events(self, game_id: str, after: int = 0, *, reconnect: bool = True) -> Iterator[Event]:
        """The events as Server-Sent Events, resuming with ``Last-Event-ID`` when the stream drops.

        Ends when the server closes the stream of a finished game (or any closed stream if not ``reconnect``).
        """
        last = after
        while True:
            try:
                for event in self._stream_once(game_id, last):
                    last = event["version"]
                    yield event
            except (httpx.TransportError, ServerError):
                if not reconnect:
                    raise
                time.sleep(self.backoff)
                continue
            if not reconnect or self._caught_up(game_id, last):
                return

    def wait_for_turn(self, game_id: str, *, sse: bool = False, deadline: float | None = None,
                      view: View | None = None) -> View:
        """Block until the game waits for this client's seat, or is over; the view then. ``view``: the seat's
        view as this client last saw it (a move's answer holds it), read again only once something happened."""
        view = self.state(game_id) if view is None else view
        stream = self.stream_events(game_id, view["version"]) if sse else None
        try:
            while not _my_turn_or_over(view):
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"game {game_id} did not reach this seat's turn in time")
                if stream is not None:
                    next(stream, None)
                else:
                    self.events(game_id, after=view["version"], limit=1, wait=LONG_POLL)
                view = self.state(game_id)
        finally:
            if stream is not None:
                stream.close()
        return view

    # -- accounts and challenges (this client's token an account's API key) ----------------
    def create_account(self, name: str, kind: str = "bot", description: str = "") -> dict[str, Any]:
        """A new account; the answer's ``key`` (its first API key) is shown once."""
        return self._call("POST", "/v1/accounts", json={"name": name, "kind": kind, "description": description},
                          safe=False)

    def account(self, name: str | None = None) -> dict[str, Any]:
        """An account's page data (kind, games played and under way); without a name, this key's account."""
        return self._call("GET", f"/v1/accounts/{name}" if name else "/v1/account")

    def keys(self) -> list[dict[str, Any]]:
        """This account's keys, by prefix."""
        return self._call("GET", "/v1/account/keys")["keys"]

    def add_key(self, scopes: list[str] | None = None) -> dict[str, Any]:
        """A new key for this account (``key``, shown once), with at most this key's scopes."""
        return self._call("POST", "/v1/account/keys", json={"scopes": scopes or ["play", "create", "read"]},
                          safe=False)

    def revoke_key(self, prefix: str) -> None:
        """Revoke one of this account's keys (the 12 characters after ``chk_``)."""
        self._call("DELETE", f"/v1/account/keys/{prefix}", safe=False)

    def take_seat(self, game_id: str) -> JoinResult:
        """Take the next free seat for this key's account: the key then moves for it."""
        return self._call("POST", f"/v1/games/{game_id}/seats", json={}, safe=False)

    def account_events(self, after: int = 0, limit: int = 100, wait: float = 0) -> dict[str, Any]:
        """This account's events after id ``after``; ``wait`` (≤ 30 s) holds the request until there is one."""
        params = {"after": after, "limit": limit, "wait": wait or None}
        return self._call("GET", "/v1/account/events", params=params, timeout=self.timeout + wait)

    def follow_account(self, after: int = 0, *, stop: Any = None) -> Iterator[dict[str, Any]]:
        """This account's events from after ``after`` on, for ever (until ``stop()``), each once and in
        order: long-polls, resumed after the last id seen, with back-off when the server is away."""
        failures = 0
        while stop is None or not stop():
            try:
                page = self.account_events(after, wait=LONG_POLL)
            except ServerError:
                failures += 1
                time.sleep(min(30.0, self.backoff * 2**failures))
                continue
            failures = 0
            for event in page["events"]:
                after = event["id"]
                yield event

    def stream_account(self, after: int = 0, *, stop: Any = None) -> Iterator[dict[str, Any]]:
        """As :meth:`follow_account`, over Server-Sent Events (``GET /v1/account/stream``), reconnecting with
        ``Last-Event-ID`` (after a back-off when the server is away) whenever the stream ends."""
        failures = 0
        while stop is None or not stop():
            headers = {**self._auth(), "Accept": "text/event-stream", "Last-Event-ID": str(after)}
            try:
                with self._http.stream("GET", "/v1/account/stream", headers=headers,
                                       timeout=httpx.Timeout(self.timeout, read=60.0)) as response:
                    if response.status_code >= 400:
                        response.read()
                        raise _error(response)
                    failures = 0
                    for message in sse.parse(response.iter_lines()):
                        event = json.loads(message.data)
                        after = event["id"]
                        yield event
                        if stop is not None and stop():
                            return
            except (httpx.TransportError, ServerError):
                failures += 1
                time.sleep(min(30.0, self.backoff * 2**failures))

    def challenge(self, game: str, players: int = 2, to: list[str] | None = None, *,
                  options: Mapping[str, Any] | None = None, rated: bool = False, expires_in: int = 60
                  ) -> dict[str, Any]:
        """Offer a game to the named accounts (one for each other seat), or to anyone (``to`` None)."""
        body = {"game": game, "players": players, "options": dict(options or {}), "to": to, "rated": rated,
                "expires_in": expires_in}
        return self._call("POST", "/v1/challenges", json=body, safe=False)

    def challenges(self) -> list[dict[str, Any]]:
        """The open challenges any account may accept (naming nobody), newest first; with an account's key, those
        naming the account first."""
        return self._call("GET", "/v1/challenges")["challenges"]

    def accept(self, challenge_id: str, entropy: str | None = None) -> dict[str, Any]:
        """Take a seat of a challenge, adding ``entropy`` (by default 32 fresh bytes, as :meth:`join`); once every
        seat is taken its ``game_id`` is the game, started."""
        return self._call("POST", f"/v1/challenges/{challenge_id}/accept",
                          json={"entropy": entropy or secrets.token_hex(32)}, safe=False)

    def decline(self, challenge_id: str, reason: str | None = None) -> dict[str, Any]:
        return self._call("POST", f"/v1/challenges/{challenge_id}/decline", json={"reason": reason}, safe=False)

    def cancel(self, challenge_id: str) -> dict[str, Any]:
        return self._call("POST", f"/v1/challenges/{challenge_id}/cancel", safe=False)

    def join_pool(self, game: str, players: list[int], *, rated: bool = True, concurrency: int = 1,
                  mixed: bool = False) -> dict[str, Any]:
        """Wait in ``game``'s pool for games of any of ``players`` seats (joining again replaces the entry):
        the server seats this account with others waiting and says ``gameStart`` on its events."""
        body = {"players": players, "rated": rated, "concurrency": concurrency, "mixed": mixed}
        return self._call("POST", f"/v1/pools/{game}/join", json=body, safe=False)

    def pool_entry(self, game: str) -> dict[str, Any]:
        """This account's entry in ``game``'s pool, as :meth:`join_pool` answered it; NotFound when it is not waiting
        there (never joined, left, or its entry gone)."""
        return self._call("GET", f"/v1/pools/{game}/join")

    def leave_pool(self, game: str) -> None:
        """Leave ``game``'s pool: no game is made for this account from it once this returns."""
        self._call("DELETE", f"/v1/pools/{game}/join", safe=False)

    def challenge_info(self, challenge_id: str) -> dict[str, Any]:
        """One challenge as it stands: ``status`` (``open``, ``started``, ``declined``…), ``accepted``, ``game_id``."""
        return self._call("GET", f"/v1/challenges/{challenge_id}")

    # -- ratings, tournaments and records ----------------------------------------------------
    def leaderboard(self, game: str, limit: int = 50, cursor: str | None = None) -> dict[str, Any]:
        """One page of ``game``'s leaderboard: ``entries`` best first, ``next`` (the next page's cursor, or None)
        and ``min_games``, the rated games an account needs to be listed."""
        return self._call("GET", f"/v1/leaderboards/{game}", params={"limit": limit, "cursor": cursor})

    def ratings(self, name: str) -> list[dict[str, Any]]:
        """The account's rating in each game it played rated, with its last changes (``history``)."""
        return self._call("GET", f"/v1/accounts/{name}/ratings")["ratings"]

    def create_tournament(self, game: str, accounts: list[str], *, format: str = "round_robin",
                          players_per_table: int = 2, rounds: int = 1, duplicate: bool = True,
                          move_seconds: int = 10, replay_of: str | None = None) -> dict[str, Any]:
        """Make a tournament of the named bot accounts (``round_robin`` or ``swiss``); it starts at once."""
        body = {"game": game, "accounts": accounts, "format": format, "players_per_table": players_per_table,
                "rounds": rounds, "duplicate": duplicate, "move_seconds": move_seconds, "replay_of": replay_of}
        return self._call("POST", "/v1/tournaments", json={key: value for key, value in body.items()
                                                             if value is not None}, safe=False)

    def tournament(self, tournament_id: str) -> dict[str, Any]:
        """A tournament as it stands: ``status``, ``standings``, ``crosstable``, its ``games`` and ``byes``."""
        return self._call("GET", f"/v1/tournaments/{tournament_id}")

    def tournaments(self, status: str | None = None, account: str | None = None, limit: int = 20,
                    cursor: str | None = None) -> dict[str, Any]:
        """One page of tournaments, newest first (``status``: ``running`` or ``finished``; ``account``: those it
        is in): ``tournaments`` and ``next`` (the next page's cursor, or None). A page asked for a status may be
        short, even empty, and still have a ``next``."""
        params = {"status": status, "account": account, "limit": limit, "cursor": cursor}
        return self._call("GET", "/v1/tournaments", params=params)

    def record(self, game_id: str) -> dict[str, Any]:
        """The game's ``cardhall-record/1`` record as this client may see it (a finished game's: everything)."""
        return self._call("GET", f"/v1/games/{game_id}/record")

    def iter_records(self, game: str | None = None, since: str | None = None, account: str | None = None,
                     page_size: int = 100) -> Iterator[dict[str, Any]]:
        """Every finished game's full record matching the filters, newest first, following the pages."""
        cursor = None
        while True:
            params = {"game": game, "since": since, "account": account, "limit": page_size, "cursor": cursor}
            response = self._call("GET", "/v1/records", params=params, raw=True)
            yield from (json.loads(line) for line in response.text.splitlines() if line.strip())
            cursor = response.headers.get("Next-Cursor")
            if not cursor:
                return

    def replay_record(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """Check a record as ``cardhall record validate`` does and, when it holds, the spectator's view after
        every event; the server stores nothing."""
        return self._call("POST", "/v1/records/replay", json=dict(record))

    # -- webhook bots and subscriptions (this client's token a bot account's key) -------------
    def set_webhook(self, url: str, timeout_ms: int = 1000, concurrency: int = 8) -> dict[str, Any]:
        """Have the server call ``url`` for this bot's turns (``POST {url}/move``); the answer's ``secret``, which
        signs every call, is shown once."""
        body = {"url": url, "timeout_ms": timeout_ms, "concurrency": concurrency}
        return self._call("PUT", "/v1/account/webhook", json=body, safe=False)

    def webhook(self) -> dict[str, Any]:
        """This bot's webhook (never its secret) and its circuit: ``online``, ``failures_in_a_row``."""
        return self._call("GET", "/v1/account/webhook")

    def delete_webhook(self) -> None:
        """Stop the server calling this bot."""
        self._call("DELETE", "/v1/account/webhook", safe=False)

    def rotate_webhook_secret(self) -> dict[str, Any]:
        """A new signing secret (shown once); the one before still signs until ``previous_expires_at``."""
        return self._call("POST", "/v1/account/webhook/rotate", safe=False)

    def tournament_entry(self) -> dict[str, Any]:
        """Who may enter this account in a tournament another account makes: ``entered_by``."""
        return self._call("GET", "/v1/account/tournaments")

    def set_tournament_entry(self, entered_by: str | list[str]) -> dict[str, Any]:
        """Let ``"anyone"``, ``"nobody"`` or the accounts named enter this bot in tournaments they make."""
        return self._call("PUT", "/v1/account/tournaments", json={"entered_by": entered_by})

    def webhook_calls(self, game_id: str) -> list[dict[str, Any]]:
        """The server's calls to webhook bots in a game: ``version``, ``seat``, ``kind``, ``outcome``, ``latency_ms``."""
        return self._call("GET", f"/v1/games/{game_id}/webhook-calls")["calls"]

    def subscribe(self, url: str, events: list[str]) -> dict[str, Any]:
        """Have this account's ``events`` (``game.started``, ``challenge.created``…) POSTed to ``url``; the
        answer's ``secret`` is shown once."""
        return self._call("PUT", "/v1/account/subscriptions", json={"url": url, "events": events}, safe=False)

    def subscription(self) -> dict[str, Any]:
        """This account's subscription (never its secret)."""
        return self._call("GET", "/v1/account/subscriptions")

    def unsubscribe(self) -> None:
        """End this account's subscription."""
        self._call("DELETE", "/v1/account/subscriptions", safe=False)

    def rotate_subscription_secret(self) -> dict[str, Any]:
        """A new signing secret for the subscription (shown once), as :meth:`rotate_webhook_secret`."""
        return self._call("POST", "/v1/account/subscriptions/rotate", safe=False)

    # -- plumbing -------------------------------------------------------------
    def _warn_rate_limited(self, method: str, path: str, wait: float) -> None:
        """Say (at most every half minute) that the server refused a request for the rate limit: a bot slowed
        down this way misses its turns in clocked games, and the runner would not say why."""
        now = time.monotonic()
        if now - self._warned_at >= RATE_LIMIT_WARNING_EVERY:
            self._warned_at = now
            log.warning("rate limited by the server: %s %s waits %.0f s, as its Retry-After asks. Every request "
                        "made with this key or token counts, in all its games at once: play fewer games at once "
                        "(--concurrency), or ask the operator for a higher limit (cardhall serve --rate-limit)",
                        method, path, wait)

    def _caught_up(self, game_id: str, last: int) -> bool:
        summary = self.game(game_id)
        return summary["status"] in OVER and summary["version"] <= last

    def _stream_once(self, game_id: str, after: int) -> Iterator[Event]:
        headers = {**self._auth(), "Accept": "text/event-stream", "Last-Event-ID": str(after)}
        timeout = httpx.Timeout(self.timeout, read=60.0)  # the server sends a heartbeat every 15 s
        with self._http.stream("GET", f"/v1/games/{game_id}/events/stream", headers=headers,
                               timeout=timeout) as response:
            if response.status_code >= 400:
                response.read()
                raise _error(response)
            for message in sse.parse(response.iter_lines()):
                yield json.loads(message.data)

    def _auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def _call(self, method: str, path: str, *, json: Any = None, params: Mapping[str, Any] | None = None,
              headers: Mapping[str, str] | None = None, timeout: float | None = None, safe: bool = True,
              raw: bool = False) -> Any:
        """Send a request; retry connection failures (and, when ``safe`` to repeat, timeouts and 5xx), and
        after the wait a 429 (always: it did nothing) or a 503 (when ``safe``) names in ``Retry-After``.
        The answer's JSON, or (``raw``) the response itself once it is no error."""
        query = {key: value for key, value in (params or {}).items() if value is not None}
        all_headers = {**self._auth(), **(headers or {})}
        for attempt in range(self.retries + 1):
            last_try = attempt == self.retries
            try:
                response = self._http.request(method, path, json=json, params=query, headers=all_headers,
                                              timeout=timeout or self.timeout)
            except httpx.TransportError as failure:
                if last_try or not (safe or isinstance(failure, httpx.ConnectError)):
                    raise ServerError(0, "unreachable", f"{method} {path}: {failure!r}") from failure
            else:
                told = _retry_after(response)
                if told is not None and not last_try and (response.status_code == 429 or safe):
                    if response.status_code == 429:
                        self._warn_rate_limited(method, path, told)
                    time.sleep(told)  # rate limited (nothing was done) or the server is busy: as told
                    continue
                if response.status_code < 500 or not safe or last_try:
                    return _answer(response, raw)
            time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover


#: The statuses of a game that never changes again: played to its end, or aborted before it began.
OVER = ("finished", "aborted")


def _my_turn_or_over(view: View) -> bool:
    """Whether the game waits for this seat or has ended (a waiting game is waited out: seats fill up)."""
    return view["status"] in OVER or (view["status"] == "active" and view["seat"] in view["to_act"])


#: The longest a client waits when a 429 or 503 says ``Retry-After``.
MAX_RETRY_AFTER = 60.0


def _retry_after(response: httpx.Response) -> float | None:
    """The seconds a 429 or 503 asks to wait, if it says (as a number)."""
    value = response.headers.get("Retry-After", "")
    if response.status_code not in (429, 503) or not value.isascii() or not value.isdigit():
        return None
    return min(float(value), MAX_RETRY_AFTER)


def _answer(response: httpx.Response, raw: bool = False) -> Any:
    if response.status_code >= 400:
        raise _error(response)
    if raw:
        return response
    return None if response.status_code == 204 else response.json()


def _error(response: httpx.Response) -> CardhallError:
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_from(response.status_code, body, response.text[:200])

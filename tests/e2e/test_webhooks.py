"""Webhook bots and subscriptions through a real server: its seats played by calling local bots on
127.0.0.1 (allowed by the operator's --webhooks-allow-private), every call signed."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from cardhall_client import CardhallClient, NotFound
from service import outbound, signing
from tests import waiting
from tests.e2e.server import ServerProcess, start_server
from tests.webhook_bots import Bots, verify

OPTIONS = ("--webhooks-allow-private", "--webhook-failures-to-open", "2", "--webhook-retry-seconds", "1",
           "--webhook-scan-seconds", "0.2", "--subscription-retry-seconds", "0.3")
CLOCKED = {"short": True, "move_seconds": 1}
#: A short game of Scat between webhook bots: tens of calls where Craits makes hundreds (~45 ms each).
SCAT = {"lives": 1, "move_seconds": 1}


@pytest.fixture(scope="module")
def bots() -> Iterator[Bots]:
    found = Bots()
    yield found
    found.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    running = start_server(tmp_path_factory.mktemp("webhooks"), options=OPTIONS)
    yield running
    running.stop()


def until(check: Callable[[], Any], patience: float = 120.0) -> Any:
    """``check()``'s first true answer (:func:`tests.waiting.until`), given the time a game between webhook bots
    on clocks may take to play out."""
    return waiting.until(check, seconds=patience, every=0.1)


class Api:
    def __init__(self, base: str) -> None:
        self.client = httpx.Client(base_url=base, timeout=10)

    def account(self, name: str, kind: str = "bot") -> str:
        response = self.client.post("/v1/accounts", json={"name": name, "kind": kind})
        assert response.status_code == 201, response.text
        return response.json()["key"]

    def call(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return self.client.request(method, path, headers=headers, **kwargs)

    def webhook_bot(self, bots: Bots, name: str, **body: Any) -> str:
        key = self.account(name)
        answer = self.call("PUT", "/v1/account/webhook", key, json={"url": bots.url(name), "timeout_ms": 500, **body})
        assert answer.status_code == 200, answer.text
        assert answer.json()["secret"].startswith("whsec_")
        bots.secrets[name] = [answer.json()["secret"]]
        return key

    def unhurried_game(self, bots: Bots, first: str, second: str) -> str:
        """A game of Scat between two new webhook bots with time to spare (a 10 s clock, 5 s calls), for a test about
        the calls, not the clock: on a loaded machine no turn of theirs times out and no call is late."""
        one, two = (self.webhook_bot(bots, name, timeout_ms=5000) for name in (first, second))
        return self.challenge(one, two, second, {"lives": 1, "move_seconds": 10}, game="scat")

    def challenge(self, first: str, second: str, second_name: str, options: dict[str, Any] = CLOCKED,
                  game: str = "craits") -> str:
        made = self.call("POST", "/v1/challenges", first, json={"game": game, "players": 2, "options": options,
                                                                 "to": [second_name]})
        assert made.status_code == 201, made.text
        accepted = self.call("POST", f"/v1/challenges/{made.json()['id']}/accept", second)
        assert accepted.status_code == 200, accepted.text
        return accepted.json()["game_id"]

    def finished(self, game_id: str) -> dict[str, Any] | None:
        summary = self.call("GET", f"/v1/games/{game_id}").json()
        return summary if summary["status"] == "finished" else None

    def events(self, game_id: str) -> list[dict[str, Any]]:
        return self.call("GET", f"/v1/games/{game_id}/events", params={"limit": 1000}).json()["events"]

    def account_events(self, key: str) -> list[str]:
        return [event["type"] for event in self.call("GET", "/v1/account/events", key).json()["events"]]


@pytest.fixture(scope="module")
def api(server: ServerProcess) -> Api:
    return Api(server.base_url)


def test_two_webhook_bots_play_a_game_to_its_end_each_turn_called_once_and_signed(api: Api, bots: Bots) -> None:
    game_id = api.unhurried_game(bots, "ann", "bo")
    until(lambda: api.finished(game_id))
    moves = [call for call in bots.calls() if call.kind == "move" and call.payload["game_id"] == game_id]
    assert moves and all(call.verified for call in bots.calls())
    keys = [(call.payload["version"], call.payload["seat"]) for call in moves]
    assert len(keys) == len(set(keys))  # (every turn called once)
    assert not [event for event in api.events(game_id) if event["type"] == "TurnTimedOut"]
    def with_the_end() -> dict[str, Any] | None:
        page = api.call("GET", f"/v1/games/{game_id}/webhook-calls").json()
        return page if any(call["kind"] == "end" for call in page["calls"]) else None

    def with_both_ends() -> dict[str, Any] | None:
        page = api.call("GET", f"/v1/games/{game_id}/webhook-calls").json()
        return page if [call["kind"] for call in page["calls"]].count("end") == 2 else None

    calls = until(with_both_ends)
    stages = [(("start", "move", "end").index(call["kind"]), call["version"]) for call in calls["calls"]]
    assert stages == sorted(stages) and stages[0][0] == 0  # (made in this order; the ends used to come first)
    played = [call for call in calls["calls"] if call["kind"] == "move"]
    assert {call["outcome"] for call in played} == {"played"} and all(call["latency_ms"] >= 0 for call in played)
    first = moves[0].payload
    assert set(first) >= {"game_id", "version", "seat", "view", "deadline", "time_left_ms", "last_latency_ms",
                          "last_late"} and first["view"]["legal_moves"]
    assert {call.kind for call in bots.calls("ann")} >= {"start", "move"}


@pytest.mark.parametrize("mode", ["slow", "nonsense", "down"])
def test_a_failing_bot_gets_the_clocks_default_move_goes_offline_and_comes_back_online(
        api: Api, bots: Bots, mode: str) -> None:
    good, bad = f"g{mode}", f"b{mode}"
    good_key, bad_key = api.webhook_bot(bots, good), api.webhook_bot(bots, bad)
    bots.modes[bad] = mode
    game_id = api.challenge(good_key, bad_key, bad, {"move_seconds": 1}, game="scat")  # (lives enough to go offline)
    # (the default move, recorded as the clock records it)
    until(lambda: "TurnTimedOut" in [event["type"] for event in api.events(game_id)])
    until(lambda: "webhookOffline" in api.account_events(bad_key))
    assert api.call("GET", f"/v1/accounts/{bad}").json()["webhook"]["online"] is False
    # Its owner gives up the game: a house bot plays the seat to the end at once, not one clock at a time.
    resigned = api.call("POST", f"/v1/games/{game_id}/resign", bad_key)
    assert resigned.status_code == 200 or api.finished(game_id), resigned.text
    until(lambda: api.finished(game_id))
    bots.modes[bad] = "good"
    time.sleep(1.0)  # (the back-off)
    again = api.challenge(good_key, bad_key, bad, SCAT, game="scat")
    until(lambda: api.finished(again))
    heard = api.account_events(bad_key)
    assert "webhookOnline" in heard[heard.index("webhookOffline"):]
    assert api.call("GET", f"/v1/accounts/{bad}").json()["webhook"]["online"] is True
    outcomes = {call["outcome"] for call in api.call("GET", f"/v1/games/{game_id}/webhook-calls").json()["calls"]
                if call["kind"] == "move"}
    assert outcomes & {"late", "invalid", "failed"}


def test_a_webhook_bot_sits_only_in_a_clocked_game(api: Api, bots: Bots) -> None:
    clocked, other = api.webhook_bot(bots, "clocked"), api.account("unclocked")
    made = api.call("POST", "/v1/challenges", other, json={"game": "craits", "players": 2, "options": {"short": True},
                                                           "to": ["clocked"]})
    answer = api.call("POST", f"/v1/challenges/{made.json()['id']}/accept", clocked)
    assert answer.status_code == 422 and answer.json()["code"] == "clock_required"


def test_a_subscription_is_delivered_signed_and_retried_with_the_same_webhook_id(api: Api, bots: Bots) -> None:
    person = api.account("integrator", kind="person")
    bots.modes["integrator"], bots.fail_first = "receiver", 1
    answer = api.call("PUT", "/v1/account/subscriptions", person, json={
        "url": bots.url("integrator"), "events": ["game.started", "game.finished", "challenge.created"]})
    assert answer.status_code == 200, answer.text
    bots.secrets["integrator"] = [answer.json()["secret"]]
    rival = api.webhook_bot(bots, "rival")
    made = api.call("POST", "/v1/challenges", rival, json={"game": "craits", "players": 2, "options": CLOCKED,
                                                           "to": ["integrator"]})
    assert made.status_code == 201
    received = until(lambda: len(bots.calls("integrator")) >= 2 and bots.calls("integrator"))
    first, second = received[0], received[1]
    assert first.verified and second.verified
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert second.payload["type"] == "challenge.created" and second.payload["data"]["id"] == made.json()["id"]


def test_a_subscription_hears_each_acceptance_of_the_accounts_challenge(api: Api, bots: Bots) -> None:
    host = api.account("host", kind="person")
    bots.modes["host"] = "receiver"
    answer = api.call("PUT", "/v1/account/subscriptions", host, json={"url": bots.url("host"),
                                                                       "events": ["challenge.accepted"]})
    assert answer.status_code == 200, answer.text
    bots.secrets["host"] = [answer.json()["secret"]]
    guests = [api.account(f"guest{number}", kind="person") for number in range(2)]
    made = api.call("POST", "/v1/challenges", host, json={"game": "craits", "players": 3, "options": {"short": True},
                                                          "to": ["guest0", "guest1"]}).json()
    taken = [api.call("POST", f"/v1/challenges/{made['id']}/accept", guest).json() for guest in guests]

    def delivered() -> list[Any]:  # (one each: a delivery the receiver failed is tried again with its webhook-id)
        return list({call.headers["webhook-id"]: call for call in bots.calls("host")}.values())

    until(lambda: len(delivered()) >= 2)
    time.sleep(1)  # (nothing else comes: the game's start is not subscribed)
    received = delivered()
    assert all(call.verified for call in bots.calls("host"))
    assert sorted((call.payload["type"], call.payload["data"]["status"], tuple(call.payload["data"]["accepted"]))
                  for call in received) == [
        ("challenge.accepted", "open", ("host", "guest0")), ("challenge.accepted", "started", ("host", "guest0", "guest1"))]
    assert {call.payload["data"]["id"] for call in received} == {made["id"]}
    assert [call.payload["data"].get("game_id") for call in received if call.payload["data"]["status"] == "started"] \
        == [taken[1]["game_id"]]


def test_a_rotated_secret_signs_beside_the_old_one_so_what_the_server_sends_verifies_with_either(
        api: Api, bots: Bots) -> None:
    key = api.webhook_bot(bots, "rotor")
    old = bots.secrets["rotor"][0]
    rotated = api.call("POST", "/v1/account/webhook/rotate", key).json()
    new = rotated["secret"]
    assert new != old and rotated["previous_expires_at"] > api.call("GET", "/v1/account/webhook", key).json()["created_at"]
    bots.secrets["rotor"] = [new]  # (the bot knows only the new one: each call is verified with it as it comes)
    game_id = api.challenge(key, api.webhook_bot(bots, "rotee"), "rotee", SCAT, game="scat")
    until(lambda: api.finished(game_id))
    sent = bots.calls("rotor")
    assert sent and all(call.verified for call in sent)
    for call in sent:  # (the headers as the server sent them, verified again by the example's verifier)
        assert len(call.headers["webhook-signature"].split()) == 2
        assert verify([old], call.headers, call.body) and verify([new], call.headers, call.body)
        assert not verify([signing.new_secret()], call.headers, call.body)


@pytest.mark.parametrize("host", ["a..b", ".example.com", "a" * 64 + ".example", "\u00ad.example", "\u200b"],
                         ids=["empty-label", "leading-dot", "64-long-label", "soft-hyphen", "zero-width"])
def test_a_url_whose_host_no_resolver_can_encode_is_refused_and_sets_nothing(sqlite_url: str, host: str) -> None:
    """The system resolver's IDNA encoding raises UnicodeError, not OSError, for an empty label or one over
    63 characters: such a URL was a 500 (a webhook's and a subscription's)."""
    import persistence
    from api import create_app
    from service.games import GameService

    client = create_app(GameService(persistence.open_store(sqlite_url))).test_client()
    key = client.post("/v1/accounts", json={"name": "bot", "kind": "bot"}).json["key"]
    auth = {"Authorization": f"Bearer {key}"}
    for path, body in (("/v1/account/webhook", {}), ("/v1/account/subscriptions", {"events": ["game.started"]})):
        answer = client.put(path, json={"url": f"https://{host}/hook", **body}, headers=auth)
        assert answer.status_code == 422 and answer.json["code"] == "url_refused", (path, answer.json)
        assert "is no host name" in answer.json["detail"]
        assert client.get(path, headers=auth).status_code == 404


def test_a_url_resolving_to_a_private_address_is_refused_before_any_connection_when_not_allowed(
        sqlite_url: str) -> None:
    """Refused when set, and at the call: a name resolving to a loopback address where a listener counts the
    connections it is offered (none)."""
    import persistence
    from api import create_app
    from service.games import GameService
    from service.webhook_delivery import Delivery
    from service.webhooks import Call, Webhooks

    connections: list[object] = []

    async def private(host: str, port: int) -> list[str]:
        return ["10.0.0.7"]

    async def loopback(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    games = GameService(persistence.open_store(sqlite_url))
    app = create_app(games)
    app.extensions["cardhall_webhooks"].resolver = private
    client = app.test_client()
    key = client.post("/v1/accounts", json={"name": "inside", "kind": "bot"}).json["key"]
    answer = client.put("/v1/account/webhook", json={"url": "https://bot.internal.example/hook"},
                        headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 422 and answer.json["code"] == "url_refused" and "10.0.0.7" in answer.json["detail"]
    assert client.get("/v1/account/webhook", headers={"Authorization": f"Bearer {key}"}).status_code == 404

    webhooks = Webhooks(games, resolver=loopback)
    delivery = Delivery(webhooks)
    settled: list[str] = []
    webhooks.settle = lambda call, outcome, move, latency: settled.append(outcome) or (outcome, [])  # type: ignore[method-assign]

    async def run() -> None:
        from concurrent.futures import ThreadPoolExecutor

        listener = await asyncio.start_server(lambda _reader, writer: connections.append(writer), "127.0.0.1", 0)
        port = listener.sockets[0].getsockname()[1]
        delivery._executor = ThreadPoolExecutor(1)
        delivery.client = outbound.client()
        call = Call(("g", 1, 0, "move"), "inside", f"https://bot.internal.example:{port}/hook", b"{}", ("whsec_AAAA",),
                    1.0, None)
        await delivery.call(call)
        await delivery.client.close()
        await asyncio.sleep(0.1)  # (a connection, had one been opened, is accepted by now)
        listener.close()

    asyncio.run(run())
    assert settled == ["failed"] and connections == []  # (the guard refused it before any connection)


def test_a_bots_move_claims_the_next_turns_call_in_the_moves_own_transaction(sqlite_url: str, bots: Bots) -> None:
    """Claim-ahead: the delivery writes one transaction a turn its bots play (the move, its call's record and
    the next turn's claim), not two (the move, then the next call claimed on its own)."""
    import persistence
    from api import create_app
    from domain import table as tables
    from service.games import GameService
    from service.webhook_delivery import Delivery

    games = GameService(persistence.open_store(sqlite_url))
    app = create_app(games)
    webhooks = app.extensions["cardhall_webhooks"]
    webhooks.allow_private = True
    client = app.test_client()
    keys = [client.post("/v1/accounts", json={"name": name, "kind": "bot"}).json["key"] for name in ("ahead0", "ahead1")]
    for number, key in enumerate(keys):
        made = client.put("/v1/account/webhook", json={"url": bots.url(f"ahead{number}"), "timeout_ms": 2000},
                          headers={"Authorization": f"Bearer {key}"})
        assert made.status_code == 200
        bots.secrets[f"ahead{number}"] = [made.json["secret"]]
    made = client.post("/v1/challenges", json={"game": "scat", "players": 2, "to": ["ahead1"], "options": {
        "lives": 10, "move_seconds": 30}}, headers={"Authorization": f"Bearer {keys[0]}"}).json
    game_id = client.post(f"/v1/challenges/{made['id']}/accept", headers={"Authorization": f"Bearer {keys[1]}"}).json["game_id"]

    transactions: list[str] = []
    transaction = games.store.transaction

    @contextlib.contextmanager
    def counted() -> Iterator[Any]:
        with transaction() as tx:
            yield tx
        if threading.current_thread().name.startswith("cardhall-webhooks"):
            transactions.append(threading.current_thread().name)

    games.store.transaction = counted  # type: ignore[method-assign]

    async def run() -> None:
        delivery = Delivery(webhooks, scan_seconds=0.2)
        delivery.start()
        deadline = time.monotonic() + 120
        while len([call for call in webhooks.calls(game_id)["calls"] if call["kind"] == "end" and call["outcome"]]) < 2:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        await delivery.stop()

    asyncio.run(run())
    assert games.table(game_id).status == tables.FINISHED
    moves = [call for call in webhooks.calls(game_id)["calls"] if call["kind"] == "move"]
    played = len(moves)
    # (ten lives: never fewer than 24 decisions in 20,000 random games, so the bound below tells one transaction a
    # turn from two, which would be 2 * played > played + 9)
    assert played > 15 and all(call["outcome"] == "played" and call["calls"] == 1 for call in moves)
    # (besides: each bot's /start and /end claimed and recorded, the first turn's call claimed: 9)
    assert played < len(transactions) <= played + 9


def test_the_python_client_registers_a_webhook_seats_its_bot_and_reads_the_calls_it_was_made(
        server: ServerProcess, bots: Bots) -> None:
    with CardhallClient(server.base_url) as anonymous:
        key = anonymous.create_account("clienthook")["key"]
    with CardhallClient(server.base_url, token=key) as hook:
        secret = hook.set_webhook(bots.url("clienthook"), timeout_ms=5000)["secret"]
        bots.secrets["clienthook"] = [secret]
        game_id = hook.create_game("scat", 2, {"lives": 1, "move_seconds": 10})["id"]
        assert hook.take_seat(game_id)["seat"] == 0
        hook.seat_bot(game_id, "greedy")
        until(lambda: hook.game(game_id)["status"] == "finished")
        assert hook.webhook()["online"] is True and "secret" not in hook.webhook()
        played = {call["outcome"] for call in hook.webhook_calls(game_id) if call["kind"] == "move"}
        assert played == {"played"}
        assert hook.rotate_webhook_secret()["secret"] != secret
        hook.delete_webhook()
        with pytest.raises(NotFound):
            hook.webhook()
        subscribed = hook.subscribe(bots.url("clienthook"), ["game.finished"])
        assert subscribed["secret"].startswith("whsec_") and "secret" not in hook.subscription()
        assert hook.rotate_subscription_secret()["secret"] != subscribed["secret"]
        hook.unsubscribe()


def test_a_loopback_url_refused_says_the_operators_flag_that_allows_it_and_a_metadata_url_does_not(
        sqlite_url: str) -> None:
    import persistence
    from api import create_app
    from service.games import GameService

    client = create_app(GameService(persistence.open_store(sqlite_url))).test_client()
    key = client.post("/v1/accounts", json={"name": "local", "kind": "bot"}).json["key"]

    def refusal(url: str) -> str:
        answer = client.put("/v1/account/webhook", json={"url": url}, headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 422 and answer.json["code"] == "url_refused"
        return answer.json["detail"]

    assert "--webhooks-allow-private" in refusal("http://127.0.0.1:9000")
    assert "--webhooks-allow-private" in refusal("https://10.0.0.7/hook")
    assert "--webhooks-allow-private" not in refusal("http://169.254.169.254/")


@pytest.mark.parametrize("backend", [pytest.param("sqlite"), pytest.param("postgresql", marks=pytest.mark.postgres)])
@pytest.mark.parametrize("url", ["https://bot.example/\r\nX-Forged: 1", "https://bot.example/a b",
                                 "https://bot.example/\u202ekoob", "https://bot.example:0/hook"],
                         ids=["crlf", "space", "bidi", "port-0"])
def test_a_url_that_is_not_the_one_a_call_would_go_to_is_refused_and_sets_nothing(
        request: pytest.FixtureRequest, backend: str, url: str) -> None:
    """Tab, CR and LF were dropped from the URL called (urlsplit) and a space percent-encoded, port 0 kept:
    a webhook was registered at one URL and called at another, or at none."""
    import persistence
    from api import create_app
    from service.games import GameService
    from tests.e2e.conftest import _store_url

    async def public(host: str, port: int) -> list[str]:
        return ["8.8.8.8"]

    games = GameService(persistence.open_store(_store_url(backend, request)))
    app = create_app(games)
    app.extensions["cardhall_webhooks"].resolver = public
    client = app.test_client()
    auth = {"Authorization": f"Bearer {client.post('/v1/accounts', json={'name': 'bot', 'kind': 'bot'}).json['key']}"}
    for path, body in (("/v1/account/webhook", {}), ("/v1/account/subscriptions", {"events": ["game.started"]})):
        answer = client.put(path, json={"url": url, **body}, headers=auth)
        assert answer.status_code == 422 and answer.json["code"] == "url_refused", (path, answer.json)
        assert client.get(path, headers=auth).status_code == 404
        assert client.put(path, json={"url": "https://bot.example/a%20b", **body}, headers=auth).status_code == 200
        assert client.get(path, headers=auth).json["url"] == "https://bot.example/a%20b"
        client.delete(path, headers=auth)
    games.store.close()


@pytest.mark.parametrize("backend", [pytest.param("sqlite"), pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_rotating_a_secret_again_and_again_leaves_the_new_one_and_the_one_before_it_signing(
        request: pytest.FixtureRequest, backend: str) -> None:
    """Each rotation kept every secret still in its day of grace: 30 rotations, 31 secrets signing every call (a
    header of 31 signatures, 31 HMACs a call), as many as an account cared to rotate in a day."""
    import persistence
    from api import create_app
    from persistence.accounts import key_of
    from service.games import GameService
    from tests.e2e.conftest import _store_url

    async def public(host: str, port: int) -> list[str]:
        return ["8.8.8.8"]

    games = GameService(persistence.open_store(_store_url(backend, request)))
    app = create_app(games, CARDHALL_RATE_LIMIT="off")
    webhooks = app.extensions["cardhall_webhooks"]
    webhooks.resolver = public
    client = app.test_client()
    auth = {"Authorization": f"Bearer {client.post('/v1/accounts', json={'name': 'bot', 'kind': 'bot'}).json['key']}"}
    for path, purpose, body in (("/v1/account/webhook", "bot", {}),
                                ("/v1/account/subscriptions", "subscriptions", {"events": ["game.started"]})):
        secrets = [client.put(path, json={"url": "https://bot.example/hook", **body}, headers=auth).json["secret"]]
        secrets += [client.post(f"{path}/rotate", headers=auth).json["secret"] for _ in range(30)]
        assert webhooks.store.live_secrets(key_of("bot"), purpose, games.clock()) == secrets[:-3:-1]
    games.store.close()

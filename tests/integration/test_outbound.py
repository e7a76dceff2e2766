"""The outbound guard (service/outbound.py): what a webhook call may reach, decided before any connection.

No test here sends traffic beyond 127.0.0.1: names are answered by stub resolvers, calls that would go
elsewhere are stopped as they start, before their connection (:class:`Recorder`), and real calls go to a
server on 127.0.0.1, which only the operator's "allow private" lets through.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import ssl
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import aiohttp
import pytest

from service.outbound import (
    MAX_ANSWER_BYTES,
    CallFailed,
    CallTimeout,
    Refused,
    checked_address,
    checked_now,
    client,
    post,
)
from tests import aio

CERTS = Path(__file__).resolve().parents[1] / "certs"
PUBLIC = "8.8.8.8"  # (only ever answered by a stub resolver; nothing connects to it)


def answering(*answers: list[str]):  # type: ignore[no-untyped-def]
    """A resolver giving these answers, one per lookup (the last again when they run out)."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        return answers[min(len(asked) - 1, len(answers) - 1)]

    resolve.asked = asked  # type: ignore[attr-defined]
    return resolve


class Unsent(Exception):
    """A request the :class:`Recorder` stopped as it started."""


class Recorder:
    """Records each request the delivery's client starts, and stops it there: before any connection."""

    def __init__(self) -> None:
        self.requests: list[aiohttp.TraceRequestStartParams] = []

    async def started(self, _session: object, _context: object, params: aiohttp.TraceRequestStartParams) -> None:
        self.requests.append(params)
        raise Unsent

    def client(self) -> aiohttp.ClientSession:
        """A client whose requests are recorded and stopped."""
        trace = aiohttp.TraceConfig()
        trace.on_request_start.append(self.started)
        return aiohttp.ClientSession(trace_configs=[trace])


def call(url: str, resolver, allow_private: bool = False, recorder: Recorder | None = None):  # type: ignore[no-untyped-def]
    recorder = recorder if recorder is not None else Recorder()

    async def run():  # type: ignore[no-untyped-def]
        async with recorder.client() as session:
            return await post(session, url, b"{}", {}, 1.0, resolver, allow_private)

    return aio.run(run())


@pytest.mark.parametrize(("address", "why"), [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.1.2.3", "private"), ("172.16.0.9", "private"),
    ("192.168.1.1", "private"), ("fd12::1", "private"), ("169.254.10.10", "link-local"),
    ("fe80::1", "link-local"), ("224.0.0.1", "multicast"), ("ff02::1", "multicast"),
    ("0.0.0.0", "unspecified"), ("::", "unspecified"), ("240.0.0.1", "reserved"),
    ("169.254.169.254", "metadata"), ("fd00:ec2::254", "metadata"), ("::ffff:127.0.0.1", "loopback"),
    ("100.64.0.1", "not a public"),
])
def test_every_non_public_address_class_is_refused_before_any_connection(address: str, why: str) -> None:
    recorder = Recorder()
    with pytest.raises(Refused, match=why):
        call("https://bot.example/hook", answering([address]), recorder=recorder)
    assert recorder.requests == []


def test_a_name_with_one_private_address_among_public_ones_is_refused() -> None:
    recorder = Recorder()
    with pytest.raises(Refused, match=r"10\.0\.0\.5"):
        call("https://bot.example/hook", answering([PUBLIC, "10.0.0.5"]), recorder=recorder)
    assert recorder.requests == []


def test_a_call_goes_to_the_address_checked_with_the_name_in_host() -> None:
    """(and in SNI, the certificate checked against it: the TLS test below, which connects)"""
    recorder = Recorder()
    with pytest.raises(Unsent):
        call("https://bot.example:8443/hook?x=1", answering([PUBLIC]), recorder=recorder)
    (request,) = recorder.requests
    assert request.url.host == PUBLIC and request.url.port == 8443 and request.url.path_qs == "/hook?x=1"
    assert request.headers["host"] == "bot.example:8443"


def test_a_name_that_rebinds_from_public_to_private_is_refused_at_the_call_it_turns_private() -> None:
    resolver = answering([PUBLIC], ["127.0.0.1"])
    recorder = Recorder()
    with pytest.raises(Unsent):  # (started, to the public address)
        call("https://rebind.example/hook", resolver, recorder=recorder)
    with pytest.raises(Refused, match="loopback"):
        call("https://rebind.example/hook", resolver, recorder=recorder)
    assert resolver.asked == ["rebind.example", "rebind.example"]  # (resolved at each call)
    assert [request.url.host for request in recorder.requests] == [PUBLIC]


@pytest.mark.parametrize(("url", "why"), [
    ("http://bot.example/hook", "https"), ("ftp://bot.example/x", "https"), ("https:///nohost", "https"),
    ("https://user:pw@bot.example/", "password"), ("https://bot.example/#x", "fragment"),
    ("https://bot.example:99999/", "URL"), ("https://bot.example:0/", "port 0"),
    ("https://bot.example/\r\nX-Forged: 1", "control character"), ("https://bot.example/a b", "space"),
    ("https://bot.example/\thook", "control character"), ("https://bot.example/\u202ekoob", "bidirectional"),
    ("https://bot.example/\x85", "control character"),
])
def test_urls_that_are_not_plain_https_are_refused(url: str, why: str) -> None:
    with pytest.raises(Refused, match=why):
        call(url, answering([PUBLIC]))


@pytest.mark.parametrize("address", ["169.254.169.254", "fd00:ec2::254", "::ffff:169.254.169.254",
                                     "::ffff:a9fe:a9fe", "2002:a9fe:a9fe::1", "64:ff9b::169.254.169.254",
                                     "::169.254.169.254"])
def test_a_metadata_address_is_refused_even_where_private_addresses_are_allowed(address: str) -> None:
    """(in every IPv6 form that stands for it: mapped, 6to4, NAT64's, IPv4-compatible)"""
    with pytest.raises(Refused, match="metadata"):
        call("http://metadata.example/", answering([address]), allow_private=True)
    with pytest.raises(Refused, match="metadata"):
        call(f"http://[{address}]/latest" if ":" in address else f"http://{address}/latest", answering([]),
             allow_private=True)


def test_a_name_slow_to_resolve_is_refused_when_registered_and_a_call_waits_for_it_no_longer_than_its_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A name's DNS answers as slowly as its owner likes: a registration waited for it as long as that took, and a
    call's lookup came before its timeout began (a call of 0.1 s took the lookup's 2 s, past its claim's lease)."""
    import service.outbound

    async def slow(host: str, port: int) -> list[str]:
        await asyncio.sleep(2)
        return [PUBLIC]

    monkeypatch.setattr(service.outbound, "RESOLVE_SECONDS", 0.1, raising=False)
    with pytest.raises(Refused, match=r"did not resolve within 0\.1 s"):
        aio.run(checked_address("https://slow.example/", slow))
    monkeypatch.setattr(service.outbound, "RESOLVE_SECONDS", 10.0, raising=False)
    recorder = Recorder()

    async def run() -> None:
        async with recorder.client() as session:
            await post(session, "https://slow.example/hook", b"{}", {}, 0.1, slow)

    with pytest.raises(CallTimeout):
        aio.run(run())
    assert recorder.requests == []


def test_a_url_is_checked_from_synchronous_code_even_in_a_thread_that_runs_an_event_loop() -> None:
    """A registration checks its URL from synchronous code. In a thread running an event loop already (a test
    process's main thread once a browser test has run: Playwright's sync API), asyncio.run refused to start under
    it, and registering a webhook failed with a RuntimeError."""
    async def on_a_loop(address: str) -> str:
        return str(checked_now("https://bot.example/hook", answering([address])))

    assert aio.run(on_a_loop(PUBLIC)) == PUBLIC
    with pytest.raises(Refused, match=r"127\.0\.0\.1"):
        aio.run(on_a_loop("127.0.0.1"))


@pytest.mark.parametrize(("url", "answer", "flag_helps"), [
    ("http://bot.example/hook", [PUBLIC], True), ("https://bot.example/hook", ["10.0.0.7"], True),
    ("http://bot.example/hook", [PUBLIC, "127.0.0.1"], True), ("http://bot.example/hook", ["169.254.169.254"], False),
    ("http://bot.example/#x", ["127.0.0.1"], False), ("http://127.0.0.1:9000/hook", [], True),
], ids=["http", "private", "loopback-among-public", "metadata", "fragment", "loopback-literal"])
def test_a_registration_refused_says_whether_the_operators_flag_would_allow_it_from_one_lookup(
        url: str, answer: list[str], flag_helps: bool) -> None:
    """A URL refused was looked up a second time, private addresses allowed, to tell the bot author whether the
    operator's flag for development would let it be called: two lookups, each up to 5 s for a slow name."""
    from types import SimpleNamespace

    from service.errors import UrlRefused
    from service.webhooks import Webhooks

    resolver = answering(answer)
    with pytest.raises(UrlRefused) as refused:
        Webhooks.check_url(SimpleNamespace(resolver=resolver, allow_private=False), url)  # type: ignore[arg-type]
    assert ("--webhooks-allow-private" in str(refused.value)) is flag_helps
    assert len(resolver.asked) == (1 if answer and "#" not in url else 0)


def test_a_name_that_does_not_resolve_is_refused() -> None:
    async def failing(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    with pytest.raises(Refused, match="does not resolve"):
        aio.run(checked_address("https://nowhere.example/", failing))


# -- real calls, to 127.0.0.1 (allowed by the operator's flag) -----------------------------------------
class Handler(BaseHTTPRequestHandler):
    tries: ClassVar[list[float]] = []  # (the calls of /hangup/move)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/hangup/move":  # (the first call: no answer, the connection closed after 1.5 s)
            self.tries.append(time.monotonic())
            time.sleep(1.5 if len(self.tries) == 1 else 4.0)
            if len(self.tries) == 1:
                self.close_connection = True
                return
            body = b'{"move": {"type": "pass"}}'
            self.send_response(200)
        elif self.path == "/big":
            body = b"x" * (MAX_ANSWER_BYTES * 4)
            self.send_response(200)
        elif self.path == "/drip":  # (a byte every 0.1 s for 3 s: each read is quick, the answer is not)
            self.send_response(200)
            self.send_header("Content-Length", "30")
            self.end_headers()
            for _ in range(30):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
            return
        elif self.path == "/deep/move":  # (a JSON answer nested deeper than any decoder recurses)
            body = b'{"move": ' + b"[" * 5000 + b"]" * 5000 + b"}"
            self.send_response(200)
        elif self.path == "/redirect":
            body = b""
            self.send_response(307)
            self.send_header("Location", "/big")
        else:
            body = b'{"move": {"type": "pass"}}'
            self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def real_call(url: str, allow_private: bool, timeout: float = 5.0) -> object:
    async def run():  # type: ignore[no-untyped-def]
        async with client() as delivery_client:  # (the client the delivery calls with)
            return await post(delivery_client, url, b"{}", {}, timeout, answering(["127.0.0.1"]), allow_private)

    return aio.run(run())


def test_a_local_bot_is_refused_unless_the_operator_allows_private_addresses(local: str) -> None:
    with pytest.raises(Refused, match="https"):
        real_call(local + "/move", allow_private=False)
    with pytest.raises(Refused, match="loopback"):
        real_call(local.replace("http:", "https:") + "/move", allow_private=False)
    answer = real_call(local + "/move", allow_private=True)
    assert answer.status == 200 and answer.body == b'{"move": {"type": "pass"}}'  # type: ignore[attr-defined]


def test_an_answer_over_64_kib_is_cut(local: str) -> None:
    answer = real_call(local + "/big", allow_private=True)
    assert answer.cut and len(answer.body) == MAX_ANSWER_BYTES  # type: ignore[attr-defined]


def test_a_redirect_is_not_followed(local: str) -> None:
    answer = real_call(local + "/redirect", allow_private=True)
    assert answer.status == 307 and answer.body == b""  # type: ignore[attr-defined]


def test_an_https_bot_is_called_by_its_name_in_sni_and_host_its_certificate_checked_one_connection_kept() -> None:
    """Through the delivery's client: TLS to the address checked, the certificate checked against the name
    (a test certificate for bot.example, valid for a century), two calls on one connection."""
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(CERTS / "bot.example.pem", CERTS / "bot.example.key")
    names: list[str | None] = []
    server_context.sni_callback = lambda _socket, name, _context: names.append(name)  # type: ignore[assignment,misc,return-value]
    seen: list[bytes] = []
    connections: list[int] = []

    async def bot(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while head := await reader.readuntil(b"\r\n\r\n"):
                length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))[15:])
                seen.append(head + await reader.readexactly(length))
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 24\r\n\r\n" + b'{"move": {"type": "go"}}')
                await writer.drain()

    async def run(trusted: bool, hosts: tuple[str, ...] = ("bot.example", "bot.example")) -> list[object]:
        server = await asyncio.start_server(bot, "127.0.0.1", 0, ssl=server_context)
        port = server.sockets[0].getsockname()[1]
        verify = ssl.create_default_context(cafile=CERTS / "bot.example.pem") if trusted else True
        try:
            async with client(verify) as delivery_client:
                return [await post(delivery_client, f"https://{host}:{port}/bot/move", b'{"n": %d}' % number,
                                   {"webhook-id": "m"}, 5.0, answering(["127.0.0.1"]), allow_private=True)
                        for number, host in enumerate(hosts)]
        finally:
            server.close()

    answers = aio.run(run(trusted=True))
    assert [answer.body for answer in answers] == [b'{"move": {"type": "go"}}'] * 2  # type: ignore[attr-defined]
    assert names == ["bot.example"] and len(connections) == 1
    assert all(request.startswith(b"POST /bot/move HTTP/1.1") and b"\r\nHost: bot.example:" in request
               for request in seen)
    assert [request.rsplit(b"\r\n\r\n", 1)[1] for request in seen] == [b'{"n": 0}', b'{"n": 1}']
    with pytest.raises(CallFailed, match="CERTIFICATE_VERIFY_FAILED"):  # (a certificate no one vouches for)
        aio.run(run(trusted=False))
    # another name at the same address: its own connection, the certificate checked against it (not bot.example's
    # connection, kept alive, reused)
    with pytest.raises(CallFailed, match=r"Hostname mismatch.*other\.example"):
        aio.run(run(trusted=True, hosts=("bot.example", "other.example")))
    assert names[-2:] == ["bot.example", "other.example"]


def test_a_call_ends_at_its_timeout_however_its_answer_trickles_in(local: str) -> None:
    began = time.monotonic()
    with pytest.raises(CallTimeout):  # (its claim's lease, which outlives the timeout, is not outlived)
        real_call(local + "/drip", allow_private=True, timeout=0.5)
    assert time.monotonic() - began < 2.5  # (its 0.5 s, not the 3 s the answer takes)


def test_the_operator_allows_private_addresses_with_a_serve_option_handed_to_the_workers() -> None:
    from api.settings import Settings
    from cardhall_cli import parser
    from cardhall_cli.server import _settings

    assert not _settings(Settings(), parser().parse_args(["serve"])).webhooks_allow_private
    allowed = _settings(Settings(), parser().parse_args(["serve", "--webhooks-allow-private"]))
    assert allowed.webhooks_allow_private
    assert Settings.from_environment(allowed.environment()).webhooks_allow_private


def test_a_retry_takes_only_what_is_left_of_the_calls_timeout_so_the_call_ends_within_its_lease(local: str) -> None:
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from service.webhook_delivery import Delivery
    from service.webhooks import Call

    tries = Handler.tries = []  # (the bot hangs up after 1.5 s, then answers after 4 s)

    webhooks = SimpleNamespace(resolver=answering(["127.0.0.1"]), allow_private=True,
                               settle=lambda call, outcome, move, latency: (outcome, []))
    delivery = Delivery(webhooks)  # type: ignore[arg-type]
    deadline = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=30)
    call = Call(("g", 1, 0, "move"), "bot", f"{local}/hangup", b"{}", (), 3.0, deadline)

    async def run() -> str:
        delivery._executor = ThreadPoolExecutor(1)
        async with client() as delivery.client:
            return await delivery.call(call)

    assert aio.run(run()) == "late" and len(tries) == 2
    # The call ends when its 3 s are up, at most 1.5 s after the retry began (later on a busy machine, which
    # delays the retry too); a retry given a whole 3 s of its own would end 3 s after it began.
    assert time.monotonic() - tries[1] < 2.5


def test_a_move_answered_as_json_nested_thousands_deep_is_settled_invalid(local: str) -> None:
    """json.loads raises RecursionError for it, which escaped the call: the call was never settled (no outcome, no
    failure counted against the bot's circuit), and was claimed and made again until its turn timed out."""
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from service.webhook_delivery import Delivery
    from service.webhooks import Call

    settled: list[tuple[str, object]] = []
    webhooks = SimpleNamespace(resolver=answering(["127.0.0.1"]), allow_private=True,
                               settle=lambda call, outcome, move, latency: settled.append((outcome, move)) or (outcome, []))
    delivery = Delivery(webhooks)  # type: ignore[arg-type]
    call = Call(("g", 1, 0, "move"), "bot", f"{local}/deep", b"{}", (), 5.0,
                dt.datetime.now(dt.UTC) + dt.timedelta(seconds=30))

    async def run() -> str:
        delivery._executor = ThreadPoolExecutor(1)
        async with client() as delivery.client:
            return await delivery.call(call)

    assert aio.run(run()) == "invalid" and settled == [("invalid", None)]

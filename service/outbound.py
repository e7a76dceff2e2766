"""Calls Cardhall makes to URLs its users give (webhook bots): decided safe before any connection.

A server that fetches user-given URLs is a way into the network it runs in. So each call:

- resolves the URL's host at the call (through an injectable resolver) and refuses the call if *any* of
  its addresses is loopback, private, link-local, multicast, unspecified, reserved or otherwise not a
  public address, or a cloud metadata address; the operator may allow the non-public ones for
  development (``cardhall serve --webhooks-allow-private``), never a metadata address;
- connects to the address it checked, not to the name (a second lookup could answer another address:
  DNS rebinding); the name still goes in ``Host`` and in TLS's SNI, and the certificate is checked
  against it;
- requires https (plain http only where private addresses are allowed), follows no redirect, and reads
  at most :data:`MAX_ANSWER_BYTES` of the answer.

Every refusal is a :class:`Refused`, raised before a socket is opened. The calls go through one aiohttp
client a process (:func:`client`): a POST through it costs about a twelfth of the CPU it did through httpx
(docs/performance.md, "Webhook bots"); a call that fails is a :class:`CallFailed` or a :class:`CallTimeout`,
whatever the client library, so that its callers (:mod:`service.webhook_delivery`, :mod:`service.outbox`)
do not depend on it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import ipaddress
import re
import socket
import ssl
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import certifi

#: An answer longer than this is cut here (its rest is never read).
MAX_ANSWER_BYTES = 64 * 1024

#: The longest a host's name may take to resolve (the name's own DNS servers answer as slowly as its owner likes):
#: registering a URL waits no longer, and a call no longer than its timeout.
RESOLVE_SECONDS = 5.0

#: Addresses of cloud instance metadata services: refused even where private addresses are allowed.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(text) for text in ("169.254.169.254", "fd00:ec2::254"))

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: ``(host, port) -> addresses``: how a host name becomes the addresses a call may go to.
Resolver = Callable[[str, int], Awaitable[list[str]]]


class Refused(Exception):
    """A call that is not made: the URL, or an address its host resolves to, is not one Cardhall calls. ``private``:
    refused only for what the operator's flag for development allows (http, a loopback or private address)."""

    def __init__(self, message: str, private: bool = False) -> None:
        super().__init__(message)
        self.private = private


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the system's resolver gives ``host`` (without blocking the event loop)."""
    found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(sockaddr[0]) for *_, sockaddr in found]


#: Why an address is refused even where private addresses are allowed (an operator's flag, for bots on loopback).
METADATA = "a cloud metadata address"
#: IPv6 prefixes whose addresses carry an IPv4 address in their last 32 bits: IPv4-compatible (deprecated) and
#: the NAT64 well-known prefix (IPv4-mapped and 6to4 ones ``ipaddress`` tells itself).
_CARRYING_IPV4 = (ipaddress.ip_network("::/96"), ipaddress.ip_network("64:ff9b::/96"))


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, NAT64's, compatible), if any."""
    if (embedded := address.ipv4_mapped or address.sixtofour) is not None:
        return embedded
    if any(address in prefix for prefix in _CARRYING_IPV4) and int(address) > 1:  # (not :: nor ::1)
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_problem(address: IPAddress) -> str | None:
    """Why ``address`` is not a public address (None if it is one). An IPv6 address that stands for an IPv4
    one is judged as that one."""
    if isinstance(address, ipaddress.IPv6Address) and (embedded := _embedded_ipv4(address)) is not None:
        return address_problem(embedded)
    if address in METADATA_ADDRESSES:
        return METADATA
    for test, what in (("is_unspecified", "unspecified"), ("is_loopback", "loopback"),
                       ("is_link_local", "link-local"), ("is_multicast", "multicast"),
                       ("is_reserved", "reserved"), ("is_private", "private")):
        if getattr(address, test):
            return f"a {what} address"
    if not address.is_global:
        return "not a public address"
    return None


#: What a URL cannot hold as it is written (RFC 3986): whitespace and control characters, which ``urlsplit`` drops
#: (tab, CR, LF) or the client percent-encodes, so that the URL called is not the one registered; and the marks that
#: reorder the text around them where the URL is shown.
_UNWRITTEN = re.compile(r"[\x00-\x20\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def checked_url(url: str) -> tuple[str, str, int]:
    """``url``'s scheme, host and port, if it is a URL Cardhall may call where private addresses are allowed (its
    addresses aside; elsewhere only over https: :func:`checked_address`)."""
    if (found := _UNWRITTEN.search(url)) is not None:
        raise Refused(f"the URL holds {found.group()!r} at {found.start()}: a space or a control character is "
                      "percent-encoded in a URL (%20), and a bidirectional mark has no place in one")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise Refused(f"not a URL: {error}") from None
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused("the URL must be https://HOST/…")
    if parts.username is not None or parts.password is not None:
        raise Refused("the URL must not carry a user name or password")
    if parts.fragment:
        raise Refused("the URL must not have a fragment")
    if port == 0:
        raise Refused("port 0 is no port a call can go to")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def checked_now(url: str, resolver: Resolver, allow_private: bool = False) -> IPAddress:
    """:func:`checked_address` from synchronous code (a registration, in a request's thread): run to its end on a loop
    of its own; in a thread of its own where this thread runs an event loop already, under which ``asyncio.run``
    refuses to start (Playwright's sync API leaves one marked running in a test process's main thread)."""
    coroutine = checked_address(url, resolver, allow_private)
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # (no loop here: the plain case)
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def checked_address(url: str, resolver: Resolver, allow_private: bool = False) -> IPAddress:
    """The address a call to ``url`` goes to: its host's first address, once every one of them is allowed."""
    scheme, host, port = checked_url(url)
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            async with asyncio.timeout(RESOLVE_SECONDS):
                answered = await resolver(host, port)
        except TimeoutError:  # (before OSError: a TimeoutError is one)
            raise Refused(f"{host} did not resolve within {RESOLVE_SECONDS:g} s") from None
        except OSError as error:
            raise Refused(f"{host} does not resolve: {error}") from None
        except UnicodeError as error:  # (the resolver's IDNA encoding: an empty label, one over 63 characters)
            raise Refused(f"{host} is no host name: {error}") from None
        try:
            addresses = [ipaddress.ip_address(text.split("%", 1)[0]) for text in answered]
        except ValueError as error:
            raise Refused(f"{host} resolves to something that is no address: {error}") from None
        if not addresses:
            raise Refused(f"{host} resolves to no address")
    refused = [(address, problem) for address in addresses if (problem := address_problem(address)) is not None]
    for address, problem in refused:
        if problem == METADATA:
            raise Refused(f"{host} resolves to {address}, {problem}")
    if not allow_private:
        if scheme == "http":
            raise Refused("the URL must use https", private=True)
        if refused:
            raise Refused("{} resolves to {}, {}".format(host, *refused[0]), private=True)
    return addresses[0]


@dataclasses.dataclass(frozen=True)
class Answer:
    """What a called URL answered: its status and at most :data:`MAX_ANSWER_BYTES` of its body."""

    status: int
    body: bytes
    cut: bool  # (the body was longer, and is cut)


#: The delivery's connection pool: calls to many bots at once, their connections kept alive (as long as httpx
#: kept them: a bot's server that closes idle connections after 5 s, uvicorn's default, is not raced).
CONNECTIONS = 1000
KEEPALIVE_SECONDS = 5.0


#: What calls are made with (:func:`client`): its callers name it so, not by its library.
Client = aiohttp.ClientSession


class CallTimeout(Exception):
    """A call not answered (wholly) within its timeout."""


class CallFailed(Exception):
    """A call that failed on the way: no connection, a TLS certificate refused, the connection lost, an
    answer that is not HTTP."""


def client(verify: ssl.SSLContext | bool = True) -> Client:
    """The client a process makes its calls with (one, for its lifetime, made on its event loop): its
    connections kept alive, nothing taken from the environment (no proxy, no netrc), no cookies kept.
    ``verify``: the certificates trusted (certifi's by default, as httpx had it; a test's own), each
    checked against the URL's host name; False: none checked."""
    if verify is True:
        verify = ssl.create_default_context(cafile=certifi.where())
    connector = aiohttp.TCPConnector(limit=CONNECTIONS, keepalive_timeout=KEEPALIVE_SECONDS, ssl=verify)
    return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False,
                                 timeout=aiohttp.ClientTimeout(total=None))


async def post(client: Client, url: str, body: bytes, headers: Mapping[str, str], timeout: float,
               resolver: Resolver = system_resolver, allow_private: bool = False) -> Answer:
    """POST ``body`` to ``url`` at the address checked for it (:func:`checked_address`), within ``timeout``
    seconds (the whole call: connecting, sending and the whole answer: else :class:`CallTimeout`; a call
    failing on the way is a :class:`CallFailed`). A redirect is an answer like any other (its status),
    never followed. The lookup of its host counts within ``timeout`` (a call's lease outlives it by a second)."""
    try:
        async with asyncio.timeout(timeout):
            target, host, sni = _target(url, await checked_address(url, resolver, allow_private))
            async with client.post(target, data=body, headers={**headers, "Host": host, **_JSON}, allow_redirects=False,
                                   server_hostname=sni) as response:
                return await _answer(response)
    except TimeoutError:  # (before OSError: a TimeoutError is one; aiohttp's own timeouts are ones too)
        raise CallTimeout(f"no whole answer within {timeout} s") from None
    except (aiohttp.ClientError, OSError) as error:  # (ssl.SSLError is an OSError)
        raise CallFailed(f"{type(error).__name__}: {error}") from error


def _target(url: str, address: IPAddress) -> tuple[str, str, str | None]:
    """The URL a call to ``url`` goes to (its host the checked ``address``), its ``Host`` and its TLS SNI: the name
    in SNI, and the certificate checked against it; connections are pooled by address and name."""
    parts = urlsplit(url)
    netloc = f"[{address}]" if address.version == 6 else str(address)
    if parts.port is not None:
        netloc += f":{parts.port}"
    target = urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, ""))
    return target, parts.netloc.rsplit("@", 1)[-1], parts.hostname if parts.scheme == "https" else None


_JSON = {"Content-Type": "application/json", "Accept": "application/json", "Accept-Encoding": "identity",
         "User-Agent": "cardhall-webhooks"}


async def _answer(response: aiohttp.ClientResponse) -> Answer:
    """The answer read, cut at MAX_ANSWER_BYTES (its connection then closed, not kept: its rest is unread)."""
    read = bytearray()
    while len(read) <= MAX_ANSWER_BYTES and (chunk := await response.content.read(MAX_ANSWER_BYTES + 1 - len(read))):
        read += chunk
    cut = len(read) > MAX_ANSWER_BYTES
    if cut:
        del read[MAX_ANSWER_BYTES:]
        response.close()
    return Answer(response.status, bytes(read), cut)

"""A stream or a long-poll of the ASGI app (api.asgi, api.waiting) reads again only when there may be something new
to send, and leaves nothing to the garbage collector. Each test calls the app a server runs, as its server does."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest
from starlette.applications import Starlette

import api.waiting
import persistence
from api import create_app
from api.asgi import create_asgi
from api.waiting import Found
from service.games import GameService
from service.sweeper import Sweeper
from tests import aio, asgi_calls


def asgi_app(games: GameService, threads: int = 8) -> Starlette:
    """The ASGI app over ``games``, its streams' heartbeats 30 s apart (none in these tests)."""
    return create_asgi(create_app(games, CARDHALL_RATE_LIMIT="off", CARDHALL_SSE_HEARTBEAT=30.0), threads)


def get(app: Starlette, path: str, query: str, sent: list[tuple[float, dict]],
        gone: asyncio.Event | None = None) -> asyncio.Task:
    """``GET path?query`` called on the app as a server calls it; what it sends, with when, goes to ``sent``. The
    client leaves once ``gone`` is set (never without it)."""
    return asyncio.create_task(asgi_calls.get(app, path, query, lambda message: sent.append((time.monotonic(), message)),
                                              gone or asyncio.Event()))


def bodies(sent: list[tuple[float, dict]]) -> list[bytes]:
    return [message["body"] for _, message in sent if message["type"] == "http.response.body"]


def heard(app: Starlette, game_id: str, version: int) -> None:
    """What an announcement of ``version`` does in the process's hub."""
    app.state.waiting.hub._heard(game_id, version)


def test_a_stream_woken_to_nothing_it_can_read_waits_for_news_past_it_instead_of_spinning(monkeypatch):
    """A wake-up for a version the stream's reads do not show (announced ahead of what this process can read)
    must not send the stream straight back to read, over and over: that spun the event loop of a server
    following 2,000 games until it answered nothing."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = asgi_app(games)
    reads: list[int] = []

    def read(_games: Any, _game_id: str, _token: Any, after: int, woken: bool = False) -> Found:
        reads.append(after)
        return Found(after, [], after, False)  # (nothing new, whatever the announcement said)

    monkeypatch.setattr("api.waiting.read_events", read)
    sent: list[tuple[float, dict]] = []

    async def follow_for_a_second() -> None:
        stream = get(app, f"/v1/games/{game_id}/events/stream", "after=1&timeout=1", sent)
        await asyncio.sleep(0.2)
        heard(app, game_id, 5)
        await stream

    try:
        aio.run(follow_for_a_second())
    finally:
        games.store.close()
    assert 2 <= len(reads) <= 12, f"{len(reads)} reads in one second"
    assert bodies(sent)[1:] == [b""]  # (the preamble, then the end: no heartbeat was due)


def test_a_long_poll_woken_to_nothing_it_can_read_waits_out_its_time_reading_seldom(monkeypatch):
    """The same wake-up must not answer a long-poll with an empty page at once (its client would ask
    again at once, and be woken again at once): it waits for news past it, reading at most a few
    times a second, and answers when its wait is over."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = asgi_app(games)
    reads: list[float] = []

    def read(*_args: Any) -> Found:
        reads.append(time.monotonic())
        return Found(1, [], 1, False)

    monkeypatch.setattr("api.waiting.read_events", read)
    sent: list[tuple[float, dict]] = []

    async def poll_for_a_second() -> None:
        poll = get(app, f"/v1/games/{game_id}/events", "after=1&wait=1", sent)
        await asyncio.sleep(0.2)
        heard(app, game_id, 5)
        await poll

    started = time.monotonic()
    try:
        aio.run(poll_for_a_second())
    finally:
        games.store.close()
    assert 2 <= len(reads) <= 12, f"{len(reads)} reads in one second"
    assert [message["type"] for _, message in sent] == ["http.response.start", "http.response.body"]
    assert sent[0][0] - started >= 0.95  # (answered when its wait was over, not at the wake-up)
    assert bodies(sent) == [b'{"events":[],"last_version":1}\n']


def test_a_stream_woken_by_an_append_never_joins_a_read_begun_before_it(monkeypatch):
    """Streams of a game share their reads; one woken by an append must not share a read another stream
    began before that append (which cannot show it): it would get nothing, and the append only later."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = asgi_app(games)
    calls: list[int] = []
    committed = threading.Event()

    def read(_games: Any, _game_id: str, _token: Any, after: int, woken: bool = False) -> Found:
        calls.append(after)
        if len(calls) == 2:  # (the second stream's first read: begun before the append, and slow)
            time.sleep(0.4)
            return Found(after, [], after, False)
        if committed.is_set() and after < 2:
            return Found(after, [{"version": 2, "type": "CardDrawn"}], 2, False)
        return Found(after, [], after, False)

    monkeypatch.setattr("api.waiting.read_events", read)
    sent: dict[str, list[tuple[float, dict]]] = {"first": [], "second": []}

    async def follow_both() -> float:
        first = get(app, f"/v1/games/{game_id}/events/stream", "after=1&timeout=1", sent["first"])
        while not calls:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # (the first has read, found nothing, and waits)
        second = get(app, f"/v1/games/{game_id}/events/stream", "after=1&timeout=1", sent["second"])
        while len(calls) < 2:
            await asyncio.sleep(0.01)
        committed.set()
        announced = time.monotonic()
        heard(app, game_id, 2)  # (the append's announcement)
        await asyncio.gather(first, second)
        return announced

    try:
        announced = aio.run(follow_both())
    finally:
        games.store.close()
    delivered = next(at for at, message in sent["first"] if message.get("body", b"").startswith(b"id: 2"))
    assert delivered - announced < 0.2, f"the first stream got the append {delivered - announced:.2f} s after it"


def test_a_stream_whose_client_stops_reading_ends_at_its_timeout_and_frees_its_slot():
    """A client that stops reading (its socket's buffers full: every write waits) used to keep its stream, and
    its follower slot, for as long as it stayed connected: the stream now ends at its timeout all the same."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = asgi_app(games)
    started: list[dict] = []

    async def stalled(message: dict) -> None:
        if message["type"] == "http.response.start":
            started.append(message)
        else:
            await asyncio.Event().wait()  # (a write that never completes)

    async def follow() -> None:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": f"/v1/games/{game_id}/events/stream", "query_string": b"timeout=1",
                 "root_path": "", "headers": [(b"host", b"test")], "client": ("127.0.0.1", 5000)}
        connected = asyncio.Event()

        async def receive() -> dict:
            await connected.wait()  # (still connected, never disconnects)
            return {"type": "http.disconnect"}

        await asyncio.wait_for(app(scope, receive, stalled), 30)

    begun = time.monotonic()
    try:
        aio.run(follow())
    finally:
        games.store.close()
    assert started and started[0]["status"] == 200
    assert time.monotonic() - begun < 10  # (its timeout, 1 s, and the grace of its last write)
    assert app.state.waiting.followers._open == 0


@pytest.fixture
def sqlite_games(sqlite_url: str) -> Iterator[GameService]:
    """A game service on an SQLite file, closed after the test."""
    games = GameService(persistence.open_store(sqlite_url))
    yield games
    games.store.close()


def _scat_of_two(games: GameService) -> tuple[str, list[str]]:
    """A game of Scat with ten lives, both seats taken by people: its id and their tokens."""
    game_id = games.create_game("scat", 2, {"lives": 10})["id"]
    return game_id, [games.join(game_id, name=f"p{seat}")["token"] for seat in range(2)]


def test_long_polls_answered_event_after_event_leave_the_garbage_collector_nothing_to_free(sqlite_games: GameService):
    """A game's followers are woken by each of its events and come back a moment later: what that costs
    must be freed as it goes (reference counting), not left in cycles for the collector, whose pauses
    stop every thread of the process, the moves' included. Both used to be left: the game's
    subscription, ended and begun again for each event (a cancelled task's frames and errors), and a
    schema made for each page read. (A request through the Flask app leaves werkzeug's URL matcher, a
    closure that calls itself, to the collector: the long-polls may leave what as many plain reads leave.)"""
    games = sqlite_games
    game_id, tokens = _scat_of_two(games)
    app = asgi_app(games)
    sent: list[tuple[float, dict]] = []
    move = partial(_draw_or_discard, games, game_id, tokens)

    async def follow(rounds: int) -> tuple[int, int]:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, move)
        await get(app, f"/v1/games/{game_id}/events", "after=0&wait=1", [])  # (the threads and the hub are made)
        gc.collect()
        for _ in range(rounds):
            await get(app, f"/v1/games/{game_id}/events", "after=0", [])
        plain = gc.collect()
        for _ in range(rounds):
            version = games.table(game_id).version
            poll = get(app, f"/v1/games/{game_id}/events", f"after={version}&wait=5", sent)
            await asyncio.sleep(0.02)
            await loop.run_in_executor(None, move)
            await poll
        return plain, gc.collect()

    gc.disable()
    try:
        plain, left = aio.run(follow(30))
    finally:
        gc.enable()
    answered = [body for body in bodies(sent) if body]
    assert len(answered) == 30 and all(b'"events":[{' in body for body in answered)
    assert left < plain + 30, f"{left} objects left to the collector by 30 long-polls, {plain} by 30 plain reads"


def test_a_stream_woken_by_each_move_reads_the_log_without_the_version_and_then_waits(sqlite_games: GameService):
    """What a woken stream sends is read up to the version announced (no read of the version), and once
    it is sent the stream waits for the next announcement: a second read straight after, which found
    nothing, used to cost each delivery twice the reads."""
    games = sqlite_games
    game_id, tokens = _scat_of_two(games)
    app = asgi_app(games)
    reads: list[tuple[str, Any]] = []  # (each of the followers' reads, with what it found)

    def counting(name: str) -> Callable[..., Any]:
        reading = getattr(games.store, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            found = reading(*args, **kwargs)
            if threading.current_thread().name.startswith("cardhall-followers"):  # (the followers' reads alone)
                reads.append((name, found))
            return found

        return counted

    for name in ("read", "last_version"):
        setattr(games.store, name, counting(name))
    sent: list[tuple[float, dict]] = []
    move = partial(_draw_or_discard, games, game_id, tokens)

    async def follow_five_moves() -> None:
        loop = asyncio.get_running_loop()
        start, gone = games.table(game_id).version, asyncio.Event()
        stream = get(app, f"/v1/games/{game_id}/events/stream", f"after={start}&timeout=30", sent, gone)
        await asyncio.sleep(0.3)  # (its first read is made: it waits)
        reads.clear()
        for _ in range(5):
            version = await loop.run_in_executor(None, move)
            while not any(f"id: {version}\n".encode() in body for body in bodies(sent)):
                await asyncio.sleep(0.005)
        await asyncio.sleep(0.2)  # (time for any read more)
        gone.set()
        await stream

    aio.run(follow_five_moves())
    # (a read may come twice for one move: when the stream reads before the move's thread has cached the
    # table it wrote, the table is brought up to date from the log first; but no read finds nothing)
    assert [name for name, _ in reads] == ["read"] * len(reads), reads
    assert 5 <= len(reads) <= 10 and all(found for _, found in reads), [len(found) for _, found in reads]


def test_a_stream_and_a_long_poll_of_one_game_woken_by_a_move_share_one_read(sqlite_games: GameService, monkeypatch):
    """A game's followers woken by its move all need the same events: its streams and its long-polls (of any
    limit) share one read of them, each given its own kind of page made from it. They used to read once per
    kind, twice the reads, and twice the crossings to the readers' threads, of every delivery."""
    games = sqlite_games
    game_id, tokens = _scat_of_two(games)
    app = asgi_app(games)
    reads: list[tuple[int, bool]] = []
    reading = api.waiting.read_events

    def counted(*args: Any) -> Found:
        reads.append(args[-2:])
        return reading(*args)

    monkeypatch.setattr("api.waiting.read_events", counted)
    streamed: list[tuple[float, dict]] = []
    polled: list[tuple[float, dict]] = []
    move = partial(_draw_or_discard, games, game_id, tokens)

    start = games.table(game_id).version

    async def follow_five_moves() -> list[int]:
        loop = asyncio.get_running_loop()
        version, gone = start, asyncio.Event()
        stream = get(app, f"/v1/games/{game_id}/events/stream", f"after={version}&timeout=30", streamed, gone)
        answered = []
        for _ in range(5):
            poll = get(app, f"/v1/games/{game_id}/events", f"after={version}&wait=10&limit=7", polled)
            await asyncio.sleep(0.2)  # (both wait)
            version = await loop.run_in_executor(None, move)
            await poll
            answered.append(json.loads(bodies(polled)[-1])["events"][-1]["version"])
            while not any(f"id: {version}\n".encode() in body for body in bodies(streamed)):
                await asyncio.sleep(0.005)
        gone.set()
        await stream
        return answered

    answered = aio.run(follow_five_moves())
    assert reads[0] == (start, False)  # (the stream's first, before it waits)
    # One read a move, the stream's and the long-poll's, each after the version both had:
    assert reads[1:] == [(after, True) for after in [start, *answered[:-1]]], reads


def test_a_stream_of_a_finished_game_longer_than_a_page_sends_every_event_once_in_order_and_ends(
        sqlite_games: GameService):
    """A finished game of 1,789 events, streamed from the start in reads of at most 1,000: every event once,
    in order, and the stream ends as soon as the last is sent, not after a wait for news that will never
    come."""
    games = sqlite_games
    game_id = games.create_game("craits", 4, {"seed": 7})["id"]
    for _ in range(4):
        games.join(game_id, bot="random")
    while Sweeper(games).sweep():  # (the house bots play on in steps, as a server's sweeper has them)
        pass
    last = games.table(game_id).version
    assert games.table(game_id).status == "finished" and last > 1000
    app = asgi_app(games)
    sent: list[tuple[float, dict]] = []

    async def stream() -> None:
        await get(app, f"/v1/games/{game_id}/events/stream", "after=0&timeout=30", sent)

    started = time.monotonic()
    aio.run(stream())
    ids = [int(line[4:]) for line in b"".join(bodies(sent)).decode().splitlines() if line.startswith("id: ")]
    assert ids == list(range(1, last + 1)) and bodies(sent)[-1] == b""
    assert time.monotonic() - started < 5


def _draw_or_discard(games: GameService, game_id: str, tokens: list[str]) -> int:
    """A draw or a discard in a game of Scat by the seat to act (its token among ``tokens``); the version it wrote."""
    for token in tokens:
        view = games.view(game_id, token)
        if view["seat"] in view["to_act"]:
            chosen = next(m for m in view["legal_moves"] if m["type"] in ("draw", "discard"))
            return games.move(game_id, token, chosen, expected_version=view["version"]).body["version"]
    raise AssertionError("nobody to act")


def test_a_long_poll_asking_after_news_or_before_it_never_reads_the_version(sqlite_games: GameService):
    """A follower asks again right after its answer: if a move came in between, its page is read up to the
    version this process heard of (the log, not the version first); if nothing did, it waits without a read,
    and the next move's page is read once it wakes."""
    games = sqlite_games
    game_id, tokens = _scat_of_two(games)
    app = asgi_app(games)
    reads: list[str] = []
    for name in ("read", "last_version"):
        reading = getattr(games.store, name)

        def counted(*args: Any, _reading: Callable[..., Any] = reading, _name: str = name, **kwargs: Any) -> Any:
            if threading.current_thread().name.startswith("cardhall-followers"):  # (the followers' reads alone)
                reads.append(_name)
            return _reading(*args, **kwargs)

        setattr(games.store, name, counted)
    move = partial(_draw_or_discard, games, game_id, tokens)

    async def ask(after: int) -> bytes:
        sent: list[tuple[float, dict]] = []
        await get(app, f"/v1/games/{game_id}/events", f"after={after}&wait=5", sent)
        return bodies(sent)[0]

    async def follow() -> list[bytes]:
        loop = asyncio.get_running_loop()
        await ask(await loop.run_in_executor(None, move) - 1)  # (the table cached at the version heard)
        reads.clear()
        pages = []
        for _ in range(3):  # news already there when it asks
            version = await loop.run_in_executor(None, move)
            pages.append(await ask(version - 1))
        waiting = asyncio.ensure_future(ask(version))  # nothing new yet: it waits, then a move wakes it
        await asyncio.sleep(0.2)
        await loop.run_in_executor(None, move)
        pages.append(await waiting)
        return pages

    pages = aio.run(follow())
    assert all(b'"events":[{' in page for page in pages), pages
    # (the woken read may come twice: when it begins before the move's thread has cached the table it wrote,
    # the table is brought up to date from the log first)
    assert "last_version" not in reads and 4 <= reads.count("read") <= 5, reads

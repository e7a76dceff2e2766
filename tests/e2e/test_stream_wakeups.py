"""A stream or a long-poll on the event loop (api.asgi) reads again only when there may be something new to send,
and leaves nothing to the garbage collector."""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest

import persistence
from api import create_app
from api.asgi import FollowingApp
from api.followers import Answer, Batch, LongPoll, Stream, stream_batch
from api.games import _sse, woken_page
from service.games import GameService


def test_a_stream_woken_to_nothing_it_can_read_waits_for_news_past_it_instead_of_spinning():
    """A wake-up for a version the stream's reads do not show (announced ahead of what this process can read)
    must not send the stream straight back to read, over and over: that spun the event loop of a server
    following 2,000 games until it answered nothing."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = FollowingApp(create_app(games, CARDHALL_RATE_LIMIT="off"), 2)
    reads: list[int] = []

    def batch(after: int, woken: bool) -> Batch:
        reads.append(after)
        return Batch("", after, False)  # (nothing new, whatever the announcement said)

    follow = Stream(game_id, None, 1, timeout=1.0, heartbeat=30.0, batch=batch, release=lambda: None)
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def follow_for_a_second() -> None:
        gone = asyncio.get_running_loop().create_future()
        stream = asyncio.create_task(app._stream(follow, send, gone))
        await asyncio.sleep(0.1)
        app.hub._followed[game_id]._heard(5)  # (what an announcement of version 5 does)
        await stream

    try:
        asyncio.run(follow_for_a_second())
    finally:
        games.store.close()
    assert 2 <= len(reads) <= 12, f"{len(reads)} reads in one second"
    assert sent == [{"type": "http.response.body", "body": b"", "more_body": False}]  # (no heartbeat was due)


def test_a_long_poll_woken_to_nothing_it_can_read_waits_out_its_time_reading_seldom():
    """The same wake-up must not answer a long-poll with an empty page at once (its client would ask
    again at once, and be woken again at once): it waits for news past it, reading at most a few
    times a second, and answers when its wait is over."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = FollowingApp(create_app(games, CARDHALL_RATE_LIMIT="off"), 2)
    reads: list[float] = []

    def read() -> Answer:
        reads.append(time.monotonic())
        return Answer(200, [(b"content-type", b"application/json")], b'{"events": []}', news=False)

    follow = LongPoll(game_id, 1, 1.0, release=lambda: None, page=(("page", game_id, 1), read))
    sent: list[tuple[float, dict]] = []

    async def send(message: dict) -> None:
        sent.append((time.monotonic(), message))

    async def poll_for_a_second() -> None:
        gone = asyncio.get_running_loop().create_future()
        poll = asyncio.create_task(app._long_poll(follow, {}, send, gone))
        await asyncio.sleep(0.1)
        app.hub._followed[game_id]._heard(5)  # (what an announcement of version 5 does)
        await poll

    started = time.monotonic()
    try:
        asyncio.run(poll_for_a_second())
    finally:
        games.store.close()
    assert 2 <= len(reads) <= 12, f"{len(reads)} reads in one second"
    assert [message["type"] for _, message in sent] == ["http.response.start", "http.response.body"]
    assert sent[0][0] - started >= 0.95  # (answered when its wait was over, not at the wake-up)
    assert sent[1][1]["body"] == b'{"events": []}'


def test_a_stream_woken_by_an_append_never_joins_a_read_begun_before_it():
    """Streams of a game share their reads; one woken by an append must not share a read another stream
    began before that append (which cannot show it): it would get nothing, and the append only later."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = FollowingApp(create_app(games, CARDHALL_RATE_LIMIT="off"), 4)
    calls: list[int] = []
    committed = threading.Event()

    def batch(after: int, woken: bool) -> Batch:
        calls.append(after)
        if len(calls) == 2:  # (the second stream's first read: begun before the append, and slow)
            time.sleep(0.4)
            return Batch("", after, False)
        if committed.is_set() and after < 2:
            return Batch("id: 2\n\n", 2, False)
        return Batch("", after, False)

    sent: dict[str, list[tuple[float, dict]]] = {"first": [], "second": []}

    def stream(name: str) -> asyncio.Task:
        async def send(message: dict) -> None:
            sent[name].append((time.monotonic(), message))

        follow = Stream(game_id, None, 1, timeout=1.0, heartbeat=30.0, batch=batch, release=lambda: None)
        return asyncio.create_task(app._stream(follow, send, asyncio.get_running_loop().create_future()))

    async def follow_both() -> float:
        first = stream("first")
        await asyncio.sleep(0.05)  # (the first has read, found nothing, and waits)
        second = stream("second")
        await asyncio.sleep(0.05)  # (the second's read runs)
        committed.set()
        announced = time.monotonic()
        app.hub._followed[game_id]._heard(2)  # (the append's announcement)
        await asyncio.gather(first, second)
        return announced

    try:
        announced = asyncio.run(follow_both())
    finally:
        games.store.close()
    delivered = next(at for at, message in sent["first"] if message["body"].startswith(b"id: 2"))
    assert delivered - announced < 0.2, f"the first stream got the append {delivered - announced:.2f} s after it"


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
    schema made for each page read."""
    games = sqlite_games
    game_id, tokens = _scat_of_two(games)
    flask = create_app(games, CARDHALL_RATE_LIMIT="off")
    app = FollowingApp(flask, 2)
    answered: list[bytes] = []

    async def send(message: dict) -> None:
        if message["type"] == "http.response.body":
            answered.append(message["body"])

    move = partial(_draw_or_discard, games, game_id, tokens)

    async def follow(rounds: int) -> int:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, move)  # (the threads and the hub are made before counting)
        gc.collect()
        for _ in range(rounds):
            version = games.table(game_id).version
            follow = LongPoll(game_id, version, 5.0, release=lambda: None,
                              page=woken_page(flask, games, game_id, None, version, 100))
            poll = asyncio.create_task(app._long_poll(follow, {}, send, loop.create_future()))
            await asyncio.sleep(0.01)
            await loop.run_in_executor(None, move)
            await poll
        return gc.collect()

    gc.disable()
    try:
        left = asyncio.run(follow(30))
    finally:
        gc.enable()
    assert len(answered) == 30 and all(b'"events":[{' in body for body in answered)
    assert left < 30, f"{left} objects left to the collector by 30 long-polls"


def test_a_stream_woken_by_each_move_reads_the_log_without_the_version_and_then_waits(sqlite_games: GameService):
    """What a woken stream sends is read up to the version announced (no read of the version), and once
    it is sent the stream waits for the next announcement: a second read straight after, which found
    nothing, used to cost each delivery twice the reads."""
    games = sqlite_games
    game_id, tokens = _scat_of_two(games)
    app = FollowingApp(create_app(games, CARDHALL_RATE_LIMIT="off"), 2)
    reads: list[str] = []

    def counting(name: str) -> Callable[..., Any]:
        reading = getattr(games.store, name)

        def counted(*args: Any, **kwargs: Any) -> Any:
            if threading.current_thread().name.startswith("cardhall-http"):  # (the followers' reads alone)
                reads.append(name)
            return reading(*args, **kwargs)

        return counted

    for name in ("read", "last_version"):
        setattr(games.store, name, counting(name))
    frames: list[bytes] = []

    async def send(message: dict) -> None:
        frames.append(message["body"])

    move = partial(_draw_or_discard, games, game_id, tokens)

    async def follow_five_moves() -> None:
        loop = asyncio.get_running_loop()
        start = games.table(game_id).version
        follow = Stream(game_id, None, start, timeout=30.0, heartbeat=30.0,
                        batch=partial(stream_batch, games, game_id, None), release=lambda: None)
        stream = asyncio.create_task(app._stream(follow, send, gone := loop.create_future()))
        await asyncio.sleep(0.2)  # (its first read is made: it waits)
        reads.clear()
        for _ in range(5):
            version = await loop.run_in_executor(None, move)
            while not any(f"id: {version}\n".encode() in frame for frame in frames):
                await asyncio.sleep(0.005)
        await asyncio.sleep(0.2)  # (time for any read more)
        gone.set_result(None)
        await stream

    asyncio.run(follow_five_moves())
    # (a read may come twice for one move: when the stream reads before the move's thread has cached the
    # table it wrote, the table is brought up to date from the log first)
    assert "last_version" not in reads and 5 <= len(reads) < 10, reads


def test_a_stream_of_a_finished_game_longer_than_a_page_sends_every_event_once_in_order_and_ends(
        sqlite_games: GameService):
    """A finished game of 1,789 events, streamed from the start in reads of at most 1,000: every event once,
    in order, and the stream ends as soon as the last is sent, not after a wait for news that will never
    come (on the loop, and in a thread without it)."""
    games = sqlite_games
    game_id = games.create_game("craits", 4, {"seed": 7})["id"]
    for _ in range(4):
        games.join(game_id, bot="random")
    last = games.table(game_id).version
    assert games.table(game_id).status == "finished" and last > 1000
    app = FollowingApp(create_app(games, CARDHALL_RATE_LIMIT="off"), 2)
    sent: list[bytes] = []

    async def send(message: dict) -> None:
        sent.append(message["body"])

    follow = Stream(game_id, None, 0, timeout=30.0, heartbeat=30.0,
                    batch=partial(stream_batch, games, game_id, None), release=lambda: None)

    async def stream() -> None:
        await app._stream(follow, send, asyncio.get_running_loop().create_future())

    started = time.monotonic()
    asyncio.run(stream())
    on_loop = time.monotonic() - started
    threaded = "".join(_sse(games, game_id, None, 0, 30.0, 30.0, lambda: False))
    ids = [int(line[4:]) for line in b"".join(sent).decode().splitlines() if line.startswith("id: ")]
    assert ids == list(range(1, last + 1)) and sent[-1] == b""
    assert on_loop < 5
    assert [int(line[4:]) for line in threaded.splitlines() if line.startswith("id: ")] == ids


def _draw_or_discard(games: GameService, game_id: str, tokens: list[str]) -> int:
    """A draw or a discard in a game of Scat by the seat to act (its token among ``tokens``); the version it wrote."""
    for token in tokens:
        view = games.view(game_id, token)
        if view["seat"] in view["to_act"]:
            chosen = next(m for m in view["legal_moves"] if m["type"] in ("draw", "discard"))
            return games.move(game_id, token, chosen, expected_version=view["version"]).body["version"]
    raise AssertionError("nobody to act")

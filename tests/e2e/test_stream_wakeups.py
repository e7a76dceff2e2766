"""An event stream on the event loop (api.asgi) reads again only when there may be something new to send."""

from __future__ import annotations

import asyncio

import persistence
from api import create_app
from api.asgi import FollowingApp
from api.followers import Batch, Stream
from service.games import GameService


def test_a_stream_woken_to_nothing_it_can_read_waits_for_news_past_it_instead_of_spinning():
    """A wake-up for a version the stream's reads do not show (announced ahead of what this process can read)
    must not send the stream straight back to read, over and over: that spun the event loop of a server
    following 2,000 games until it answered nothing."""
    games = GameService(persistence.open_store("memory://"))
    game_id = games.create_game("scat", 2, {})["id"]
    app = FollowingApp(create_app(games, CARDHALL_RATE_LIMIT="off"), 2)
    reads: list[int] = []

    def batch(after: int) -> Batch:
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

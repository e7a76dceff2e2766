"""Followers of 20 games played by several processes through two servers see every event once, in order."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.integration.multiprocess_http import (
    new_game,
    play_games_round_robin,
    servers_over,
)

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.timeout(240)]
GAMES, MOVERS, SSE_GAMES = 20, 4, 20
DROP_STREAM_AFTER = 7  # an SSE follower hangs up after this many events and resumes on the other server


def follow_long_poll(bases: list[str], game_id: str, done: threading.Event) -> list[int]:
    """``events?after=`` in a loop, waiting up to 2 s, alternating servers; the versions seen until the end."""
    seen: list[int] = []
    with httpx.Client(timeout=30) as http:
        for request in range(1_000_000):
            over = done.is_set()  # read before the page: once play is over, a page with nothing new is the end
            answer = http.get(f"{bases[request % 2]}/v1/games/{game_id}/events",
                              params={"after": seen[-1] if seen else 0, "wait": 2, "limit": 25})
            if answer.status_code == 503:  # the server follows as many games as it can: as told, later
                time.sleep(float(answer.headers["Retry-After"]))
                continue
            page = answer.json()
            seen.extend(event["version"] for event in page["events"])
            if over and not page["events"]:
                return seen
    raise AssertionError("the follower never caught up")


def follow_stream(bases: list[str], game_id: str, done: threading.Event) -> list[int]:
    """The SSE stream, resumed with ``Last-Event-ID`` on the other server after every few events."""
    seen: list[int] = []
    for connection in range(1_000_000):
        over = done.is_set()
        headers = {"Last-Event-ID": str(seen[-1])} if seen else {}
        url = f"{bases[connection % 2]}/v1/games/{game_id}/events/stream"
        received = 0
        with httpx.stream("GET", url, params={"timeout": 5}, headers=headers, timeout=30) as stream:
            if stream.status_code == 503:
                time.sleep(float(stream.headers["Retry-After"]))
                continue
            for line in stream.iter_lines():
                if line.startswith("id: "):
                    seen.append(int(line.removeprefix("id: ")))
                    received += 1
                    if received == DROP_STREAM_AFTER:
                        break
        if over and not received:
            return seen
        if not received:
            time.sleep(0.1)  # the game is over but others still play: look again soon
    raise AssertionError("the stream follower never caught up")


def final_versions(base: str, game_ids: list[str]) -> dict[str, int]:
    with httpx.Client(base_url=base, timeout=30) as http:
        summaries = {game_id: http.get(f"/v1/games/{game_id}").json() for game_id in game_ids}
    assert {summary["status"] for summary in summaries.values()} == {"finished"}
    return {game_id: summary["version"] for game_id, summary in summaries.items()}


def test_followers_of_twenty_games_played_by_several_processes_see_every_event_once_in_order(
    postgres_database, tmp_path
):
    with servers_over(postgres_database(), tmp_path) as servers:
        bases = [server.base_url for server in servers]
        games = [new_game(bases[n % 2], "scat", 2 + n % 2, humans=1, seed=n, lives=2) for n in range(GAMES)]
        game_ids = [game_id for game_id, _ in games]
        done = threading.Event()
        followers: list[tuple[str, Callable[..., list[int]]]] = [(game_id, follow_long_poll) for game_id in game_ids]
        followers += [(game_id, follow_stream) for game_id in game_ids[:SSE_GAMES]]
        context = multiprocessing.get_context("forkserver")
        with ThreadPoolExecutor(len(followers)) as threads, context.Pool(MOVERS) as movers:
            watching = [threads.submit(follow, bases, game_id, done) for game_id, follow in followers]
            moves = movers.starmap(play_games_round_robin,
                                   [(bases, games[n::MOVERS], n) for n in range(MOVERS)], chunksize=1)
            done.set()
            seen = [(game_id, future.result(timeout=120)) for (game_id, _), future in zip(followers, watching)]
        assert sum(moves) > GAMES
        finals = final_versions(bases[0], game_ids)
        for game_id, versions in seen:
            assert versions == list(range(1, finals[game_id] + 1)), (game_id, versions)

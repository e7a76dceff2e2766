"""Deliveries benchmark: the CPU one delivery costs the server, in one process, through the app a worker serves.

Usage: ``python3 bench/deliveries.py [--followers 200] [--rounds 40] [--repeat 3] [--kinds long-poll,stream]``.

It builds the ASGI app ``cardhall serve`` runs (``api.asgi.create_asgi`` behind the guard, on an
SQLite file, rate limits off), makes a game of Scat (two seats, ten lives) and calls the app as
uvicorn does, without sockets, on a uvloop loop: for ``long-poll``, each round asks ``--followers``
spectators' ``events?after=V&wait=30`` (each checked on the loop as nothing is new: the quiet
long-poll), plays one move (in a thread, as a request would) and waits until every one is
answered; for ``stream``, as many streams stay open and each round waits until each has sent the
move's frame. The process's CPU time over the rounds (every thread's: the move, the shared
read, the loop), less that of the same rounds with no follower (the moves alone), over the
deliveries, is the CPU a delivery costs: the figure ``bench/followers.py`` leaves to a whole
machine's noise (client processes, the kernel's sockets, other tenants). A round's parts are
what a worker does for each follower: the head's checks, the router, the wait on the hub, the
read of the woken game (one for all), the page or frames, the answer and its access line.
Each row is the median of ``--repeat`` runs, every run beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import pathlib
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]  # (bench/http.py is not http)
sys.path.insert(0, str(HERE.parent))

import uvloop

import persistence
from api import create_app
from api.asgi import create_asgi
from api.guard import Limits, guarded
from bench import _common
from service.games import GameService
from tests import asgi_calls

Message = dict[str, Any]
HEADERS = ((b"host", b"127.0.0.1"), (b"user-agent", b"bench"), (b"accept", b"*/*"))


class Table:
    """One game, its two seats played by :meth:`move`, and the app serving it."""

    def __init__(self, directory: pathlib.Path) -> None:
        url = f"sqlite:///{directory / 'cardhall.db'}"
        persistence.upgrade(url)
        self.games = GameService(persistence.open_store(url))
        self.game_id = self.games.create_game("scat", 2, {"lives": 10})["id"]
        self.tokens = [self.games.join(self.game_id, name=f"p{seat}")["token"] for seat in range(2)]
        flask = create_app(self.games, CARDHALL_RATE_LIMIT="off", CARDHALL_SSE_HEARTBEAT=60.0,
                           CARDHALL_MAX_FOLLOWERS=100_000, CARDHALL_MAX_FOLLOWERS_PER_CLIENT=100_000)
        self.app = guarded(create_asgi(flask, 32), Limits())

    def move(self) -> int:
        """A draw or a discard by the seat to act (never a knock: the game goes on); the version it wrote."""
        for token in self.tokens:
            view = self.games.view(self.game_id, token)
            if view["seat"] in view["to_act"]:
                chosen = next(move for move in view["legal_moves"] if move["type"] in ("draw", "discard"))
                return self.games.move(self.game_id, token, chosen, expected_version=view["version"]).body["version"]
        raise RuntimeError("nobody to act")

    async def call(self, path: str, query: str, sent: Callable[[Message], None], gone: asyncio.Event) -> None:
        """The app's answer to one GET with a browser's few headers, as uvicorn hands it over, each message
        given to ``sent``; the client leaves once ``gone`` is set."""
        await asgi_calls.get(self.app, path, query, sent, gone, HEADERS)


async def cpu_of_rounds(table: Table, kind: str, followers: int, rounds: int) -> float:
    """CPU seconds of ``rounds`` moves, each delivered to ``followers`` long-polls or streams."""
    loop = asyncio.get_running_loop()
    version = await loop.run_in_executor(None, table.move)
    events = f"/v1/games/{table.game_id}/events"
    frames: list[bytes] = []
    gone = asyncio.Event()
    streams = []
    if kind == "stream":
        def framed(message: Message) -> None:
            if message.get("body"):
                frames.append(message["body"])

        streams = [asyncio.create_task(table.call(f"{events}/stream", f"after={version}&timeout=3600", framed, gone))
                   for _ in range(followers)]
        while len(frames) < followers:  # (each stream's opening comment: all are waiting)
            await asyncio.sleep(0.01)
    cpu = 0.0
    for _ in range(rounds):
        await asyncio.sleep(0.02)  # (what the last round left settles: its answers' clean-up)
        started, before = time.process_time(), len(frames)
        polls = [asyncio.create_task(table.call(events, f"after={version}&wait=30", lambda message: None, gone))
                 for _ in range(followers if kind == "long-poll" else 0)]
        await asyncio.sleep(0.03)  # (every long-poll waits)
        version = await loop.run_in_executor(None, table.move)
        await asyncio.gather(*polls)
        while len(frames) < before + (followers if kind == "stream" else 0):
            await asyncio.sleep(0.001)
        cpu += time.process_time() - started
    gone.set()
    await asyncio.gather(*streams)
    return cpu


def measure(kind: str, followers: int, rounds: int) -> float:
    """µs of CPU a delivery of ``kind`` costs: rounds with followers, less the same rounds without."""
    with tempfile.TemporaryDirectory(prefix="cardhall-deliveries-") as directory:
        table = Table(pathlib.Path(directory))
        try:
            alone = uvloop.run(cpu_of_rounds(table, kind, 0, rounds))
            followed = uvloop.run(cpu_of_rounds(table, kind, followers, rounds))
        finally:
            table.games.store.close()
    return (followed - alone) / (followers * rounds) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--followers", type=int, default=200, help="followers of the game, each round")
    parser.add_argument("--rounds", type=int, default=40, help="moves delivered a run")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each row; the median is printed")
    parser.add_argument("--kinds", default="long-poll,stream", help="long-poll and/or stream")
    args = parser.parse_args()
    rows = []
    for kind in args.kinds.split(","):
        runs = [measure(kind, args.followers, args.rounds) for _ in range(args.repeat)]
        rows.append([kind, args.followers, args.rounds, f"{_common.median(runs):.0f}",
                     " ".join(f"{run:.0f}" for run in runs)])
    _common.print_table(f"Deliveries: CPU per delivery in one process ({_common.load_average()})",
                        ["kind", "followers", "rounds", "µs CPU per delivery (median)", "each run"], rows,
                        "CPU: the process's, every thread; the same rounds without followers subtracted.")


if __name__ == "__main__":
    main()

"""Accounts benchmark: bot accounts each following its account's events, challenging each other in pairs.

    python3 bench/accounts.py                      # 500 accounts, SQLite x1 and PostgreSQL x2
    python3 bench/accounts.py --accounts 50 --rounds 2 --databases sqlite
    python3 bench/accounts.py --rate 0              # each round, every pair at once

Every account keeps one long-poll of ``GET /v1/account/events`` open at all times (as a bot
that lives on the platform does). The even account of every pair challenges the odd one by name;
the odd one accepts when its ``challenge`` event arrives, and the game starts. The challenges are
offered at ``--rate`` a second on a fixed schedule (open loop: each pair in turn, ``--rounds``
times over; as a latency target is read, at a load the server is meant to carry), or with
``--rate 0`` all the pairs of a round at once (a burst: what it measures is throughput).
Measured: from the challenge's POST being sent to ``gameStart`` arriving on each of the two
accounts' long-polls (p50, p99), the server's RSS (every process of it) after the run, and
errors (any answer that is not the one expected). Everything runs on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]  # (bench/http.py is no http)
sys.path.insert(0, str(HERE.parent))

import httpx

from bench._common import Databases, load_average, percentile, print_table, running

LONG_POLL = 25.0


class Bot:
    """One account: its key, and the events its long-poll loop has seen."""

    def __init__(self, name: str, key: str) -> None:
        self.name, self.key = name, key
        self.after = 0
        self.waiters: dict[str, asyncio.Future[object]] = {}  # what is awaited -> its value once it came
        self.errors = 0
        self.tasks: set[asyncio.Future[None]] = set()
        self.http: httpx.AsyncClient  # (its own, set once signed up)

    def expect(self, what: str) -> asyncio.Future[object]:
        return self.waiters.setdefault(what, asyncio.get_running_loop().create_future())

    async def follow(self, stop: asyncio.Event) -> None:
        headers = {"Authorization": f"Bearer {self.key}"}
        while not stop.is_set():
            try:
                # (each wait drawn anew, as independent bots' are: 500 long-polls begun in one second and
                # all ending together every LONG_POLL seconds would measure that herd, not a challenge)
                wait = round(random.uniform(LONG_POLL / 2, LONG_POLL), 1)
                answer = await self.http.get("/v1/account/events", params={"after": self.after, "wait": wait},
                                        headers=headers, timeout=LONG_POLL + 30)
            except httpx.HTTPError:
                self.errors += 1
                continue
            if answer.status_code != 200:
                self.errors += 1
                continue
            now = time.perf_counter()
            for event in answer.json()["events"]:
                self.after = event["id"]
                data = event["data"]
                if event["type"] == "challenge":
                    self.tasks.add(task := asyncio.ensure_future(self.accept(data["id"])))
                    task.add_done_callback(self.tasks.discard)
                elif event["type"] == "gameStart":
                    self.arrived(f"start:{data['game_id']}", now)

    def arrived(self, what: str, value: object) -> None:
        waiter = self.expect(what)
        if waiter.done():
            self.errors += 1  # (an event twice)
        else:
            waiter.set_result(value)

    async def accept(self, challenge_id: str) -> None:
        answer = await self.http.post(f"/v1/challenges/{challenge_id}/accept", headers={"Authorization": f"Bearer {self.key}"})
        if answer.status_code != 200:
            self.errors += 1
            return
        self.arrived(f"accepted:{challenge_id}", answer.json()["game_id"])


async def sign_up(http: httpx.AsyncClient, count: int) -> list[Bot]:
    bots = []
    for index in range(count):
        answer = await http.post("/v1/accounts", json={"name": f"bench{index}", "kind": "bot"})
        answer.raise_for_status()
        bots.append(Bot(f"bench{index}", answer.json()["key"]))
    return bots


async def round_of(pairs: list[tuple[Bot, Bot]]) -> tuple[list[float], int]:
    """Every pair's challenge at once; the latencies to gameStart on both sides, and the errors."""

    async def one(host: Bot, guest: Bot) -> list[float]:
        began = time.perf_counter()
        answer = await host.http.post("/v1/challenges", json={"game": "craits", "players": 2, "to": [guest.name],
                                                         "options": {"short": True}},
                                 headers={"Authorization": f"Bearer {host.key}"})
        if answer.status_code != 201:
            host.errors += 1
            return []
        game_id = await asyncio.wait_for(guest.expect(f"accepted:{answer.json()['id']}"), 60)
        arrived = await asyncio.wait_for(asyncio.gather(host.expect(f"start:{game_id}"),
                                                        guest.expect(f"start:{game_id}")), 60)
        return [moment - began for moment in arrived]

    results = await asyncio.gather(*(one(host, guest) for host, guest in pairs), return_exceptions=True)
    latencies = [value for result in results if isinstance(result, list) for value in result]
    return latencies, sum(1 for result in results if isinstance(result, BaseException))


async def paced(pairs: list[tuple[Bot, Bot]], rounds: int, rate: float
                ) -> tuple[list[float], int]:
    """Each pair's challenge in turn, ``rate`` a second on a fixed schedule, ``rounds`` times over."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    runs = []
    for number, (host, guest) in enumerate(pair for _ in range(rounds) for pair in pairs):
        await asyncio.sleep(max(0.0, began + number / rate - loop.time()))
        runs.append(asyncio.ensure_future(round_of([(host, guest)])))
    results = await asyncio.gather(*runs)
    return [value for found, _ in results for value in found], sum(lost for _, lost in results)


async def run(base_url: str, accounts: int, rounds: int, rate: float = 0.0) -> tuple[list[float], int]:
    async with contextlib.AsyncExitStack() as stack, httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        bots = await sign_up(http, accounts)
        stop = asyncio.Event()
        for bot in bots:
            # (a client each, as each bot is a program of its own: one pool of a thousand connections
            # costs httpx more to hand out a connection than the server spends on the request)
            bot.http = await stack.enter_async_context(httpx.AsyncClient(base_url=base_url, timeout=60))
        followers = [asyncio.ensure_future(bot.follow(stop)) for bot in bots]
        await asyncio.sleep(1.0)  # (every long-poll open)
        pairs = list(zip(bots[::2], bots[1::2], strict=False))
        latencies: list[float] = []
        failed = 0
        if rate > 0:
            latencies, failed = await paced(pairs, rounds, rate)
        for _ in range(rounds if rate <= 0 else 0):
            found, lost = await round_of(pairs)
            latencies += found
            failed += lost
        stop.set()
        for follower in followers:
            follower.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*followers, return_exceptions=True)
        return latencies, failed + sum(bot.errors for bot in bots)


def rss_mb(pid: int) -> float:
    """The resident memory of a process and its children, in MB."""
    total = 0
    for path in [Path(f"/proc/{pid}"), *Path("/proc").glob("[0-9]*")]:
        try:
            status = (path / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if path.name == str(pid) or fields.get("PPid", "").strip() == str(pid):
            total += int(fields.get("VmRSS", "0 kB").split()[0])
    return total / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--accounts", type=int, default=500, help="bot accounts, each with its long-poll (default 500)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one challenge a pair (default 3)")
    parser.add_argument("--databases", default="sqlite,postgresql", help="sqlite, postgresql or both")
    parser.add_argument("--rate", type=float, default=5.0,
                        help="challenges offered a second, on a fixed schedule (default 5); 0: every pair at once")
    args = parser.parse_args()
    rows = []
    with contextlib.ExitStack() as stack:
        databases = Databases(stack)
        for backend in args.databases.split(","):
            workers = 1 if backend == "sqlite" else 2
            with running(databases.new(backend), databases.workdir(), workers=workers, threads=64) as server:
                latencies, errors = asyncio.run(run(server.base_url, args.accounts, args.rounds, args.rate))
                assert server.process is not None
                rows.append([f"{backend} x{workers}", args.accounts, len(latencies),
                             f"{percentile(latencies, 0.5) * 1000:.1f}", f"{percentile(latencies, 0.99) * 1000:.1f}",
                             f"{rss_mb(server.process.pid):.0f}", errors])
    print_table("Accounts: challenge -> gameStart on both accounts' long-polls",
                ["server", "accounts", "gameStarts", "p50 ms", "p99 ms", "RSS MB", "errors"], rows,
                f"each account holding one long-poll open; "
                f"{f'{args.rate:g} challenges/s offered' if args.rate > 0 else 'every pair at once'}; {load_average()}")


if __name__ == "__main__":
    main()

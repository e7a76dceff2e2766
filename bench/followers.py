"""Followers benchmark: N followers watching 100 games while K clients play moves in them.

Usage: ``python3 bench/followers.py [--followers 0,100,1000,2000,5000] [--databases sqlite,postgresql]
[--movers 8] [--rate 100] [--games 100] [--seconds 15] [--repeat 1]`` (aiohttp, its client, is one of
Cardhall's own dependencies: the webhook calls use it).

For each database it starts ``cardhall serve`` on its default settings (rate limit
off: every follower comes from one address) with one worker on SQLite and two on
PostgreSQL, creates the games (Scat, two seats, ten lives, both seats played by
the movers) and then, for each N: opens N followers (half SSE streams, half
``events?wait=`` long-polls, no token, spread over the games), waits until the
server's ``/metrics`` counts them all, and for ``--seconds`` has K movers play
(GET the state, POST a move; a knock in one turn of fifty, so that games go on)
while a prober GETs ``/healthz``. The movers offer ``--rate`` moves a second between
them on a fixed schedule (open loop: the latency of a server at that load, the way an
SLO is read). The default, 100, is a move a second at each of the 100 tables: about
half of what the server sustains with 2,000 followers on a 2-core machine, a load at
which latency is worth reading. ``--rate 0`` plays as fast as answers come (closed
loop: the server saturated, so the ratio of move p99s measures the throughput lost to
the deliveries, whose server and client share the cores). It prints moves/s, move
p50/p99, ``/healthz`` p99, the delay from a move's commit (the event's
``recorded_at``) to each follower receiving it (p50/p99), deliveries missed (a
follower that did not reach its game's last version), errors (5xx, other
refusals, requests that failed or never answered; "game over": a game that ended, whose
followers no longer follow a live table), the server's RSS and CPU,
and the client's own CPU (it must not be the bottleneck).

The client is several asyncio processes: the movers and the prober in this one,
the followers spread over ``--follower-processes`` others. A single loop serving
thousands of followers and the movers too delayed the movers' own reads of their
answers (it was half a core busy at N = 2,000), which then counted as the
server's latency.

Client and server share the machine; on a machine shared with other work the
figures are noisy.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import datetime as dt
import json
import multiprocessing
import pathlib
import random
import resource
import sys
import time
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import aiohttp

from bench import _common

WORKERS = {"sqlite": 1, "postgresql": 2}
OUT_OF_TURN = {"announce", "call", "declare_31"}
#: The movers knock in one turn of this many (else they draw and discard): with random knocks a game
#: of ten lives ends after ~90 moves (38 at the least, 20 seeded games), within the first round; at
#: one in fifty it lasts 1,100 moves at the least, so every round follows live tables. A finished
#: game's streams close at once, and what its followers then do is not what this measures.
KNOCK_ONE_IN = 50
DRAW_AND_DISCARD = {*OUT_OF_TURN, "knock"}
LONG_POLL_WAIT = 20


@dataclasses.dataclass
class Tally:
    """What one round measured."""

    moves: list[float] = dataclasses.field(default_factory=list)
    healthz: list[float] = dataclasses.field(default_factory=list)
    deliveries: list[float] = dataclasses.field(default_factory=list)
    errors: dict[str, int] = dataclasses.field(default_factory=dict)
    measuring: bool = False

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


@dataclasses.dataclass
class Game:
    id: str
    tokens: list[str]
    version: int = 0


class Follower:
    """One follower of one game: the versions it has received."""

    def __init__(self, game: Game, tally: Tally) -> None:
        self.game, self.tally = game, tally
        self.after = game.version
        self.since = time.time()

    def received(self, events: list[dict[str, Any]]) -> None:
        now = time.time()
        for event in events:
            if event["version"] != self.after + 1:
                self.tally.error("out-of-order event")
            self.after = max(self.after, event["version"])
            committed = dt.datetime.fromisoformat(event["recorded_at"]).timestamp()
            if self.tally.measuring and committed >= self.since:
                self.tally.deliveries.append(now - committed)

    async def long_poll(self, http: aiohttp.ClientSession, base: str) -> None:
        url = f"{base}/v1/games/{self.game.id}/events"
        while True:
            try:
                async with http.get(url, params={"after": self.after, "wait": LONG_POLL_WAIT, "limit": 1000}) as answer:
                    if await self._refused(answer):
                        continue
                    self.received((await answer.json())["events"])
            except aiohttp.ClientError as error:
                self.tally.error(type(error).__name__)
                await asyncio.sleep(1)

    async def stream(self, http: aiohttp.ClientSession, base: str) -> None:
        """Follow the stream, as a browser's EventSource does: once it ends, connect again after the
        ``retry:`` it gave (a stream ends when its game does; at once again would spin)."""
        url = f"{base}/v1/games/{self.game.id}/events/stream"
        retry = 1.0
        while True:
            try:
                async with http.get(url, params={"timeout": 3600}, headers={"Last-Event-ID": str(self.after)}) as answer:
                    if await self._refused(answer):
                        continue
                    async for line in answer.content:
                        if line.startswith(b"data: "):
                            self.received([json.loads(line[6:])])
                        elif line.startswith(b"retry: "):
                            retry = int(line[7:]) / 1000
                await asyncio.sleep(retry)
            except aiohttp.ClientError as error:
                self.tally.error(type(error).__name__)
                await asyncio.sleep(1)

    async def _refused(self, answer: aiohttp.ClientResponse) -> bool:
        if answer.status == 200:
            return False
        self.tally.error(f"{answer.status}")
        await asyncio.sleep(float(answer.headers.get("Retry-After", 1)))
        return True


def follower_process(pipe: Any, base: str, games: list[Game], numbers: range) -> None:
    """A client process of its own for the followers numbered ``numbers`` (see :func:`open_followers`).

    It answers the parent's messages in turn: ``"measure"`` (deliveries from now on count),
    then the games' final versions (it waits for its followers to reach them, stops measuring,
    and sends back its deliveries, errors, missed deliveries and CPU seconds); then it closes
    its followers and exits."""
    asyncio.run(_follow_in_process(pipe, base, games, numbers))


async def _follow_in_process(pipe: Any, base: str, games: list[Game], numbers: range) -> None:
    loop = asyncio.get_running_loop()
    receive = lambda: loop.run_in_executor(None, pipe.recv)  # noqa: E731
    tally = Tally()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=LONG_POLL_WAIT + 30)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        followers, tasks = await open_followers(http, base, games, numbers, tally)
        pipe.send("opened")
        assert await receive() == "measure"
        cpu = client_cpu()
        tally.measuring = True
        finals = await receive()
        missed = await caught_up(finals, followers)
        tally.measuring = False
        pipe.send((tally.deliveries, tally.errors, missed, client_cpu() - cpu))
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def new_game(http: aiohttp.ClientSession, base: str, seed: int) -> Game:
    async with http.post(f"{base}/v1/games", json={"game": "scat", "players": 2,
                                                   "options": {"seed": seed, "lives": 10}}) as created:
        game_id = (await created.json())["id"]
    tokens = []
    for seat in range(2):
        async with http.post(f"{base}/v1/games/{game_id}/seats", json={"name": f"p{seat}"}) as joined:
            tokens.append((await joined.json())["token"])
    async with http.get(f"{base}/v1/games/{game_id}") as summary:
        return Game(game_id, tokens, (await summary.json())["version"])


async def mover(http: aiohttp.ClientSession, base: str, games: list[Game], tally: Tally, rng: random.Random,
                stop: asyncio.Event, interval: float = 0) -> None:
    """Play a move in each of ``games`` in turn (the seat to act, a random turn move) until ``stop``: as fast as
    the server answers, or one every ``interval`` seconds on a fixed schedule (a late move does not push the next
    ones back; it shows as the rate falling short)."""
    due = time.monotonic()
    while games and not stop.is_set():  # (a mover left no game, with more movers than games, has none to play)
        for game in games:
            if interval:
                due += interval
                await asyncio.sleep(max(0.0, due - time.monotonic()))
            if stop.is_set():
                return
            try:
                await play_one(http, base, game, tally, rng)
            except (aiohttp.ClientError, TimeoutError) as error:
                tally.error(type(error).__name__)


async def play_one(http: aiohttp.ClientSession, base: str, game: Game, tally: Tally, rng: random.Random) -> None:
    for token in game.tokens:
        auth = {"Authorization": f"Bearer {token}"}
        async with http.get(f"{base}/v1/games/{game.id}/state", headers=auth) as answer:
            view = await answer.json()
        if view["status"] != "active" or view["seat"] not in view["to_act"]:
            continue
        left_out = OUT_OF_TURN if rng.randrange(KNOCK_ONE_IN) == 0 else DRAW_AND_DISCARD
        moves = [move for move in view["legal_moves"] if move["type"] not in left_out] or view["legal_moves"]
        started = time.perf_counter()
        async with http.post(f"{base}/v1/games/{game.id}/moves", headers=auth,
                             json={**rng.choice(moves), "expected_version": view["version"]}) as moved:
            await moved.read()
            if moved.status != 201:
                tally.error(f"move {moved.status}")
                return
        if tally.measuring:
            tally.moves.append(time.perf_counter() - started)
        return


async def prober(http: aiohttp.ClientSession, base: str, tally: Tally, stop: asyncio.Event) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        try:
            async with http.get(f"{base}/healthz") as answer:
                await answer.read()
                if answer.status != 200:
                    tally.error(f"healthz {answer.status}")
        except (aiohttp.ClientError, TimeoutError) as error:  # (a timeout: not answered within 30 s)
            tally.error(f"healthz {type(error).__name__}")
        tally.healthz.append(time.perf_counter() - started)
        await asyncio.sleep(0.05)


async def open_followers(http: aiohttp.ClientSession, base: str, games: list[Game], numbers: range,
                         tally: Tally) -> tuple[list[Follower], list[asyncio.Task[None]]]:
    """The followers ``numbers`` (even: a stream, odd: a long-poll; follower n follows game n mod the games),
    opened at a steady pace."""
    followers, tasks = [], []
    for opened, number in enumerate(numbers, start=1):
        follower = Follower(games[number % len(games)], tally)
        follow = follower.stream if number % 2 == 0 else follower.long_poll
        followers.append(follower)
        tasks.append(asyncio.create_task(follow(http, base)))
        if opened % 100 == 0:
            await asyncio.sleep(0.1)
    return followers, tasks


async def current_versions(http: aiohttp.ClientSession, base: str, games: list[Game]) -> None:
    """Each game's version now: a round's followers follow live play from there, as the first round's do."""
    for game in games:
        async with http.get(f"{base}/v1/games/{game.id}") as summary:
            game.version = (await summary.json())["version"]


async def open_count(http: aiohttp.ClientSession, base: str) -> float:
    async with http.get(f"{base}/metrics") as answer:
        text = await answer.text()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("cardhall_followers_open{"))


async def until_open(http: aiohttp.ClientSession, base: str, count: int, patience: float = 120) -> None:
    """Until the server counts nearly all ``count`` open (a long-poll between two polls is not)."""
    deadline = time.monotonic() + patience
    while True:
        with contextlib.suppress(TimeoutError):  # (a scrape queued behind thousands of followers opening)
            if await open_count(http, base) >= 0.95 * count:
                return
        if time.monotonic() > deadline:
            raise SystemExit(f"the server never counted {count} followers open")
        await asyncio.sleep(0.5)


def process_tree(pid: int) -> list[int]:
    children = pathlib.Path(f"/proc/{pid}/task/{pid}/children")
    return [pid, *(child for text in children.read_text().split() for child in process_tree(int(text)))]


def server_usage(pid: int) -> tuple[float, float]:
    """The server's CPU seconds and resident MiB (its process and its workers)."""
    cpu = rss = 0.0
    for process in process_tree(pid):
        with contextlib.suppress(OSError):
            fields = pathlib.Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / 100
            rss += int(fields[21]) * resource.getpagesize() / 2**20
    return cpu, rss


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def round_of(base: str, pid: int, games: list[Game], count: int, args: argparse.Namespace) -> list[object]:
    """One N: open the followers (in processes of their own), measure while the movers play, check every
    follower caught up."""
    tally = Tally()
    loop = asyncio.get_running_loop()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as players:
        await current_versions(players, base, games)  # (else later rounds' followers replay the games' history)
        processes = []
        for share in range(min(args.follower_processes, count)):
            mine, theirs = multiprocessing.Pipe()
            process = multiprocessing.get_context("spawn").Process(
                target=follower_process, args=(theirs, base, games, range(share, count, args.follower_processes)))
            process.start()
            processes.append((process, mine))
        for _, pipe in processes:
            assert await loop.run_in_executor(None, pipe.recv) == "opened"
        await until_open(players, base, count)
        stop = asyncio.Event()
        rng = random.Random(count)
        cpu_before, client_before, started = server_usage(pid)[0], client_cpu(), time.monotonic()
        for _, pipe in processes:
            pipe.send("measure")
        tally.measuring = True
        interval = args.movers / args.rate if args.rate else 0  # (each mover's share of the rate)
        playing = [asyncio.create_task(mover(players, base, games[n::args.movers], tally, rng, stop, interval))
                   for n in range(args.movers)]
        playing.append(asyncio.create_task(prober(players, base, tally, stop)))
        await asyncio.sleep(args.seconds)
        stop.set()
        await asyncio.gather(*playing)
        elapsed = time.monotonic() - started
        cpu_after, rss = server_usage(pid)
        client_used = client_cpu() - client_before
        tally.measuring = False
        finals = await final_versions(players, base, games, tally)
        missed = 0
        for process, pipe in processes:
            pipe.send(finals)
            deliveries, errors, their_missed, their_cpu = await loop.run_in_executor(None, pipe.recv)
            tally.deliveries += deliveries
            for kind, number in errors.items():
                tally.errors[kind] = tally.errors.get(kind, 0) + number
            missed += their_missed
            client_used += their_cpu  # (their CPU from the start of the measure to their last delivery)
            await loop.run_in_executor(None, process.join)
        await until_closed(players, base)
    return row(count, tally, elapsed, missed, (cpu_after - cpu_before) / elapsed, rss, client_used / elapsed)


async def final_versions(http: aiohttp.ClientSession, base: str, games: list[Game], tally: Tally) -> dict[str, int]:
    """Every game's version once the movers stopped (a read not answered within the session's timeout counts as
    an error, and is asked again)."""
    finals: dict[str, int] = {}
    for game in games:
        while game.id not in finals:
            try:
                async with http.get(f"{base}/v1/games/{game.id}") as answer:
                    summary = await answer.json()
                finals[game.id] = summary["version"]
                if summary["status"] != "active":
                    tally.error("game over")  # (its followers no longer follow a live table: see KNOCK_ONE_IN)
            except TimeoutError:
                tally.error("summary TimeoutError")
    return finals


async def caught_up(finals: dict[str, int], followers: list[Follower], patience: float = 10) -> int:
    """Deliveries still missing once every follower had ``patience`` seconds to reach its game's last version."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        missing = sum(finals[f.game.id] - f.after for f in followers if f.after < finals[f.game.id])
        if not missing:
            return 0
        await asyncio.sleep(0.2)
    return missing


async def until_closed(http: aiohttp.ClientSession, base: str, patience: float = 30) -> None:
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        with contextlib.suppress(TimeoutError):
            if await open_count(http, base) == 0:
                return
        await asyncio.sleep(0.5)


def row(count: int, tally: Tally, elapsed: float, missed: int, server_cpu: float, rss: float,
        client: float) -> list[object]:
    ms = lambda samples, q: f"{_common.percentile(samples, q) * 1000:.1f}"  # noqa: E731
    errors = ", ".join(f"{kind}: {n}" for kind, n in sorted(tally.errors.items())) or "0"
    return [count, f"{len(tally.moves) / elapsed:.0f}", ms(tally.moves, 0.5), ms(tally.moves, 0.99),
            ms(tally.healthz, 0.99), ms(tally.deliveries, 0.5), ms(tally.deliveries, 0.99), len(tally.deliveries),
            missed, errors, f"{rss:.0f}", f"{server_cpu:.0%}", f"{client:.0%}"]


async def games_on(base: str, count: int) -> list[Game]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
        return [await new_game(http, base, seed) for seed in range(count)]


def bench_database(databases: _common.Databases, backend: str, args: argparse.Namespace) -> list[list[object]]:
    """Every N, ``--repeat`` times over (in rounds, on one server), then with ``--repeat`` over 1 and N = 0 among
    the counts a line of medians for each other N: its move p99 over the same round's at N = 0, its delivery p99."""
    rows: list[list[object]] = []
    workers = WORKERS[backend]
    server_name = f"{backend} ×{workers}"
    # (every follower comes from this one address: it may hold them all, and as many connections)
    with _common.running(databases.new(backend), databases.workdir(), workers=workers, threads=args.threads,
                         options=("--max-followers-per-client", "100000",
                                  "--max-connections-per-address", "100000")) as server:
        games = asyncio.run(games_on(server.base_url, args.games))
        for repeat in range(args.repeat):
            for count in args.followers:
                result = asyncio.run(round_of(server.base_url, server.process.pid, games, count, args))
                rows.append([server_name if args.repeat == 1 else f"{server_name} #{repeat + 1}", *result])
                print(" ".join(str(cell) for cell in rows[-1]), file=sys.stderr, flush=True)
    return rows if args.repeat == 1 else [*rows, *medians(server_name, args.followers, rows)]


#: Where a row of the table (the server's name, then :func:`row`'s cells) has its move p99 and its delivery p99.
MOVE_P99, DELIVERY_P99 = 4, 7


def medians(server_name: str, counts: list[int], rows: list[list[object]]) -> list[list[object]]:
    """For each N, the median over the rounds of its move p99 as a multiple of the same round's at N = 0 (the
    host's speed drifts between rounds, and with it both) and of its delivery p99."""
    if 0 not in counts:
        return []
    idle = counts.index(0)
    per_round = [rows[start:start + len(counts)] for start in range(0, len(rows), len(counts))]
    lines: list[list[object]] = []
    for index, count in enumerate(counts):
        if index == idle:
            continue
        ratios = [float(str(each[index][MOVE_P99])) / float(str(each[idle][MOVE_P99])) for each in per_round]
        delivery = [float(str(each[index][DELIVERY_P99])) for each in per_round]
        lines.append([f"{server_name} median", count, "", "", f"{_common.median(ratios):.2f}× N = 0", "", "",
                      f"{_common.median(delivery):.1f}", "", "", "", "", "", ""])
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--followers", default="0,100,1000,2000,5000", help="follower counts N, comma-separated")
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--movers", type=int, default=8, help="clients playing moves (K)")
    parser.add_argument("--rate", type=float, default=100,
                        help="moves per second the K movers offer together, on a fixed schedule (open loop; "
                             "100: a move a second at each of 100 tables); "
                             "0: each plays as fast as it is answered (closed loop: the server saturated)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=15, help="how long each N is measured")
    parser.add_argument("--threads", type=int, default=32, help="the server's threads per worker (the serve default)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure every N this many times, in rounds on one server, and print the medians too")
    parser.add_argument("--follower-processes", type=int, default=2,
                        help="client processes the followers are spread over (the movers have their own)")
    args = parser.parse_args()
    args.followers = [int(n) for n in args.followers.split(",")]
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # (a socket per follower)
    rows = []
    with contextlib.ExitStack() as stack:
        databases = _common.Databases(stack)
        for backend in args.databases.split(","):
            rows += bench_database(databases, backend, args)
    _common.print_table(
        f"Followers over {args.games} games, {args.movers} movers"
        f"{f' offering {args.rate:g} moves/s' if args.rate else ' at full speed'}, {args.seconds:.0f} s each "
        f"({_common.load_average()})",
        ["server", "N", "moves/s", "move p50 ms", "move p99 ms", "/healthz p99 ms", "delivery p50 ms",
         "delivery p99 ms", "deliveries", "missed", "errors", "RSS MiB", "server CPU", "client CPU"], rows,
        "CPU: of one core (the machine has two); the client's: its processes' together. "
        "Delivery: from the event's recorded_at to the follower reading it.")


if __name__ == "__main__":
    main()

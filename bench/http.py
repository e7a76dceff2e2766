"""HTTP benchmark: whole games over a real server against the framework ceiling, in one run.

Usage: ``python3 bench/http.py [--clients 8,32,128] [--workers 1,2] [--databases sqlite,postgresql]
[--seconds 8] [--threads 32] [--game scat] [--players 3] [--bot random] [--repeat 1]``.

For every database, worker count and client count it starts ``cardhall serve``
(gunicorn, uvicorn workers) on 127.0.0.1 over a fresh database and runs, with the same
client (asyncio, one keep-alive HTTP/1.1 connection per client, see
:class:`Connection`):

1. ``/healthz`` — K clients GET ``/healthz`` back to back, half the given time
   before the games and half after: the framework ceiling (the server, the ASGI app's Flask mount, routing,
   flask-smorest serialisation, one ``SELECT 1``);
2. games — K bot clients, each playing its own games to the end, one person seat
   against house bots: create the game, take a seat, seat the house bots, then
   until it is over: read the state (``GET /state``; when it is not its turn,
   long-poll ``GET /events?wait``), then POST one of its legal moves with
   ``expected_version``. Every request counts, set-up included.

Moves/s counts the clients' moves (each POST also appends the house bots' turns).
Move latency is the POST's round trip as the client sees it. Client and server
share the machine, so the client's own CPU use is printed too, and the whole
machine's CPU time per request of each phase (``/proc/stat``: every process —
server, database, client — and the kernel): where the machine is saturated, the
ratio of those two is what bounds game/healthz.

On a shared machine one run of a row can move by ±8 points of game/healthz: with
``--repeat N`` each row is measured N times (in rounds over the client counts, on
the same server) and the run with the median ratio is printed, with every run's
ratio beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import pathlib
import random
import sys
import time
from typing import Any

# Run as a script, this file's directory comes first on sys.path, where this
# module's name would hide the standard library's http (which httpx imports).
HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from bench import _common


@dataclasses.dataclass
class Tally:
    """What one phase did."""

    requests: int = 0
    moves: int = 0
    games: int = 0
    errors: int = 0
    latencies: list[float] = dataclasses.field(default_factory=list)
    machine_cpu: float | None = None  # the whole machine's busy CPU seconds during the phase


class Connection:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1: a request at a time, JSON in and out.

    A few lines of asyncio instead of httpx, whose own CPU cost (about 0.3 ms a request)
    capped the figures below the server's once 32 clients shared a core with it.
    """

    def __init__(self, port: int, tally: Tally) -> None:
        self.port, self.tally = port, tally
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        """Send one request; the JSON answer (an error status raises)."""
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {_common.HOST}:{self.port}", f"Content-Length: {len(payload)}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        if body is not None:
            lines.append("Content-Type: application/json")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + payload
        for attempt in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(_common.HOST, self.port)
            assert self.reader is not None
            self.writer.write(message)
            status_line = await self.reader.readline()
            if status_line or attempt:
                break
            self.writer = None  # the server closed an idle keep-alive connection: reconnect once
        status = int(status_line.split()[1])
        length, close = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
        answer = await self.reader.readexactly(length)
        if close:
            self.writer.close()
            self.writer = None
        self.tally.requests += 1
        if status >= 400:
            self.tally.errors += 1
            raise RuntimeError(f"{method} {path}: {status} {answer[:300]!r}")
        return json.loads(answer)

    def close(self) -> None:
        """Close the connection."""
        if self.writer is not None:
            self.writer.close()


async def hammer_health(client: Connection, deadline: float, args: argparse.Namespace, rng: random.Random) -> None:
    """GET /healthz back to back until the deadline."""
    while time.monotonic() < deadline:
        await client.request("GET", "/healthz")


async def play_games(client: Connection, deadline: float, args: argparse.Namespace, rng: random.Random) -> None:
    """Play whole games, one after another, until the deadline (the game then running is abandoned)."""
    tally = client.tally
    options = {"short": True} if args.game == "craits" else {}
    while time.monotonic() < deadline:
        created = await client.request("POST", "/v1/games",
                                       {"game": args.game, "players": args.players, "options": options})
        path = f"/v1/games/{created['id']}"
        joined = await client.request("POST", f"{path}/seats", {"name": "bench"})
        auth = {"Authorization": f"Bearer {joined['token']}"}
        for _ in range(args.players - 1):
            await client.request("POST", f"{path}/seats", {"bot": args.bot})
        while time.monotonic() < deadline:
            view = await client.request("GET", f"{path}/state", headers=auth)
            if view["status"] == "finished":
                tally.games += 1
                break
            if not view["legal_moves"]:
                await client.request("GET", f"{path}/events?after={view['version']}&wait=5", headers=auth)
                continue
            move = {**rng.choice(view["legal_moves"]), "expected_version": view["version"]}
            started = time.perf_counter()
            await client.request("POST", f"{path}/moves", move, auth)
            tally.latencies.append(time.perf_counter() - started)
            tally.moves += 1


async def run_phase(port: int, clients: int, args: argparse.Namespace, work: Any) -> tuple[Tally, float, float]:
    """Run ``work`` in ``clients`` tasks, a connection each; the tally, seconds and the client's CPU share."""
    tally = Tally()
    connections = [Connection(port, tally) for _ in range(clients)]
    for connection in connections:  # connect before the clock starts
        await connection.request("GET", "/healthz")
    tally.requests = 0
    machine = _common.machine_cpu_seconds()
    cpu, started = time.process_time(), time.monotonic()
    deadline = started + args.seconds
    results = await asyncio.gather(
        *(work(connection, deadline, args, random.Random(args.seed + index))
          for index, connection in enumerate(connections)),
        return_exceptions=True)
    elapsed = time.monotonic() - started
    client_cpu = (time.process_time() - cpu) / elapsed
    after = _common.machine_cpu_seconds()
    tally.machine_cpu = None if machine is None or after is None else after - machine
    for connection in connections:
        connection.close()
    failures = [result for result in results if isinstance(result, BaseException)]
    if failures:
        raise failures[0]
    return tally, elapsed, client_cpu


def measure(port: int, clients: int, args: argparse.Namespace) -> dict[str, float]:
    """One row: the game workload between two halves of the /healthz ceiling, against the same server.

    Halving /healthz around the games (A-B-A) lets both figures see the same mean load
    when the machine is shared and its load drifts.
    """
    half = argparse.Namespace(**{**vars(args), "seconds": args.seconds / 2})
    before, before_s, before_cpu = asyncio.run(run_phase(port, clients, half, hammer_health))
    games, games_s, games_cpu = asyncio.run(run_phase(port, clients, args, play_games))
    after, after_s, after_cpu = asyncio.run(run_phase(port, clients, half, hammer_health))
    health = Tally(requests=before.requests + after.requests, errors=before.errors + after.errors)
    if before.machine_cpu is not None and after.machine_cpu is not None:
        health.machine_cpu = before.machine_cpu + after.machine_cpu
    health_s, health_cpu = before_s + after_s, max(before_cpu, after_cpu)
    health_rate, game_rate = health.requests / health_s, games.requests / games_s
    return {
        "healthz": health_rate,
        "requests": game_rate,
        "ratio": game_rate / health_rate,
        "moves": games.moves / games_s,
        "games": games.games,
        "p50": _common.percentile(games.latencies, 0.50) * 1000,
        "p95": _common.percentile(games.latencies, 0.95) * 1000,
        "p99": _common.percentile(games.latencies, 0.99) * 1000,
        "errors": health.errors + games.errors,
        "client_cpu": max(health_cpu, games_cpu),
        "healthz_ms": _per_request_ms(health),
        "game_ms": _per_request_ms(games),
    }


def _per_request_ms(tally: Tally) -> str:
    """The whole machine's CPU milliseconds per request of a phase ("-" where unknown)."""
    if tally.machine_cpu is None or not tally.requests:
        return "-"
    return f"{tally.machine_cpu * 1000 / tally.requests:.2f}"


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="8,32,128", help="concurrent clients, comma-separated")
    parser.add_argument("--workers", default="1,2", help="gunicorn worker counts, comma-separated")
    parser.add_argument("--databases", default="sqlite,postgresql", help="sqlite and/or postgresql")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each phase")
    parser.add_argument("--threads", type=int, default=32, help="threads per worker (the serve default)")
    parser.add_argument("--rate-limit", default="off",
                        help="the server's --rate-limit (default off; a limit never met measures the limiter's cost)")
    parser.add_argument("--game", default="scat", choices=["scat", "craits"],
                        help="scat (a game is about 15 moves of the client) or craits (short: about 100)")
    parser.add_argument("--players", type=int, default=3, help="one person seat, the rest house bots")
    parser.add_argument("--bot", default="random", choices=["random", "greedy"], help="the house bots")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=1,
                        help="measure each row this many times, in rounds, and print the run with the median ratio")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    rows = []
    with contextlib.ExitStack() as stack:
        databases = _common.Databases(stack)
        for backend in args.databases.split(","):
            for workers in map(int, args.workers.split(",")):
                with _common.running(databases.new(backend), databases.workdir(),
                                     workers=workers, threads=args.threads, rate_limit=args.rate_limit) as server:
                    client_counts = list(map(int, args.clients.split(",")))
                    runs: dict[int, list[dict[str, Any]]] = {clients: [] for clients in client_counts}
                    for _ in range(args.repeat):  # (rounds over every client count: a drifting load spreads over all)
                        for clients in client_counts:
                            runs[clients].append(measure(server.port, clients, args))
                    for clients in client_counts:
                        rows.append([backend, workers, clients, *_row(runs[clients])])
    _common.print_table(
        f"HTTP: {args.game}, {args.players} players (1 client + {args.players - 1} {args.bot} house bots), "
        f"{args.seconds:g} s per phase, {args.threads} threads per worker"
        + (f", the median of {args.repeat} runs a row" if args.repeat > 1 else ""),
        ["database", "workers", "clients", "healthz req/s", "game req/s", "game/healthz", "moves/s",
         "games done", "move p50 ms", "p95 ms", "p99 ms", "errors", "client CPU",
         "machine CPU ms per healthz", "per game req"] + (["game/healthz, each run"] if args.repeat > 1 else []),
        rows, note=_common.load_average())


def _row(runs: list[dict[str, Any]]) -> list[Any]:
    """A row's cells: the run with the median game/healthz (the lower middle of an even count),
    its errors the sum of every run's, and with several runs each run's ratio in the order run."""
    middle = sorted(runs, key=lambda run: run["ratio"])[(len(runs) - 1) // 2]
    cells = [f"{middle['healthz']:,.0f}", f"{middle['requests']:,.0f}", f"{middle['ratio']:.0%}",
             f"{middle['moves']:,.0f}", middle["games"], f"{middle['p50']:.1f}", f"{middle['p95']:.1f}",
             f"{middle['p99']:.1f}", sum(run["errors"] for run in runs), f"{middle['client_cpu']:.0%}",
             middle["healthz_ms"], middle["game_ms"]]
    if len(runs) > 1:
        cells.append(" ".join(f"{run['ratio']:.0%}" for run in runs))
    return cells


if __name__ == "__main__":
    main()

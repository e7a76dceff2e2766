"""Moves per second on PostgreSQL with one and with two server processes.

Usage: ``python3 bench/pg_throughput.py [--processes 1,2] [--clients 8,32] [--seconds 10] [--workers 1]
[--game scat] [--players 3] [--database URL]``.

For each number of server processes P it starts P separate ``cardhall serve``
processes (``--workers`` gunicorn workers each, as P hosts would run them) over
one fresh PostgreSQL database — ``--database`` (a server where databases may be
created), else ``CARDHALL_TEST_POSTGRES_URL``, else a throwaway cluster from
this machine's PostgreSQL binaries — and for each client count K runs K
concurrent clients over real HTTP (asyncio + httpx, one keep-alive connection
each, client k talking to server k mod P). Every client plays its own games,
one person seat against house bots: after the set-up (create, join, seat the
bots; not timed) each of its moves is one request, since a move's answer holds
the mover's next view (the bots' turns are appended with the move). Latency
is a move's round trip as the client sees it; client and servers share the
machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import random
import statistics
import sys
import tempfile
import time

# Run as a script, this file's directory would come first on sys.path, where a
# sibling module (bench/http.py) would hide the standard library's http.
HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import httpx

from bench._common import postgres_server
from tests import pg
from tests.e2e.server import start_server


async def play(client: httpx.AsyncClient, deadline: float, args: argparse.Namespace, rng: random.Random,
               latencies: list[float]) -> None:
    """Play whole games until the deadline, recording each move's round trip."""
    while time.monotonic() < deadline:
        created = (await client.post("/v1/games", json={"game": args.game, "players": args.players})).json()
        path = f"/v1/games/{created['id']}"
        joined = (await client.post(f"{path}/seats", json={"name": "bench"})).json()
        auth = {"Authorization": f"Bearer {joined['token']}"}
        for _ in range(args.players - 1):
            (await client.post(f"{path}/seats", json={"bot": "random"})).raise_for_status()
        view = (await client.get(f"{path}/state", headers=auth)).json()
        while view["status"] == "active" and time.monotonic() < deadline:
            if view["seat"] not in view["to_act"]:
                view = (await client.get(f"{path}/state", headers=auth)).json()
                continue
            move = {**rng.choice(view["legal_moves"]), "expected_version": view["version"]}
            started = time.perf_counter()
            answer = await client.post(f"{path}/moves", json=move, headers=auth)
            latencies.append(time.perf_counter() - started)
            if answer.status_code != 201:
                raise RuntimeError(f"a move got {answer.status_code}: {answer.text}")
            view = answer.json()


async def run(bases: list[str], clients: int, args: argparse.Namespace) -> tuple[list[float], float]:
    """K clients spread over the servers for ``args.seconds``; the move latencies and the seconds taken."""
    latencies: list[float] = []
    http = [httpx.AsyncClient(base_url=bases[k % len(bases)], timeout=60) for k in range(clients)]
    try:
        await asyncio.gather(*(client.get("/healthz") for client in http))  # connected before the clock starts
        started = time.monotonic()
        deadline = started + args.seconds
        await asyncio.gather(*(play(client, deadline, args, random.Random(args.seed + k), latencies)
                               for k, client in enumerate(http)))
        return latencies, time.monotonic() - started
    finally:
        await asyncio.gather(*(client.aclose() for client in http))


def quantile(samples: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered)) - 1))]


def measure(server_url: str, processes: int, args: argparse.Namespace, directory: pathlib.Path) -> list[list[str]]:
    """Rows of the table for ``processes`` server processes over one fresh database."""
    database = pg.create_database(server_url)
    rows = []
    servers = []
    try:
        for number in range(processes):
            servers.append(start_server(directory, database=database, workers=args.workers, startup=60,
                                        log_name=f"p{processes}-server{number}.log"))
        for clients in map(int, args.clients.split(",")):
            latencies, seconds = asyncio.run(run([server.base_url for server in servers], clients, args))
            rows.append([processes, clients, len(latencies), f"{seconds:.1f}", f"{len(latencies) / seconds:.0f}",
                         f"{statistics.median(latencies) * 1000:.1f}", f"{quantile(latencies, 0.95) * 1000:.1f}"])
    finally:
        for server in servers:
            server.stop()
        pg.drop_database(server_url, database)
    return rows


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", default="1,2", help="server process counts, comma-separated")
    parser.add_argument("--clients", default="8,32", help="concurrent clients, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each measurement")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers per server process")
    parser.add_argument("--game", default="scat", choices=["scat", "craits"])
    parser.add_argument("--players", type=int, default=3, help="one person seat, the rest random house bots")
    parser.add_argument("--database", help="a PostgreSQL server URL (default: see the module docstring)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    rows = []
    with postgres_server(args.database) as server_url, tempfile.TemporaryDirectory() as directory:
        for processes in map(int, args.processes.split(",")):
            rows += measure(server_url, processes, args, pathlib.Path(directory))
    header = ["processes", "clients", "moves", "seconds", "moves/s", "p50 ms", "p95 ms"]
    print(f"PostgreSQL, {args.game} with {args.players} players (1 client + {args.players - 1} random bots), "
          f"{args.workers} worker(s) per server process, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in [header, *rows]:
        print("  ".join(str(cell).rjust(width) for cell, width in zip(row, widths)))


if __name__ == "__main__":
    main()

"""Clock benchmark: how fast the sweeper times out a burst of expired turns, and what it costs idle.

Usage: ``python3 bench/clocks.py [--games 10000] [--expired 1000] [--sweepers 1] [--idle-seconds 10]
[--databases sqlite,postgresql]``.

For each database: ``--games`` two-seat Craits games with a clock (a person who never moves
and a house bot), written through the service. ``--expired`` of them began their turn two
minutes ago with ``move_seconds`` 60, so all are past their deadline at once; the others'
deadlines are an hour ahead. Then, on services with cold caches (as a freshly started
server's), ``--sweepers`` sweeper threads (each as in a server worker: waking every 0.5 s)
start together. Figures:

- *all timed out after*: from the sweepers' start until no game is due any more (the
  first wake-up's wait included), and the timeouts per second that makes;
- *idle sweep*: once nothing is due, the sweepers run ``--idle-seconds`` more: this
  process's CPU time over that wall time (% of one core: the sweep's cost per second
  while none is due, its reads included, but not the database server's own CPU on
  PostgreSQL) and the median time of one sweep's read of the due games.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# bench/http.py would shadow the standard library's http: the repository's root instead of bench/.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import persistence
from bench._common import Databases, load_average, print_table
from service.games import GameService
from service.sweeper import SWEEP_SECONDS, Sweeper

EXPIRED_SECONDS, LATER_SECONDS = 60, 3600


def create_games(url: str, games: int, expired: int) -> None:
    """The games: the expired ones first (so that no cache holds them), then the rest."""
    now = dt.datetime.now(dt.UTC)
    moment = [now - dt.timedelta(seconds=2 * EXPIRED_SECONDS)]
    service = GameService(persistence.open_store(url), clock=lambda: moment[0])
    for number in range(games):
        if number == expired:
            moment[0] = now
        seconds = EXPIRED_SECONDS if number < expired else LATER_SECONDS
        game_id = service.create_game("craits", 2, {"seed": number, "short": True, "move_seconds": seconds})["id"]
        service.join(game_id, "idle")
        service.join(game_id, bot="greedy")
    service.store.close()


def measure(url: str, sweepers: int, idle_seconds: float) -> tuple[float, float, float]:
    """Seconds until nothing is due, % of one core while idle, and ms per idle read of the due games."""
    services = [GameService(persistence.open_store(url)) for _ in range(sweepers)]
    probe = services[0].store
    started = time.perf_counter()
    running = [Sweeper(service).start() for service in services]
    while probe.due_games(dt.datetime.now(dt.UTC), limit=1):
        time.sleep(0.02)
    all_done = time.perf_counter() - started
    cpu, wall = time.process_time(), time.perf_counter()
    time.sleep(idle_seconds)
    idle_share = (time.process_time() - cpu) / (time.perf_counter() - wall)
    for sweeper in running:
        sweeper.stop()
    reads = []
    for _ in range(50):
        begin = time.perf_counter()
        probe.due_games(dt.datetime.now(dt.UTC))
        reads.append(time.perf_counter() - begin)
    for service in services:
        service.store.close()
    return all_done, idle_share, statistics.median(reads)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--expired", type=int, default=1_000)
    parser.add_argument("--sweepers", type=int, default=1, help="sweeper threads, each with its own service")
    parser.add_argument("--idle-seconds", type=float, default=10.0)
    parser.add_argument("--databases", default="sqlite", help="comma-separated: sqlite, postgresql")
    args = parser.parse_args()
    if not 0 < args.expired <= args.games or args.sweepers < 1:
        parser.error("need 0 < --expired <= --games and --sweepers >= 1")
    rows = []
    with contextlib.ExitStack() as stack:
        databases = Databases(stack)
        for backend in args.databases.split(","):
            url = databases.new(backend)
            persistence.upgrade(url)
            began = time.perf_counter()
            create_games(url, args.games, args.expired)
            setup = time.perf_counter() - began
            all_done, idle_share, read = measure(url, args.sweepers, args.idle_seconds)
            rows.append((backend, f"{args.games:,}", f"{args.expired:,}", args.sweepers, f"{all_done:.2f} s",
                         f"{args.expired / all_done:,.0f}", f"{idle_share:.2%}", f"{read * 1000:.2f} ms",
                         f"{setup:.0f} s"))
    print_table(
        f"Clocks: {args.expired:,} of {args.games:,} clocked games expired at once ({load_average()})",
        ["database", "games", "expired", "sweepers", "all timed out after", "timeouts/s",
         "idle sweep, % of one core", "idle read of due games", "setup"],
        rows,
        f"Sweepers wake every {SWEEP_SECONDS} s; the first wake-up is inside 'all timed out after'. "
        "Targets: all timed out within 5 s, an idle sweep under 1 % of one core.",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

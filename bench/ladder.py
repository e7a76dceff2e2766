"""The ladder under load: bot accounts in the Craits and Scat pools, playing random legal moves.

``--bots`` accounts (made on the database before the server starts) join the pools of both
games (``players`` 2-3 for Craits, 2-4 for Scat, rated, one game at a time) from one asyncio
process, each bot with an HTTP client (a connection) of its own; each waits on its account's events
(long-poll) for ``gameStart``, plays the game to its end (or the run's) with random legal moves
(long-polling the game's events between turns) and is back in the pool at once. For ``--seconds`` it measures, per database:

- moves/s and a move's round trip p50 and p99 (how busy the server is: the bots move the instant they may);
- rated games finished per minute;
- time in the pool before a game: from the moment a bot is free (joined, or saw its last game
  end) to its ``gameStart``, p50 and p99 (the issue's target: p99 <= 2 s with >= 20 bots waiting),
  and of it the ``gameStart``'s delivery: from its recording (or the bot's freedom, if later) to
  the bot reading it; the waits begun with 20 or more bots waiting (the target's condition: a partner
  is there, so the wait is the server's) and, as every bot joins in the first second, the waits begun
  after the first minute (once that herd is seated, few wait at a time: there, most of a wait is for
  another bot to be free) are given apart;
- finish -> leaderboard: from a bot seeing its game over to the game appearing in its account's
  rating history (``GET /v1/accounts/{name}/ratings``, polled every 50 ms), p50 and p99 (target <= 1 s),
  a client's view, which counts the poll's own round trip through a busy server; and the server's own,
  from ``GET /metrics`` at the end: ``cardhall_rating_lag_seconds``, from a game's end (its finish
  recorded) to its ratings committed, p50 and p99 as the upper bounds of their histogram buckets;
- games lost or counted twice by the projection (target 0), read from the database once the
  server has stopped: every finished rated game must be in the history once per seat;
- the rebuild time of every rating (``Ratings.rebuild``), and whether it equals the live table;
- the client process's CPU, a share of one core: near 100 % the client, not the server, bounds the figures.

Client and server share the machine; figures on a shared machine are noisy (the load average is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import datetime
import pathlib
import random
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]  # (bench/http.py)
sys.path.insert(0, str(HERE.parent))

import httpx

from bench._common import Databases, load_average, percentile, print_table, running

POOLS = {"craits": [2, 3], "scat": [2, 3, 4]}
LONG_POLL = 10
CROWD = 20  # the target holds "with >= 20 bots waiting": a partner is there, the wait is the server's
WARM_UP = 60  # seconds: every bot joins at once at the start; waits begun after this are the steady state's


class Figures:
    def __init__(self) -> None:
        self.waits: list[float] = []
        self.settled_waits: list[float] = []  # the waits begun after the first minute (the herd of joins is past)
        self.crowded_waits: list[float] = []  # the waits begun with >= CROWD bots waiting (itself counted): the target's
        self.started = time.monotonic()
        self.to_board: list[float] = []
        self.finished: dict[str, float] = {}  # game id -> when a bot first saw it over
        self.errors: collections.Counter[str] = collections.Counter()
        self.waiting = 0
        self.most_waiting = 0
        self.moves: list[float] = []  # each move's round trip
        self.lag_buckets: list[tuple[float, float]] = []  # the server's cardhall_rating_lag_seconds
        self.delivered: list[float] = []  # a gameStart's recording (or the bot's freedom, if later) to its reading
        self.client_cpu = 0.0  # the client process's CPU seconds a second of the run (1.0: a core saturated)


async def play_game(client: httpx.AsyncClient, key: str, game_id: str, chooser: random.Random,
                    until: float, moves: list[float]) -> bool:
    """Random legal moves for the key's seat until the game is over (True), or the run is (False: the
    game's clock plays on for the bot, unmeasured). A move's answer is the seat's view after it, as a
    bot reads it, so a turn costs one request and the view is asked for only after waiting."""
    auth = {"Authorization": f"Bearer {key}"}
    view = (await client.get(f"/v1/games/{game_id}/state", headers=auth)).json()
    while time.monotonic() < until:
        if view["status"] in ("finished", "aborted"):
            return True
        if view["seat"] in view["to_act"] and view["legal_moves"]:
            began = time.monotonic()
            moved = await client.post(f"/v1/games/{game_id}/moves", headers=auth,
                                      json={**chooser.choice(view["legal_moves"]), "expected_version": view["version"]})
            moves.append(time.monotonic() - began)
            if moved.status_code not in (201, 409):
                raise RuntimeError(f"move refused: {moved.status_code} {moved.text}")
            if moved.status_code == 201:
                view = moved.json()
                continue
        else:
            await client.get(f"/v1/games/{game_id}/events", headers=auth,
                             params={"after": view["version"], "limit": 1, "wait": LONG_POLL})
        view = (await client.get(f"/v1/games/{game_id}/state", headers=auth)).json()
    return False


async def watch_board(client: httpx.AsyncClient, name: str, game_id: str, seen: float, figures: Figures,
                      until: float) -> None:
    """How long after ``seen`` the game is in the account's rating history."""
    while time.monotonic() < until + 30:
        try:
            ratings = (await client.get(f"/v1/accounts/{name}/ratings")).json()["ratings"]
        except httpx.RemoteProtocolError:  # (a kept-alive connection the server closed as it was reused: poll again)
            continue
        if any(change["game_id"] == game_id for rating in ratings for change in rating["history"]):
            figures.to_board.append(time.monotonic() - seen)
            return
        await asyncio.sleep(0.05)


async def bot(client: httpx.AsyncClient, watching: httpx.AsyncClient, name: str, key: str, game: str, until: float,
              figures: Figures, watchers: list[asyncio.Task[None]]) -> None:
    auth = {"Authorization": f"Bearer {key}"}
    chooser = random.Random(name)
    joined = await client.post(f"/v1/pools/{game}/join", headers=auth, json={"players": POOLS[game], "rated": True})
    joined.raise_for_status()
    after, free_since, free_since_wall = 0, time.monotonic(), time.time()
    figures.waiting += 1
    crowd = figures.waiting
    while time.monotonic() < until:
        page = (await client.get("/v1/account/events", headers=auth,
                                 params={"after": after, "wait": LONG_POLL})).json()
        for event in page["events"]:
            after = event["id"]
            if event["type"] != "gameStart":
                continue
            figures.most_waiting = max(figures.most_waiting, figures.waiting)
            figures.waiting -= 1
            figures.waits.append(time.monotonic() - free_since)
            if free_since - figures.started >= WARM_UP:
                figures.settled_waits.append(figures.waits[-1])
            if crowd >= CROWD:
                figures.crowded_waits.append(figures.waits[-1])
            # (a game may start before its bot has seen its last one end: the delivery counts from the later)
            recorded = datetime.datetime.fromisoformat(event["recorded_at"].replace("Z", "+00:00")).timestamp()
            figures.delivered.append(time.time() - max(recorded, free_since_wall))
            try:
                if not await play_game(client, key, event["data"]["game_id"], chooser, until, figures.moves):
                    break  # (the run is over: its game goes on without it)
            except (httpx.HTTPError, RuntimeError, KeyError) as error:
                figures.errors[type(error).__name__] += 1
            seen = time.monotonic()
            if event["data"]["game_id"] not in figures.finished:
                figures.finished[event["data"]["game_id"]] = seen
                watchers.append(asyncio.create_task(watch_board(watching, name, event["data"]["game_id"], seen,
                                                                figures, until)))
            free_since, free_since_wall = time.monotonic(), time.time()
            figures.waiting += 1
            crowd = figures.waiting
    await client.delete(f"/v1/pools/{game}/join", headers=auth)


def make_accounts(url: str, count: int) -> list[tuple[str, str]]:
    from service.bootstrap import open_service

    games = open_service(url)
    try:
        return [(name, games.accounts.create_account(name, "bot")["key"])
                for name in (f"b{number:03d}" for number in range(count))]
    finally:
        games.store.close()


async def load(base_url: str, accounts: list[tuple[str, str]], seconds: float) -> tuple[Figures, float]:
    """Each bot with an HTTP client of its own, as bots are: one client's connection pool shared by hundreds of
    bots costs the client a scan of every connection a request (httpcore), which made this one process the
    bottleneck (40 bots: 80 % of a core for 29 moves/s)."""
    figures, watchers = Figures(), []
    async with contextlib.AsyncExitStack() as stack:
        def client(connections: int) -> httpx.AsyncClient:
            return httpx.AsyncClient(base_url=base_url, timeout=LONG_POLL + 30,
                                     limits=httpx.Limits(max_connections=connections))

        watching = await stack.enter_async_context(client(20))
        clients = [await stack.enter_async_context(client(1)) for _ in accounts]
        started = figures.started = time.monotonic()
        cpu = time.process_time()
        until = started + seconds
        games = list(POOLS)
        await asyncio.gather(*(bot(clients[index], watching, name, key, games[index % len(games)], until, figures,
                                   watchers) for index, (name, key) in enumerate(accounts)))
        elapsed = time.monotonic() - started
        figures.client_cpu = (time.process_time() - cpu) / elapsed
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.gather(*watchers), 40)
        figures.lag_buckets = rating_lag(await watching.get("/metrics"))
    return figures, elapsed


def rating_lag(metrics: httpx.Response) -> list[tuple[float, float]]:
    """The server's own histogram of how long after a rated game's end its ratings changed
    (``cardhall_rating_lag_seconds``): its cumulative buckets, (upper bound, count)."""
    found = []
    for line in metrics.text.splitlines():
        if line.startswith("cardhall_rating_lag_seconds_bucket{"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            found.append((float(bound), float(line.rsplit(" ", 1)[1])))
    return sorted(found)


def bucket_quantile(buckets: list[tuple[float, float]], share: float) -> str:
    """The upper bound of the bucket holding the ``share`` quantile ("<= 0.3"), from cumulative counts."""
    total = buckets[-1][1] if buckets else 0
    if not total:
        return "nan"
    bound = next(bound for bound, count in buckets if count >= share * total)
    return f"<= {bound:g}"


def audit(url: str) -> tuple[int, int, int, float, bool]:
    """Finished rated games, those the projection lost and those it counted twice, the rebuild's time
    and whether it gave the live table."""
    import sqlalchemy as sa

    from persistence.schema import games as games_table
    from service.bootstrap import open_service
    from service.ratings import Ratings

    service = open_service(url)
    try:
        ratings = Ratings(service)
        ratings.catch_up()
        live = ratings.ladder.table()
        engine = sa.create_engine(url)
        with engine.connect() as connection:
            finished = {row.id: row.players for row in connection.execute(
                sa.select(games_table.c.id, games_table.c.players).where(games_table.c.status == "finished"))}
        engine.dispose()
        applied = collections.Counter(change[3] for change in live[1])
        lost = sum(1 for game_id in finished if applied[game_id] == 0)
        twice = sum(1 for game_id, players in finished.items() if applied[game_id] > players)
        began = time.perf_counter()
        ratings.rebuild()
        took = time.perf_counter() - began
        return len(finished), lost, twice, took, ratings.ladder.table() == live
    finally:
        service.store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--threads", type=int, default=32,
                        help="the server's request threads a worker (cardhall serve --threads)")
    parser.add_argument("--databases", default="sqlite:1,postgresql:2",
                        help="backend:workers, comma-separated (default sqlite:1,postgresql:2)")
    args = parser.parse_args()
    rows = []
    with contextlib.ExitStack() as stack:
        databases = Databases(stack)
        for spec in args.databases.split(","):
            backend, _, workers = spec.partition(":")
            url = databases.new(backend)
            from persistence import upgrade

            upgrade(url)
            accounts = make_accounts(url, args.bots)
            with running(url, databases.workdir(), workers=int(workers or 1), threads=args.threads) as server:
                figures, elapsed = asyncio.run(load(server.base_url, accounts, args.seconds))
            total, lost, twice, rebuild, same = audit(url)
            rows.append([f"{backend} x{workers or 1}", args.bots, f"{len(figures.moves) / elapsed:.0f}",
                         f"{percentile(figures.moves, .5) * 1000:.0f}", f"{percentile(figures.moves, .99) * 1000:.0f}",
                         f"{len(figures.finished) * 60 / elapsed:.1f}",
                         f"{percentile(figures.waits, .5):.2f}", f"{percentile(figures.waits, .99):.2f}",
                         f"{percentile(figures.crowded_waits, .5):.2f}",
                         f"{percentile(figures.crowded_waits, .99):.2f} ({len(figures.crowded_waits)} waits)",
                         f"{percentile(figures.settled_waits, .5):.2f}",
                         f"{percentile(figures.settled_waits, .99):.2f} ({len(figures.settled_waits)} waits)",
                         f"{percentile(figures.delivered, .5):.2f}", f"{percentile(figures.delivered, .99):.2f}",
                         figures.most_waiting, f"{percentile(figures.to_board, .5):.3f}",
                         f"{percentile(figures.to_board, .99):.3f}", bucket_quantile(figures.lag_buckets, .5),
                         bucket_quantile(figures.lag_buckets, .99), f"{lost}/{total}", twice,
                         f"{rebuild:.2f}", "yes" if same else "NO", sum(figures.errors.values()),
                         f"{figures.client_cpu:.0%}"])
    names = ["database", "bots", "moves/s", "move p50 ms", "move p99 ms", "rated games/min", "pool wait p50 s",
             "pool wait p99 s", f"pool wait begun with >= {CROWD} waiting p50 s", "p99 s",
             "pool wait after the first minute p50 s", "p99 s",
             "of it, gameStart's delivery p50 s", "delivery p99 s", "most waiting",
             "finish -> rating history (a bot's poll) p50 s", "p99 s", "end -> ratings changed (server) p50 s",
             "p99 s", "lost/finished", "counted twice", "rebuild s", "rebuild = live", "errors",
             "the client's CPU (of one core)"]
    print_table(f"Ladder: {args.bots} random bots in the Craits and Scat pools for {args.seconds:.0f} s",
                ["figure", *(row[0] for row in rows)], [[name, *(str(row[index]) for row in rows)]
                                                        for index, name in enumerate(names) if index],
                note=load_average())
    return 0


if __name__ == "__main__":
    sys.exit(main())

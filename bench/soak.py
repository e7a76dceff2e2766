"""Soak: does the server's memory stay put under a long game workload, and do hostile clients slow the players?

Usage: ``python3 bench/soak.py [--minutes 30] [--database sqlite|postgresql] [--clients 4] [--workers 1]
[--sample 60] [--hostile]``

A real server (``cardhall serve``; limits off but with ``--hostile``) and ``--clients`` threads, each
playing games without end: it creates a Craits or Scat game (2-5 players, some
short), takes one seat, gives the others to house bots (so some moves append
hundreds of events at once, and a game of house bots alone, created now and
then, appends its whole log in one request), and plays random legal moves to the
end, reading its view and a page of events as a bot would; one more thread
follows games with long-polls and short SSE streams. Every ``--sample`` seconds it
prints the server's resident memory (its gunicorn master and workers, from
``/proc``) with the games and moves done so far. At the end it compares the last
sample with the one at 5 minutes: the target is within 10 %.

``--hostile``: halfway through, a hostile mix joins the players (issue 37): header bombs (a
header repeated 300,000 times, 4.5 MB, on a new connection every half second), slow clients
(20 connections trickling a head a byte every half second, reconnecting when dropped) and
long-game readers (``--readers`` threads, 2 by default, reading a long game of house bots from
its start, a page of 1,000 events and a view at a past version in turn, as fast as the server
lets them: a 429's ``Retry-After`` is waited out, as a client library does), all in a process of
their own and from an address of their own (127.0.0.2: the server limits clients by address).
With ``--hostile`` the server runs with its default read budget (``CARDHALL_READ_RATE_LIMIT``)
and a request limit no player meets (the players are a load generator, many times faster than
the default 50 requests a second lets a client go). The players' move latency is reported for
each half (p50, p99: a move's POST as a normal client sees it); the target is the second half's
p99 within 2x the first's.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import pathlib
import random
import socket
import sys
import threading
import time
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import httpx

from bench import _common

#: The sample the last one is compared with: after the first 5 minutes, once caches are warm.
BASELINE_SECONDS = 300
#: Where the hostile clients come from: another loopback address than the players' 127.0.0.1.
HOSTILE_ADDRESS = "127.0.0.2"
#: The request limit under --hostile: the players never meet it (the read budget stays the default).
PLAYERS_REQUEST_LIMIT = "100000/minute"


def rss_kib(pid: int) -> int:
    """Resident memory of a process and its children (the gunicorn workers), in KiB."""
    total = 0
    for process in [pid, *_children(pid)]:
        with contextlib.suppress(OSError):
            for line in pathlib.Path(f"/proc/{process}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def _children(pid: int) -> list[int]:
    found = []
    for task in pathlib.Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found + [grandchild for child in found for grandchild in _children(child)]


class Counts:
    """What the players did, shared by the threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.games = self.moves = self.errors = 0
        self.phase = "alone"
        self.latencies: dict[str, list[float]] = {"alone": [], "hostile": []}

    def add(self, games: int = 0, moves: int = 0, errors: int = 0, seconds: float | None = None) -> None:
        with self.lock:
            self.games += games
            self.moves += moves
            self.errors += errors
            if seconds is not None:
                self.latencies[self.phase].append(seconds)


def new_game(http: httpx.Client, rng: random.Random, humans: int) -> tuple[str, str | None]:
    """A started game with ``humans`` (0 or 1) person seats and house bots in the rest: its id and the token."""
    game = rng.choice(["craits", "scat"])
    players = rng.randint(2, 5)
    options = {"short": rng.random() < 0.5} if game == "craits" else {"lives": rng.randint(1, 3)}
    game_id = http.post("/v1/games", json={"game": game, "players": players, "options": options}).json()["id"]
    token = None
    for seat in range(players):
        body = {"name": f"soak{seat}"} if seat < humans else {"bot": rng.choice(["random", "greedy"])}
        joined = http.post(f"/v1/games/{game_id}/seats", json=body).json()
        token = token or joined.get("token")
    return game_id, token


def play(base_url: str, seed: int, stop: threading.Event, counts: Counts, followed: list[str]) -> None:
    """Play games until ``stop``: one seat random, the rest house bots; every tenth game house bots only."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base_url, timeout=60) as http:
        while not stop.is_set():
            game_id, token = new_game(http, rng, humans=0 if rng.random() < 0.1 else 1)
            followed[seed % len(followed)] = game_id
            auth = {"Authorization": f"Bearer {token}"} if token else {}
            while token and not stop.is_set():
                view = http.get(f"/v1/games/{game_id}/state", headers=auth).json()
                if view["status"] != "active":
                    break
                moves = [move for move in view["legal_moves"] if view["seat"] in view["to_act"]]
                if not moves:
                    http.get(f"/v1/games/{game_id}/events", params={"after": view["version"], "wait": 1})
                    continue
                started = time.perf_counter()
                answer = http.post(f"/v1/games/{game_id}/moves", json=rng.choice(moves), headers=auth)
                counts.add(moves=1, errors=answer.status_code >= 500, seconds=time.perf_counter() - started)
                http.get(f"/v1/games/{game_id}/events", params={"after": max(0, view["version"] - 20)}, headers=auth)
            counts.add(games=1)


def follow(base_url: str, stop: threading.Event, followed: list[str]) -> None:
    """Follow the players' current games: a long-poll, then a short stream, in turn."""
    with httpx.Client(base_url=base_url, timeout=60) as http:
        for turn in range(1_000_000_000):
            if stop.is_set():
                return
            game_id = followed[turn % len(followed)]
            if game_id is None:
                time.sleep(0.5)
                continue
            if turn % 2:
                http.get(f"/v1/games/{game_id}/events", params={"after": 0, "wait": 2})
            else:
                with http.stream("GET", f"/v1/games/{game_id}/events/stream", params={"timeout": 2}) as stream:
                    for _ in stream.iter_lines():
                        pass


BOMB = b"GET /v1/game-types HTTP/1.1\r\nHost: soak\r\n" + b"X-Bomb: boom\r\n" * 300_000 + b"\r\n"


def hostile_mix(base_url: str, game_id: str, stop: Any, counts: Any, readers: int = 2) -> None:
    """The hostile clients, in a process of their own (so that their work does not slow the players'
    own process, whose latencies are measured): until ``stop``, counting into ``counts`` (sent, refused)."""
    port = int(base_url.rsplit(":", 1)[1])
    threads = [threading.Thread(target=header_bombs, args=(port, stop, counts)),
               threading.Thread(target=slow_clients, args=(port, stop, counts)),
               *(threading.Thread(target=long_game_readers, args=(base_url, stop, counts, game_id))
                 for _ in range(readers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _count(counts: Any, sent: int = 0, refused: int = 0) -> None:
    with counts.get_lock():
        counts[0] += sent
        counts[1] += refused


def header_bombs(port: int, stop: Any, counts: Any) -> None:
    """A header bomb on a new connection every half second; what the server answers is counted."""
    while not stop.wait(0.5):
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=30,
                                                                    source_address=(HOSTILE_ADDRESS, 0)) as connection:
            with contextlib.suppress(OSError):
                connection.sendall(BOMB)
            answer = connection.recv(64)
            _count(counts, 1, answer.startswith(b"HTTP/1.1 431"))


def slow_clients(port: int, stop: Any, counts: Any, connections: int = 20) -> None:
    """``connections`` connections each trickling a head a byte every half second, opened again when dropped."""
    open_: list[socket.socket | None] = [None] * connections
    while not stop.wait(0.5):
        for index, connection in enumerate(open_):
            try:
                if connection is None:
                    connection = open_[index] = socket.create_connection(("127.0.0.1", port), timeout=5,
                                                                         source_address=(HOSTILE_ADDRESS, 0))
                    connection.sendall(b"GET /v1/game-types HTTP/1.1\r\nHost: soak\r\nX-Slow: ")
                    _count(counts, 1)
                connection.sendall(b"y")
            except OSError:  # (dropped: its head timed out)
                if connection is not None:
                    connection.close()
                open_[index] = None
                _count(counts, 0, 1)
    for connection in open_:
        if connection is not None:
            connection.close()


def long_game(http: httpx.Client) -> str:
    """A long game of house bots alone: Scat for five, with as many lives as it takes."""
    for lives in (9, 5, 3):
        created = http.post("/v1/games", json={"game": "scat", "players": 5, "options": {"lives": lives}})
        if created.status_code == 201:
            game_id = created.json()["id"]
            for _ in range(5):
                http.post(f"/v1/games/{game_id}/seats", json={"bot": "greedy"})
            return game_id
    raise SystemExit(f"soak: no long game could be made: {created.status_code} {created.text[:200]}")


def long_game_readers(base_url: str, stop: Any, counts: Any, game_id: str) -> None:
    """Read a long game from its start, a page of events and a view at a past version in turn."""
    rng = random.Random(game_id)
    transport = httpx.HTTPTransport(local_address=HOSTILE_ADDRESS)
    with httpx.Client(base_url=base_url, timeout=120, transport=transport) as http:
        version = 1
        while not stop.is_set():
            version = http.get(f"/v1/games/{game_id}").json().get("version", version)
            for path, params in ((f"/v1/games/{game_id}/events", {"after": 0, "limit": 1000}),
                                 (f"/v1/games/{game_id}/state", {"at": rng.randint(1, max(1, version))})):
                answer = http.get(path, params=params)
                _count(counts, 1, answer.status_code == 429)
                if answer.status_code == 429:
                    stop.wait(min(60, int(answer.headers.get("Retry-After", "1"))))


def _percentiles(seconds: list[float]) -> str:
    if not seconds:
        return "no moves"
    ordered = sorted(seconds)
    return (f"{len(ordered)} moves, p50 {ordered[len(ordered) // 2] * 1000:.1f} ms, "
            f"p99 {ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000:.1f} ms")


def soak(args: argparse.Namespace) -> None:
    with contextlib.ExitStack() as stack:
        databases = _common.Databases(stack)
        server = stack.enter_context(_common.running(
            databases.new(args.database), databases.workdir(), workers=args.workers,
            rate_limit=PLAYERS_REQUEST_LIMIT if args.hostile else "off"))
        assert server.process is not None
        stop, counts = threading.Event(), Counts()
        spawn = multiprocessing.get_context("spawn")
        hostile_stop, hostile_counts = spawn.Event(), spawn.Array("q", 2)
        hostile = None
        followed: list[str | None] = [None] * args.clients
        threads = [threading.Thread(target=play, args=(server.base_url, n, stop, counts, followed), daemon=True)
                   for n in range(args.clients)]
        threads.append(threading.Thread(target=follow, args=(server.base_url, stop, followed), daemon=True))
        for thread in threads:
            thread.start()
        start, samples = time.monotonic(), []
        print(f"soak: {args.database}, {args.workers} worker(s), {args.clients} players, {args.minutes} min",
              flush=True)
        print(f"{'minute':>7} {'RSS MiB':>8} {'games':>6} {'moves':>7} {'5xx':>4} {'hostile':>8} {'refused':>8}",
              flush=True)
        hostile_from = args.minutes * 60 / 2 if args.hostile else None
        while time.monotonic() - start < args.minutes * 60:
            due = args.minutes * 60 if hostile_from is None else hostile_from
            time.sleep(min(args.sample, max(0.0, due - (time.monotonic() - start))))
            elapsed = time.monotonic() - start
            if hostile_from is not None and elapsed >= hostile_from:
                hostile_from = None
                with httpx.Client(base_url=server.base_url, timeout=300) as http:
                    game_id = long_game(http)
                hostile = spawn.Process(
                    target=hostile_mix, args=(server.base_url, game_id, hostile_stop, hostile_counts, args.readers),
                    daemon=True)
                hostile.start()
                with counts.lock:
                    counts.phase = "hostile"
                print(f"{elapsed / 60:7.1f} hostile mix joins (long game {game_id})", flush=True)
                continue
            samples.append((elapsed, rss_kib(server.process.pid) / 1024))
            print(f"{elapsed / 60:7.1f} {samples[-1][1]:8.1f} {counts.games:6d} {counts.moves:7d} {counts.errors:4d}"
                  f" {hostile_counts[0]:8d} {hostile_counts[1]:8d}", flush=True)
        stop.set()
        hostile_stop.set()
        if hostile is not None:
            hostile.join(timeout=70)
        for thread in threads:
            thread.join(timeout=70)
    print(f"soak: moves alone: {_percentiles(counts.latencies['alone'])}")
    if args.hostile:
        print(f"soak: moves beside the hostile mix: {_percentiles(counts.latencies['hostile'])}")
    baseline = next((rss for elapsed, rss in samples if elapsed >= BASELINE_SECONDS - 1), None)
    if baseline is None:
        print("soak: shorter than 5 minutes: no baseline to compare with")
        return
    change = samples[-1][1] / baseline - 1
    verdict = "within" if abs(change) <= 0.10 else "NOT within"
    print(f"soak: RSS {baseline:.1f} MiB at 5 min, {samples[-1][1]:.1f} MiB at the end: {change:+.1%} ({verdict} 10 %)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="how long to run (default 30)")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--clients", type=int, default=4, help="player threads (default 4)")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn workers (default 1)")
    parser.add_argument("--sample", type=float, default=60.0, help="seconds between samples (default 60)")
    parser.add_argument("--hostile", action="store_true",
                        help="halfway through, add header bombs, slow clients and long-game readers")
    parser.add_argument("--readers", type=int, default=2, help="long-game readers in the hostile mix (default 2)")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.sample <= 0 or args.clients < 1:
        parser.error("--minutes, --sample and --clients must be positive")
    soak(args)


if __name__ == "__main__":
    main()

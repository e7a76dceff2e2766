"""Growth benchmark: does a move get slower as a game's log grows?

Usage: ``python3 bench/growth.py [--games 4] [--database sqlite|postgresql] [--low 20] [--high 2000]
[--window 100]`` — or ``--profile`` to profile the move path in-process instead (``--profile`` needs the
``bench`` extra, for pyinstrument: ``pip install -e '.[bench]'``).

A long game: Craits, 5 players, the full 15 rounds: one person seat (this
client, playing uniformly random legal moves) and four random house bots, so a
person's move appends itself, the bots' turns and any deal — about 5 events.
About half such games run past 2,000 events; the others are replaced.

Over a real server (``cardhall serve``, 1 worker, on 127.0.0.1), one client
at a time, each game is played with its moves timed (the POST's round trip)
and each timing filed by the version the move found: "~low" is versions within
``window`` of ``--low``, "~high" within ``window`` of ``--high``. Each game is
parked once it passes the high window. Then the server restarts, and the first
move of each parked game is timed again: cold, its table rebuilt from the whole
log. Young games parked at ``--low`` give the cold figure at the low end.

``--profile`` plays the same games through the Flask test client over SQLite in
this process and prints a pyinstrument profile of the moves in each window.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import pathlib
import random
import sys
import time
from collections.abc import Callable
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if pathlib.Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import httpx

from bench import _common

GAME = {"game": "craits", "players": 5, "options": {}}
BOTS = 4
MAX_REPLACED = 20


@dataclasses.dataclass
class Parked:
    """A game left at some version, its token and the move to make next."""

    path: str
    auth: dict[str, str]
    view: dict[str, Any]


Send = Callable[[str, str, dict[str, Any] | None, dict[str, str] | None], tuple[int, dict[str, Any]]]


def http_sender(client: httpx.Client) -> Send:
    """Requests over a real connection: (status, JSON answer)."""

    def send(method: str, path: str, body: dict[str, Any] | None, headers: dict[str, str] | None) -> Any:
        response = client.request(method, path, json=body, headers=headers)
        return response.status_code, response.json()

    return send


def new_game(send: Send) -> Parked:
    """Create the long game, take the person's seat, seat the bots; parked at its first state."""
    status, created = send("POST", "/v1/games", GAME, None)
    assert status == 201, created
    path = f"/v1/games/{created['id']}"
    _, joined = send("POST", f"{path}/seats", {"name": "bench"}, None)
    auth = {"Authorization": f"Bearer {joined['token']}"}
    for _ in range(BOTS):
        send("POST", f"{path}/seats", {"bot": "random"}, None)
    _, view = send("GET", f"{path}/state", None, auth)
    return Parked(path, auth, view)


def move(send: Send, game: Parked, rng: random.Random) -> float:
    """Make one random legal move; its round trip in seconds (the game's view is updated)."""
    chosen = rng.choice(game.view["legal_moves"])
    started = time.perf_counter()
    status, answer = send("POST", f"{game.path}/moves", chosen, game.auth)
    elapsed = time.perf_counter() - started
    assert status == 201, answer
    game.view = answer
    return elapsed


def play_to(send: Send, game: Parked, rng: random.Random, stop_at: int,
            windows: dict[str, range], samples: dict[str, list[float]]) -> bool:
    """Move until the version reaches ``stop_at``, filing timings by window; False if the game ended first."""
    while game.view["version"] < stop_at:
        if game.view["status"] == "finished":
            return False
        version = game.view["version"]
        elapsed = move(send, game, rng)
        for name, window in windows.items():
            if version in window:
                samples[name].append(elapsed)
    return True


def park_games(send: Send, count: int, stop_at: int, windows: dict[str, range],
               samples: dict[str, list[float]], rng: random.Random) -> list[Parked]:
    """``count`` games played past ``stop_at`` (replacing those that end first)."""
    parked: list[Parked] = []
    for _ in range(count + MAX_REPLACED):
        if len(parked) == count:
            break
        game = new_game(send)
        if play_to(send, game, rng, stop_at, windows, samples):
            parked.append(game)
    return parked


def windows(args: argparse.Namespace) -> tuple[range, range]:
    """The versions that count as "~low" and as "~high"."""
    return (range(max(1, args.low - args.window // 5), args.low + args.window // 5 + 1),
            range(args.high - args.window, args.high + args.window + 1))


def measure(args: argparse.Namespace) -> list[list[str]]:
    """Warm and cold medians at both ends, over a real server."""
    rng = random.Random(args.seed)
    low, high = windows(args)
    samples: dict[str, list[float]] = {"low": [], "high": []}
    with contextlib.ExitStack() as stack:
        databases = _common.Databases(stack)
        server = stack.enter_context(_common.running(databases.new(args.database), databases.workdir()))
        client = stack.enter_context(httpx.Client(base_url=server.base_url, timeout=60))
        send = http_sender(client)
        young = park_games(send, args.games, args.low, {"low": low}, samples, rng)
        old = park_games(send, args.games, high.stop, {"low": low, "high": high}, samples, rng)
        server.restart()
        cold = {"low": [move(send, game, rng) for game in young], "high": [move(send, game, rng) for game in old]}
    warm_low, warm_high = _common.median(samples["low"]), _common.median(samples["high"])
    cold_low, cold_high = _common.median(cold["low"]), _common.median(cold["high"])
    return [
        ["warm (cached table)", f"{warm_low * 1000:.2f}", len(samples["low"]), f"{warm_high * 1000:.2f}",
         len(samples["high"]), f"{warm_high / warm_low:.2f}"],
        ["cold (first move after a restart)", f"{cold_low * 1000:.2f}", len(cold["low"]),
         f"{cold_high * 1000:.2f}", len(cold["high"]), f"{cold_high / cold_low:.2f}"],
    ]


def profile(args: argparse.Namespace) -> None:
    """Profile the moves in each window in-process (Flask test client, SQLite) and print where the time goes."""
    import tempfile

    from pyinstrument import Profiler

    import persistence
    from api import create_app
    from service.games import GameService

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="cardhall-profile-") as directory:
        url = f"sqlite:///{directory}/profile.db"
        persistence.upgrade(url)
        games = GameService(persistence.open_store(url))
        client = create_app(games, CARDHALL_RATE_LIMIT="off").test_client()

        def send(method: str, path: str, body: dict[str, Any] | None, headers: dict[str, str] | None) -> Any:
            response = client.open(path, method=method, json=body, headers=headers)
            return response.status_code, response.get_json()

        for window in windows(args):
            profiler = Profiler(interval=0.0002)
            count, elapsed = 0, 0.0
            for game in park_games(send, args.games, window.start, {}, {}, rng):
                profiler.start()
                while game.view["version"] < window.stop and game.view["status"] != "finished":
                    elapsed += move(send, game, rng)
                    count += 1
                profiler.stop()
            print(f"--- {count} moves at versions {window.start}-{window.stop - 1} in {args.games} games: "
                  f"{elapsed / max(count, 1) * 1000:.2f} ms mean (profiler on)")
            print(profiler.output_text(unicode=False, color=False, show_all=False, short_mode=False))
        games.store.close()


def main(argv: list[str] | None = None) -> None:
    """Print the table (or the profile)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, help="games parked at each end")
    parser.add_argument("--database", default="sqlite", choices=["sqlite", "postgresql"])
    parser.add_argument("--low", type=int, default=20, help="the young version")
    parser.add_argument("--high", type=int, default=2000, help="the old version")
    parser.add_argument("--window", type=int, default=100, help="half-width of the old window (young: a fifth)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--profile", action="store_true", help="profile in-process instead of timing a server")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args)
        return
    rows = measure(args)
    _common.print_table(
        f"Growth: one move of Craits (5 players, full game), median ms, {args.database}, 1 worker, one client",
        ["", f"v~{args.low} ms", "samples", f"v~{args.high:,} ms", "samples", "ratio"],
        rows, note=_common.load_average())


if __name__ == "__main__":
    main()

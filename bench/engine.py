"""Engine benchmark: simulation and replay speed of every registered game.

Usage: ``python3 bench/engine.py [--games N] [--seed S]``.

For each game and player count it plays ``N`` seeded random games through
:class:`service.local.LocalGame` (every seat that may act picks uniformly among
its legal moves), then replays their stored logs: each event is decoded from
its ``(type, seat, data)`` form and folded with :func:`domain.table.replay`.
Figures are for one core: times are the process's CPU time, so other load on the
machine does not skew them.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from domain import table as tables
from domain.events import event_data
from domain.game import all_games
from service.local import LocalGame

PLAYER_COUNTS = {"craits": (2, 4, 5), "scat": (2, 5, 9)}


def play_random(game: str, players: int, seed: int) -> LocalGame:
    """One complete game of uniformly random legal moves, seeded."""
    rng = random.Random(seed)
    local = LocalGame(game, players, {"seed": seed})
    while not local.over:
        choices = [(seat, move) for seat in range(players) for move in local.legal_moves(seat)]
        seat, move = rng.choice(choices)
        local.move(seat, move)
    return local


def stored_log(local: LocalGame) -> list[tuple[str, int | None, dict[str, Any]]]:
    """The game's log as the store keeps it: ``(type, seat, data)``."""
    return [(event.type_name(), event.seat, event_data(event)) for event in local.events]


def replay_log(game: str, log: list[tuple[str, int | None, dict[str, Any]]]) -> tables.Table:
    """Decode and fold a stored log."""
    return tables.replay(tables.decode(game, type_name, seat, data) for type_name, seat, data in log)


def measure(game: str, players: int, games: int, seed: int) -> dict[str, float]:
    """Simulation and replay figures for one game and player count."""
    started = time.process_time()
    locals_ = [play_random(game, players, seed + index) for index in range(games)]
    simulated = time.process_time() - started
    logs = [stored_log(local) for local in locals_]
    events = sum(len(log) for log in logs)
    started = time.process_time()
    for local, log in zip(locals_, logs):
        assert replay_log(game, log).state == local.state
    replayed = time.process_time() - started
    return {
        "events_per_game": events / games,
        "sim_games_s": games / simulated,
        "sim_events_s": events / simulated,
        "replay_events_s": events / replayed,
    }


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30, help="games per game and player count")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    header = (f"{'game':<8}{'players':>8}{'events/game':>13}{'sim games/s':>13}"
              f"{'sim events/s':>14}{'replay events/s':>17}")
    print(header)
    print("-" * len(header))
    for name in sorted(all_games()):
        for players in PLAYER_COUNTS.get(name, (2,)):
            row = measure(name, players, args.games, args.seed)
            print(
                f"{name:<8}{players:>8}{row['events_per_game']:>13.0f}{row['sim_games_s']:>13.1f}"
                f"{row['sim_events_s']:>14,.0f}{row['replay_events_s']:>17,.0f}"
            )


if __name__ == "__main__":
    main()

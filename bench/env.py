"""Environment benchmark: random play on one core, Cardhall beside RLCard's UNO and OpenSpiel's crazy_eights.

Usage: ``python3 bench/env.py [--seconds S] [--seed N] [--rows 'env scat 2p,uno 2p']`` (RLCard and OpenSpiel come with
``pip install -e '.[bench]'``; a peer that is not installed is left out and said so).

Each row plays whole games for about ``S`` seconds of this process's CPU time (so other
load on the machine skews it little), choosing uniformly among the legal actions, and
prints games/s and decisions/s. A decision is one action taken by a player (chance
outcomes are not decisions). Cardhall's rows: ``env`` through the PettingZoo AEC
environment, each decision reading its observation (vector and mask) with ``last()`` as
an agent would, and choosing among the legal ids its info hands over (as RLCard's random
agent chooses among ``state["legal_actions"]``); ``match`` the same games without
observations (legal ids only). RLCard's UNO computes its observation at every step;
OpenSpiel's rows read none.

``--rounds R`` plays every row R times in turn (each time for ``S`` seconds) and prints
each row's median; the ``× UNO`` column is the median over rounds of the row's decisions/s
over RLCard's UNO's in the same round (two players against UNO 2p, more against UNO 4p):
rows measured minutes apart on a shared machine differ by ±10 %, rows taken in turn less.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import time
from collections.abc import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import cardhall_env
from cardhall_env.match import Match

Play = Callable[[random.Random], int]  # plays one game, returns its decisions


def cardhall_env_game(game: str, players: int, options: dict) -> Play:
    env = cardhall_env.make(game, players, **options)

    def play(rng: random.Random) -> int:
        env.reset(seed=rng.randrange(2**32))
        decisions = 0
        while not env.match.over:
            _, _, _, _, info = env.last()  # (the observation made, as an agent reads it; the legal ids handed over)
            env.step(rng.choice(info["legal_actions"]))
            decisions += 1
        return decisions

    return play


def cardhall_match_game(game: str, players: int, options: dict) -> Play:
    def play(rng: random.Random) -> int:
        match = Match(game, players, options, rng=random.Random(rng.randrange(2**32)))
        decisions = 0
        while not match.over:
            match.step(rng.choice(match.legal_actions()))
            decisions += 1
        return decisions

    return play


def rlcard_uno(players: int) -> Play | None:
    try:
        import rlcard
    except ImportError:
        return None
    env = rlcard.make("uno", config={"game_num_players": players})

    def play(rng: random.Random) -> int:
        env.seed(rng.randrange(2**31))
        state, _ = env.reset()
        decisions = 0
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            decisions += 1
        return decisions

    return play


def open_spiel_crazy_eights(players: int) -> Play | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights", {"players": players})

    def play(rng: random.Random) -> int:
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions

    return play


def measure(play: Play, seconds: float, seed: int) -> tuple[float, float, float]:
    """Games/s, decisions/s and decisions a game over whole games for about ``seconds`` of CPU time."""
    rng = random.Random(seed)
    games = decisions = 0
    started = time.process_time()
    while (spent := time.process_time() - started) < seconds or games == 0:
        decisions += play(rng)
        games += 1
    return games / spent, decisions / spent, decisions / games


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds a row (default 5)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--rounds", type=int, default=1, help="play every row this many times in turn; print medians")
    parser.add_argument("--rows", default="", help="only the rows whose name holds one of these comma-separated words "
                                                   "(e.g. 'env craits 2p,uno 2p'); default every row")
    args = parser.parse_args(argv)
    rows: list[tuple[str, Play | None]] = [
        ("cardhall env craits 2p", cardhall_env_game("craits", 2, {})),
        ("cardhall env craits 2p short", cardhall_env_game("craits", 2, {"short": True})),
        ("cardhall env craits 4p", cardhall_env_game("craits", 4, {})),
        ("cardhall env scat 2p", cardhall_env_game("scat", 2, {})),
        ("cardhall env scat 5p", cardhall_env_game("scat", 5, {})),
        ("cardhall match craits 2p", cardhall_match_game("craits", 2, {})),
        ("cardhall match scat 2p", cardhall_match_game("scat", 2, {})),
        ("rlcard uno 2p", rlcard_uno(2)),
        ("rlcard uno 4p", rlcard_uno(4)),
        ("open_spiel crazy_eights 2p", open_spiel_crazy_eights(2)),
        ("open_spiel crazy_eights 4p", open_spiel_crazy_eights(4)),
    ]
    wanted = [word.strip() for word in args.rows.split(",") if word.strip()]
    rows = [(name, play) for name, play in rows if not wanted or any(word in name for word in wanted)]
    measured: dict[str, list[tuple[float, float, float]]] = {name: [] for name, play in rows if play is not None}
    for _ in range(args.rounds):
        for name, play in rows:
            if play is not None:
                measured[name].append(measure(play, args.seconds, args.seed))
    rounds = f", {args.rounds} rounds in turn, medians" if args.rounds > 1 else ""
    print(f"Random play, one core, {args.seconds:g} CPU s a row{rounds}")
    print(f"{'':<30}{'games/s':>10}{'decisions/s':>14}{'decisions/game':>16}{'× UNO':>8}")
    for name, play in rows:
        if play is None:
            print(f"{name:<30}{'not installed (pip install -e .[bench])':>40}")
            continue
        runs = measured[name]
        uno = measured.get("rlcard uno 2p" if " 2p" in name else "rlcard uno 4p")
        ratio = f"{statistics.median(run[1] / peer[1] for run, peer in zip(runs, uno)):>8.2f}" if uno else ""
        games_s, decisions_s, per_game = (statistics.median(run[at] for run in runs) for at in range(3))
        print(f"{name:<30}{games_s:>10,.1f}{decisions_s:>14,.0f}{per_game:>16,.1f}{ratio}")

if __name__ == "__main__":
    main()

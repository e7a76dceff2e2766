"""Environment benchmark: random play on one core, Cardhall beside RLCard's UNO and OpenSpiel's crazy_eights.

Usage: ``python3 bench/env.py [--seconds S] [--slice T] [--seed N] [--rows 'env scat 2p,uno 2p']`` (RLCard and OpenSpiel come with
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

Rows take turns: each plays for ``--slice`` seconds of CPU (0.1 by default, a few games), then the next,
the order turning each sweep, until every row has had its ``S`` seconds; each row's figures are its totals. On a
shared machine whose speed drifts by ±10 % within minutes, rows measured one after the other (five rounds of a few
seconds each, this script's method until 7 December) put two-player Scat at 1.35–1.62× RLCard's UNO from one run to
the next; slice by slice the same comparison gives the same ratio within ±0.01 (docs/performance.md). The ``× UNO``
column is a row's decisions/s over RLCard's UNO's, both over the whole run (two players against UNO 2p, more against
UNO 4p), and beside it the middle half of the ratios of single sweeps, the spread that is left.
"""

from __future__ import annotations

import argparse
import dataclasses
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


@dataclasses.dataclass
class Tally:
    """What a row has played so far: games, decisions and CPU seconds, and each sweep's decisions/s."""

    games: int = 0
    decisions: int = 0
    seconds: float = 0.0
    sweeps: list[float] = dataclasses.field(default_factory=list)

    def play(self, play: Play, rng: random.Random, seconds: float) -> None:
        """Whole games for about ``seconds`` of CPU time (one at least)."""
        games = decisions = 0
        started = time.process_time()
        while (spent := time.process_time() - started) < seconds or games == 0:
            decisions += play(rng)
            games += 1
        self.games, self.decisions, self.seconds = self.games + games, self.decisions + decisions, self.seconds + spent
        self.sweeps.append(decisions / spent)

    def rates(self) -> tuple[float, float, float]:
        """Games/s, decisions/s and decisions a game over the whole run."""
        return self.games / self.seconds, self.decisions / self.seconds, self.decisions / self.games


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds a row in all (default 5)")
    parser.add_argument("--slice", type=float, default=0.1, help="CPU seconds a row plays at a time (default 0.1)")
    parser.add_argument("--seed", type=int, default=2024)
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
    playing = [(name, play, random.Random(args.seed)) for name, play in rows if play is not None]
    tallies = {name: Tally() for name, _, _ in playing}
    sweeps = max(1, round(args.seconds / args.slice))
    for sweep in range(sweeps):
        turn = sweep % len(playing) if playing else 0
        for name, play, rng in playing[turn:] + playing[:turn]:
            tallies[name].play(play, rng, args.slice)
    print(f"Random play, one core, {args.seconds:g} CPU s a row in {sweeps} turns of {args.slice:g} s, rows taking turns")
    print(f"{'':<30}{'games/s':>10}{'decisions/s':>14}{'decisions/game':>16}{'× UNO':>8}{'sweeps':>13}")
    for name, play in rows:
        if play is None:
            print(f"{name:<30}{'not installed (pip install -e .[bench])':>40}")
            continue
        tally = tallies[name]
        games_s, decisions_s, per_game = tally.rates()
        uno = tallies.get("rlcard uno 2p" if " 2p" in name else "rlcard uno 4p")
        ratio = ""
        if uno:
            sweep_ratios = [mine / peer for mine, peer in zip(tally.sweeps, uno.sweeps)]
            low, _, high = statistics.quantiles(sweep_ratios, n=4) if len(sweep_ratios) > 1 else sweep_ratios * 3
            ratio = f"{decisions_s / uno.rates()[1]:>8.2f}{f'{low:.2f}–{high:.2f}':>13}"
        print(f"{name:<30}{games_s:>10,.1f}{decisions_s:>14,.0f}{per_game:>16,.1f}{ratio}")


if __name__ == "__main__":
    main()

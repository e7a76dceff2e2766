"""``cardhall bot run`` and ``cardhall arena``: the bot authors' tools (``cardhall bot`` is the client's
``cardhall-bot``, :mod:`cardhall_client.cli`)."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING

from cardhall_cli import command
from cardhall_client.cli import add_arguments, option, run

if TYPE_CHECKING:
    from cardhall_client.arena import PlayOne


@command("bot", add_arguments)
def bot(args: argparse.Namespace) -> int:
    """Run a bot (a Python function) in a game on a server until the game ends, or live there as an account."""
    return run(args, prog="cardhall bot")


def _arena_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=["craits", "scat"], required=True, help="the game to play")
    parser.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    parser.add_argument("--bot", action="append", required=True, metavar="[NAME=]BOT",
                        help="an entrant: random, greedy, path.py:function or name=path.py:function (repeatable)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--server", help="play through this server (default: in-process, same rules engine)")
    parser.add_argument("--seed", type=int, help="game n is seeded SEED+n (default: random, printed)")
    parser.add_argument("--option", action="append", type=option, default=[], metavar="NAME=VALUE",
                        help="a game option for every game, e.g. short=true (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="also write the standings as JSON to FILE")


@command("arena", _arena_arguments)
def arena(args: argparse.Namespace) -> int:
    """Play bots against each other over many seeded games; print standings with ratings."""
    from cardhall_client import arena as arenas
    from cardhall_client.report import run_with_progress, show

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000_000)
    entrants = arenas.unique([arenas.entrant(spec) for spec in args.bot])
    with _arena_games(args.server) as play:
        standings = run_with_progress(args.game, args.players, entrants, args.games, seed, play, dict(args.option))
    show(standings, f"{args.game}, {args.players} players, {args.games} games, seed {seed}")
    if args.json:
        about = {"players": args.players, "seed": seed, "server": args.server, "options": dict(args.option)}
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(standings.as_dict(**about), out, indent=2)
    return 0


@contextlib.contextmanager
def _arena_games(server: str | None) -> Iterator[PlayOne]:
    """How the arena plays a game: through ``server`` with the client, else in this process."""
    if server is None:
        from cardhall_cli.arena import play_local

        yield play_local
        return
    from cardhall_client import CardhallClient
    from cardhall_client.arena import play_remote

    with CardhallClient(server, timeout=60.0) as client:
        yield functools.partial(play_remote, client)

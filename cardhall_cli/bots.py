"""``cardhall bot run`` and ``cardhall arena``: the bot authors' tools."""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import random
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from cardhall_cli import command

if TYPE_CHECKING:
    from client.arena import PlayOne


def _option(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"an option is NAME=VALUE (JSON or text), not {text!r}")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def _bot_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["run", "challenge"],
                        help="run: play one game with the bot (with --key alone: live on the server as the "
                             "key's account); challenge: offer a game to the named accounts")
    parser.add_argument("subject", metavar="BOT | NAME", nargs="*",
                        help="run: path/to/file.py:function, a function choose(view) -> move; challenge: the "
                             "accounts offered the other seats (none: an open challenge)")
    parser.add_argument("--server", required=True, help="the server's base URL, e.g. http://localhost:8000")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--game", help="join this game (its id)")
    where.add_argument("--new", metavar="GAME",
                       help="create a game of GAME (craits or scat) and take seat 0; challenge: the game offered")
    parser.add_argument("--key", help="an account's API key: run without --game or --new stays connected, "
                                      "accepts challenges (--accept) and plays every game the account is seated in")
    parser.add_argument("--accept", default="", metavar="GAMES",
                        help="with --key: the games whose challenges to accept, e.g. craits,scat")
    parser.add_argument("--concurrency", type=int, default=1, help="with --key: games played at once (default 1)")
    parser.add_argument("--expires-in", type=int, default=60, help="challenge: seconds it stays open (default 60)")
    parser.add_argument("--rated", action="store_true", help="challenge: a rated game")
    parser.add_argument("--players", type=int, default=2, help="players in a new game (default 2)")
    parser.add_argument("--fill", choices=["random", "greedy", "none"], default="random",
                        help="house bots for the other seats of a new game; none: wait for others (default random)")
    parser.add_argument("--option", action="append", type=_option, default=[], metavar="NAME=VALUE",
                        help="an option of the new game, e.g. seed=7 or short=true (repeatable)")
    parser.add_argument("--name", default="bot", help="the name to sit under (default bot)")
    parser.add_argument("--seat-token", metavar="TOKEN",
                        help="with --game: play on in the seat this token acts for (the token a run printed "
                             "when it sat down), e.g. after the bot stopped, instead of taking a new seat")
    parser.add_argument("--sse", action="store_true", help="wait for turns over Server-Sent Events, not long-polls")
    parser.add_argument("--commitments", metavar="FILE",
                        help="save the game's server seed hash, entropy and shuffle commitments to FILE as they are "
                             "shown, for examples/verify_game.py --saved FILE once the game is over")


@command("bot", _bot_arguments)
def bot(args: argparse.Namespace) -> int:
    """Run a bot (a Python function) in a game on a server until the game ends, or live there as an account."""
    if args.action == "challenge":
        return _challenge(args)
    if len(args.subject) != 1:
        print("cardhall: bot run takes one bot: path/to/file.py:function", file=sys.stderr)
        return 2
    args.bot = args.subject[0]
    if args.key and not (args.game or args.new):
        return _live(args)
    if not (args.game or args.new):
        print("cardhall: bot run needs --game ID, --new GAME, or --key KEY (to live on the server)", file=sys.stderr)
        return 2
    return _run_one(args)


def _live(args: argparse.Namespace) -> int:
    """Stay on the server as the key's account until interrupted."""
    from client import CardhallClient, CardhallError
    from client.loading import load_bot
    from client.lobby import live

    choose = load_bot(args.bot)
    accept = [name.strip() for name in args.accept.split(",") if name.strip()]
    with CardhallClient(args.server, token=args.key, timeout=30.0) as client:
        try:
            print(f"{client.account()['name']} is live on {args.server}, accepting {', '.join(accept) or 'nothing'}, "
                  f"{args.concurrency} game(s) at once", flush=True)
            live(client, choose, accept, args.concurrency, lambda line: print(line, flush=True))
        except CardhallError as error:
            print(f"cardhall: {error}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 0
    return 0


def _challenge(args: argparse.Namespace) -> int:
    """Offer a game to the named accounts (or anyone) and print the challenge."""
    from client import CardhallClient, CardhallError

    if not args.key or not args.new:
        print("cardhall: bot challenge needs --key KEY and --new GAME", file=sys.stderr)
        return 2
    with CardhallClient(args.server, token=args.key) as client:
        try:
            offered = client.challenge(args.new, args.players, args.subject or None, options=dict(args.option),
                                       rated=args.rated, expires_in=args.expires_in)
        except CardhallError as error:
            print(f"cardhall: {error}", file=sys.stderr)
            return 1
    print(json.dumps(offered), flush=True)
    return 0


def _run_one(args: argparse.Namespace) -> int:
    """Play one game."""
    from client import CardhallClient, CardhallError
    from client.loading import load_bot
    from client.runner import NewGame, play, start
    from client.witness import Witness

    if args.seat_token and not args.game:
        print("cardhall: --seat-token resumes a seat of the game given with --game", file=sys.stderr)
        return 2
    choose = load_bot(args.bot)
    new = None
    if args.new:
        new = NewGame(args.new, args.players, None if args.fill == "none" else args.fill, dict(args.option))
    with CardhallClient(args.server) as client:
        try:
            game_id, me = start(client, args.name, game_id=args.game, new=new, seat_token=args.seat_token)
            seat = me.state(game_id)["seat"]
            print(f"game {game_id}: seat {seat}, token {me.token} (to resume: --game {game_id} --seat-token "
                  f"{me.token}); {args.name} plays {args.bot}", flush=True)
            witness = Witness(me, game_id, args.commitments, seat) if args.commitments else None
            final = play(me, game_id, choose, lambda line: print(line, flush=True), sse=args.sse, witness=witness)
        except CardhallError as error:
            print(f"cardhall: {error}", file=sys.stderr)
            return 1
    return 0 if final["status"] == "finished" else 1


def _arena_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", choices=["craits", "scat"], required=True, help="the game to play")
    parser.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    parser.add_argument("--bot", action="append", required=True, metavar="[NAME=]BOT",
                        help="an entrant: random, greedy, path.py:function or name=path.py:function (repeatable)")
    parser.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    parser.add_argument("--server", help="play through this server (default: in-process, same rules engine)")
    parser.add_argument("--seed", type=int, help="game n is seeded SEED+n (default: random, printed)")
    parser.add_argument("--option", action="append", type=_option, default=[], metavar="NAME=VALUE",
                        help="a game option for every game, e.g. short=true (repeatable)")
    parser.add_argument("--json", metavar="FILE", help="also write the standings as JSON to FILE")


@command("arena", _arena_arguments)
def arena(args: argparse.Namespace) -> int:
    """Play bots against each other over many seeded games; print standings with ratings."""
    from client import arena as arenas
    from client.report import run_with_progress, show

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
    from client import CardhallClient
    from client.arena import play_remote

    with CardhallClient(server, timeout=60.0) as client:
        yield functools.partial(play_remote, client)

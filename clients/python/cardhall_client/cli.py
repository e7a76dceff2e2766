"""``cardhall-bot run|challenge``: the bot runner, installed with the client (the server's ``cardhall bot`` is this).

    cardhall-bot run mybot.py:choose --server http://localhost:8000 --new craits --fill greedy
    cardhall-bot run mybot.py:choose --server http://localhost:8000 --key KEY --accept craits,scat --concurrency 4
    cardhall-bot run mybot.py:choose --server http://localhost:8000 --key KEY --pool craits:2-5 --games 100
    cardhall-bot challenge alice --server http://localhost:8000 --key KEY --new craits
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from typing import Any

from cardhall_client.errors import CardhallError
from cardhall_client.http import CardhallClient
from cardhall_client.loading import BadBot, load_bot


def option(text: str) -> tuple[str, Any]:
    """A game option given as NAME=VALUE, the value read as JSON where it is JSON, else as text."""
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"an option is NAME=VALUE (JSON or text), not {text!r}")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def pool(text: str) -> tuple[str, list[int] | None]:
    """A pool given as GAME, GAME:LOW-HIGH or GAME:N,N...: the game and the player counts accepted (None: all)."""
    game, sep, counts = text.partition(":")
    if not sep:
        return game, None
    try:
        if "-" in counts:
            low, high = (int(bound) for bound in counts.split("-"))
            return game, list(range(low, high + 1))
        return game, [int(count) for count in counts.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a pool is GAME, GAME:LOW-HIGH or GAME:N,N..., not {text!r}") from None


#: The environment variable an account's key may be given in instead of ``--key``.
KEY_VARIABLE = "CARDHALL_KEY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The runner's arguments, on ``cardhall-bot`` and on the server's ``cardhall bot`` alike."""
    parser.add_argument("action", choices=["run", "challenge"],
                        help="run: play one game with the bot (with --key alone: live on the server as the "
                             "key's account); challenge: offer a game to the named accounts")
    parser.add_argument("subject", metavar="BOT | NAME", nargs="*", default=[],
                        help="run: path/to/file.py:function, a function choose(view) -> move (with --key, none "
                             "plays random legal moves); challenge: the accounts offered the other seats (none: "
                             "an open challenge)")
    parser.add_argument("--server", required=True, help="the server's base URL, e.g. http://localhost:8000")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--game", help="join this game (its id)")
    where.add_argument("--new", metavar="GAME",
                       help="create a game of GAME (craits or scat) and take seat 0; challenge: the game offered")
    parser.add_argument("--key", default=os.environ.get(KEY_VARIABLE) or None,
                        help=f"an account's API key (default: the {KEY_VARIABLE} environment variable, which keeps it "
                             "out of the process list and the shell's history): run without --game or --new stays "
                             "connected, accepts challenges (--accept) and plays every game the account is seated in")
    parser.add_argument("--accept", default="", metavar="GAMES",
                        help="with --key: the games whose challenges to accept, e.g. craits,scat")
    parser.add_argument("--pool", action="append", type=pool, default=[], metavar="GAME[:COUNTS]",
                        help="with --key: wait in GAME's pool for games of COUNTS players (e.g. craits:2-5, scat:2,3; "
                             "none: every count), repeatable; the pools are left when the runner stops")
    parser.add_argument("--games", type=int, metavar="N",
                        help="with --key: leave the pools once N games have started, and stop once they are over "
                             "(default: play until interrupted)")
    parser.add_argument("--unrated", action="store_true", help="with --pool: unrated games (default rated)")
    parser.add_argument("--concurrency", type=int, default=1, help="with --key: games played at once (default 1)")
    parser.add_argument("--expires-in", type=int, default=60, help="challenge: seconds it stays open (default 60)")
    parser.add_argument("--rated", action="store_true", help="challenge: a rated game")
    parser.add_argument("--json", action="store_true",
                        help="challenge: print the challenge as the API answers it (JSON, for scripts), not a summary")
    parser.add_argument("--players", type=int, default=2, help="players in a new game (default 2)")
    parser.add_argument("--fill", choices=["random", "greedy", "none"], default="random",
                        help="house bots for the other seats of a new game; none: wait for others (default random)")
    parser.add_argument("--option", action="append", type=option, default=[], metavar="NAME=VALUE",
                        help="an option of the new game, e.g. seed=7 or short=true (repeatable)")
    parser.add_argument("--name", default="bot", help="the name to sit under (default bot)")
    parser.add_argument("--seat-token", metavar="TOKEN",
                        help="with --game: play on in the seat this token acts for (the token a run printed "
                             "when it sat down), e.g. after the bot stopped, instead of taking a new seat")
    parser.add_argument("--sse", action="store_true", help="wait for turns over Server-Sent Events, not long-polls")
    parser.add_argument("--commitments", metavar="FILE",
                        help="save the game's server seed hash, entropy and shuffle commitments to FILE as they are "
                             "shown, for examples/verify_game.py --saved FILE once the game is over")


def run(args: argparse.Namespace, prog: str = "cardhall-bot") -> int:
    """Run a bot in one game until it ends, live on the server as an account, or send a challenge.

    ``prog`` is the command as typed (``cardhall-bot``, or the server's ``cardhall bot``), for the messages.
    """
    if args.action == "challenge":
        return _challenge(args, prog)
    if args.key and not (args.game or args.new) and len(args.subject) <= 1:
        args.bot = args.subject[0] if args.subject else None
        return _live(args, prog)
    if len(args.subject) != 1:
        return _usage(f"{prog} run takes one bot: path/to/file.py:function")
    args.bot = args.subject[0]
    if not (args.game or args.new):
        return _usage(f"{prog} run needs --game ID, --new GAME, or --key KEY (to live on the server)")
    return _run_one(args, prog)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cardhall-bot`` command."""
    parser = argparse.ArgumentParser(prog="cardhall-bot", description="Run a Cardhall bot, or send a challenge.")
    add_arguments(parser)
    try:
        return run(parser.parse_intermixed_args(argv))  # (the bot after the options too, as the usage line shows)
    except BadBot as error:  # (a mistyped path or function: said in a line, as every other mistake; `cardhall bot`'s
        return _usage(f"cardhall-bot: {error}")  # own entry point, cardhall_cli.main, says it the same way)


def _usage(message: str) -> int:
    print(message, file=sys.stderr)
    return 2


def _failed(prog: str, error: CardhallError) -> int:
    print(f"{prog}: {error}", file=sys.stderr)
    return 1


def _live(args: argparse.Namespace, prog: str) -> int:
    """Stay on the server as the key's account until interrupted."""
    from cardhall_client.lobby import live

    choose = load_bot(args.bot) if args.bot else random_move
    accept = [name.strip() for name in args.accept.split(",") if name.strip()]
    with CardhallClient(args.server, token=args.key, timeout=30.0) as client:
        try:
            counts = {game["game"]: list(range(game["min_players"], game["max_players"] + 1))
                      for game in client.game_types()}
            pools = {}
            for game, players in args.pool:
                if game not in counts:
                    return _usage(f"{prog}: no game {game!r} here (it has {', '.join(counts)})")
                pools[game] = counts[game] if players is None else players
            print(f"{client.account()['name']} is live on {args.server}, accepting {', '.join(accept) or 'nothing'}, "
                  f"{args.concurrency} game(s) at once", flush=True)
            played = live(client, choose, accept, args.concurrency, lambda line: print(line, flush=True), pools=pools,
                          rated=not args.unrated, games=args.games)
        except CardhallError as error:
            return _failed(prog, error)
        except KeyboardInterrupt:
            return 0
    print(f"played {played} game(s)", flush=True)
    return 0


def random_move(view: dict[str, Any]) -> dict[str, Any]:
    """The bot of a runner given none: one of the legal moves, at random."""
    return random.choice(view["legal_moves"])


def _challenge(args: argparse.Namespace, prog: str) -> int:
    """Offer a game to the named accounts (or anyone) and print the challenge."""
    if not args.key or not args.new:
        return _usage(f"{prog} challenge needs --key KEY and --new GAME")
    with CardhallClient(args.server, token=args.key) as client:
        try:
            offered = client.challenge(args.new, args.players, args.subject or None, options=dict(args.option),
                                       rated=args.rated, expires_in=args.expires_in)
        except CardhallError as error:
            return _failed(prog, error)
    print(json.dumps(offered) if args.json else offer_summary(offered, args.server, prog, args.expires_in), flush=True)
    return 0


def offer_summary(offered: dict[str, Any], server: str, prog: str = "cardhall-bot", expires_in: int | None = None) -> str:
    """A challenge as its challenger reads it: what was offered to whom, until when, and the one thing that
    starts its game, the others accepting it. An account named accepts it with the runner (a live bot
    answers the challenges offered to it by name) or over HTTP; an open challenge only over HTTP, as no
    account is told of it. The JSON is for scripts (``--json``)."""
    invited = offered["to"] or []
    open_seats = offered["players"] - len(offered["accepted"]) - len(invited)
    players = [f"{offered['challenger']} (you)", *invited]
    if open_seats:
        players.append(f"{open_seats} open seat{'s' if open_seats > 1 else ''}, open to any account")
    options = "".join(f"; {name}={json.dumps(value)}" for name, value in offered["options"].items())
    lines = [f"challenge {offered['id']}: {offered['game']} for {offered['players']} players, "
             f"{', '.join(players[:-1])} and {players[-1]}; {'rated' if offered['rated'] else 'unrated'}{options}; "
             f"expires {offered['expires_at']}{f' (in {expires_in} s)' if expires_in else ''}"]
    post = f"POST {server.rstrip('/')}/v1/challenges/{offered['id']}/accept with 'Authorization: Bearer KEY'"
    if len(invited) == 1:
        who = f"{invited[0]} accepts it, with {invited[0]}'s key as KEY"
    elif invited:
        who = f"{' and '.join(invited)} each accept it, each with its own key as KEY"
    else:
        who = "another account" if open_seats == 1 else f"{open_seats} other accounts"
        return "\n".join([*lines, f"next: {who} accept{'s' if open_seats == 1 else ''} it over HTTP, "
                                   f"{'with its' if open_seats == 1 else 'each with its own'} key as KEY: {post}"])
    return "\n".join([*lines, f"next: {who}: {prog} run --server {server} --key KEY --accept {offered['game']}",
                       f"      (or {post})"])


def _run_one(args: argparse.Namespace, prog: str) -> int:
    """Play one game."""
    from cardhall_client.runner import NewGame, play, start
    from cardhall_client.witness import Witness

    if args.seat_token and not args.game:
        return _usage(f"{prog}: --seat-token resumes a seat of the game given with --game")
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
            return _failed(prog, error)
    return 0 if final["status"] == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())

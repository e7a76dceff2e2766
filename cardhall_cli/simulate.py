"""``cardhall simulate``: many games between local bot files and house bots, over processes, with no server.

Each game is a :class:`cardhall_env.match.Match`: the server's rules, its shuffles and
house bots drawn from ``random.Random`` seeded with ``SEED:number``. Entrants take the
seats in the arena's rotation (:func:`cardhall_client.arena.seating`). A house entrant sits as a
house bot, played as the server plays one (out of turn too); a file bot is asked for
its move when it is on turn, with its seat's view as ``cardhall bot run`` gets it, and
lets out-of-turn moves pass, as the in-memory arena does. A move a file bot gets wrong
is replaced by its first legal one and counted, and the first of them said (where and why).
A file bot's move has ``--move-seconds``: past them its turn is timed out as a server times out
a seat whose clock ran out (:meth:`cardhall_env.match.Match.time_out`), and counted.
While the games run, a terminal's standard error shows how many are done.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import math
import random
import signal
import sys
import time
from collections.abc import Mapping
from typing import Any

from cardhall_cli import command
from cardhall_client.cli import option
from cardhall_client.loading import Choose, NoMove, ask
from domain.clocks import ABANDON_AFTER
from domain.errors import DomainError

Z95 = 1.959963984540054
#: A file bot's time for a move unless ``--move-seconds`` says otherwise: the clock of the server's pool and
#: tournament games.
MOVE_SECONDS = 10


@dataclasses.dataclass(frozen=True)
class Finished:
    """One game: who sat where (entrant indexes), the winners' seats, each seat's refused moves, and the first
    refusal of each seat that had one: where (``{"game", "version"}``) and why; each seat's moves timed out,
    and whether the seat was handed to a house bot for them."""

    seats: list[int]
    winners: list[int]
    illegal: list[int]
    first_illegal: list[dict[str, Any] | None] = dataclasses.field(default_factory=list)
    timed_out: list[int] = dataclasses.field(default_factory=list)
    abandoned: list[bool] = dataclasses.field(default_factory=list)


class MoveTimedOut(BaseException):
    """Raised in a file bot's move past its time (a BaseException, as KeyboardInterrupt is: the bot's own
    ``except Exception`` lets it through)."""


class MoveClock:
    """A file bot's time for a move, kept in its worker process by SIGALRM: past ``seconds`` the move is stopped,
    MoveTimedOut raised in it (again every ``seconds``, should the bot catch it). Two system calls a move."""

    def __init__(self, seconds: int) -> None:
        self.seconds, self.asking, self.past = seconds, False, False
        signal.signal(signal.SIGALRM, self._alarm)

    def _alarm(self, signum: int, frame: Any) -> None:
        if self.asking:
            self.past = True
            raise MoveTimedOut

    def ask(self, choose: Choose, view: dict[str, Any]) -> Mapping[str, Any]:
        """The move ``choose`` makes of ``view`` (:func:`cardhall_client.loading.ask`) in time; MoveTimedOut once
        past it, whatever the bot did then."""
        self.asking, self.past = True, False
        signal.setitimer(signal.ITIMER_REAL, self.seconds, self.seconds)
        try:
            return ask(choose, view)
        finally:
            self.asking = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            if self.past:
                raise MoveTimedOut


_entrants: list[Any] = []
_clock: list[MoveClock] = []


def _load(specs: list[str], move_seconds: int) -> None:
    """A worker's entrants, loaded once (a bot file is imported in each process), and its clock."""
    from cardhall_client.arena import entrant, unique

    _entrants[:] = unique([entrant(spec) for spec in specs])
    _clock[:] = [MoveClock(move_seconds)]


def play_one(game: str, players: int, number: int, seed: int, options: dict[str, Any]) -> Finished:
    """Game ``number`` of a simulation seeded ``seed``."""
    from cardhall_client.arena import seating
    from cardhall_env.match import Match

    seats = seating(_entrants, players, number)
    sitting = [_entrants[index] for index in seats]
    random.seed(f"{seed}:{number}")  # (file bots that use the random module replay the same)
    match = Match(game, players, options, rng=random.Random(f"{seed}:{number}"),
                  bots_at={seat: one.house for seat, one in enumerate(sitting) if one.house})
    illegal, timed_out = [0] * players, [0] * players
    first: list[dict[str, Any] | None] = [None] * players
    clock = _clock[0]
    while not match.over:
        if match.may_pass:
            match.step(match.actions.pass_id)
            continue
        seat, view = match.seat, match.view(match.seat)
        move = None
        try:
            move = clock.ask(sitting[seat].choose, view)
            match.play(move)
        except MoveTimedOut:
            timed_out[seat] += 1
            match.time_out(clock.seconds)
        except (NoMove, DomainError, ValueError, KeyError, TypeError) as error:
            illegal[seat] += 1
            if first[seat] is None:
                first[seat] = {"game": number, "version": view["version"], "why": refusal(error, move, view)}
            match.play(view["legal_moves"][0])
    abandoned = [seat in match.table.abandoned for seat in range(players)]
    return Finished(seats, match.view(None)["result"]["winners"], illegal, first, timed_out, abandoned)


def refusal(error: Exception, move: Any, view: dict[str, Any]) -> str:
    """Why a file bot's move was refused, in a line: what it raised, or the move it made that was not legal."""
    if isinstance(error, NoMove) or move is None:
        return str(error)
    legal = json.dumps(view["legal_moves"])
    return (f"it returned {json.dumps(move, default=repr)}, which is not among its legal moves "
            f"{legal if len(legal) <= 200 else legal[:200] + '…'}")


def _play_many(game: str, players: int, numbers: range, seed: int, options: dict[str, Any]) -> list[Finished]:
    return [play_one(game, players, number, seed, options) for number in numbers]


def simulate(game: str, players: int, specs: list[str], games: int, seed: int, options: dict[str, Any],
             processes: int, move_seconds: int = MOVE_SECONDS) -> tuple[list[Finished], float]:
    """Play ``games`` games over ``processes`` processes, a file bot's moves ``move_seconds`` each at most; the
    games (in order) and the seconds they took."""
    chunk = max(1, min(50, games // (processes * 4) or 1))
    started = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(processes, initializer=_load, initargs=(specs, move_seconds)) as pool:
        parts = [pool.submit(_play_many, game, players, range(first, min(first + chunk, games)), seed, options)
                 for first in range(0, games, chunk)]
        done = 0
        for part in concurrent.futures.as_completed(parts):
            done += len(part.result())
            _progress(done, games, time.perf_counter() - started)
        finished = [one for part in parts for one in part.result()]
    _progress(None, games, 0.0)
    return finished, time.perf_counter() - started


def _progress(done: int | None, games: int, seconds: float) -> None:
    """How many games are done, on a terminal's standard error, in one line written over (None: rubbed out)."""
    if not sys.stderr.isatty():
        return
    if done is None:
        line = ""
    else:
        left = seconds / done * (games - done)
        line = f"{done:,}/{games:,} games, {done / seconds:,.1f} games/s, about {left:,.0f} s left"
    sys.stderr.write(f"\r{line:<60}\r" if line else f"\r{'':<60}\r")
    sys.stderr.flush()


def wilson(wins: float, n: int) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate of ``wins`` in ``n``."""
    if n == 0:
        return (math.nan, math.nan)
    rate, z2 = wins / n, Z95 * Z95
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (centre - half, centre + half)


def standings(names: list[str], players: int, finished: list[Finished]) -> list[dict[str, Any]]:
    """Per entrant: seats played, wins (a tie's shared), the win rate, its 95 % interval, and chance; its moves
    refused (and the first), its moves timed out and its seats handed to a house bot for them."""
    rows = []
    for index, name in enumerate(names):
        seats = wins = illegal = timed_out = abandoned = 0
        first = None
        for one in finished:
            for seat, sitter in enumerate(one.seats):
                if sitter == index:
                    seats += 1
                    wins += 1 / len(one.winners) if seat in one.winners else 0
                    illegal += one.illegal[seat]
                    timed_out += one.timed_out[seat]
                    abandoned += one.abandoned[seat]
                    if first is None and one.first_illegal and one.first_illegal[seat] is not None:
                        first = one.first_illegal[seat]
        low, high = wilson(wins, seats)
        rows.append({"name": name, "seats": seats, "wins": wins, "win_rate": wins / seats if seats else math.nan,
                     "ci95": [low, high], "chance": 1 / players, "illegal_moves": illegal, "first_illegal": first,
                     "timed_out_moves": timed_out, "abandoned_seats": abandoned})
    return rows


def timeouts(name: str, timed_out: int, abandoned: int, seconds: int) -> str:
    """An entrant's timeouts in a line: how many, what became of those turns and seats."""
    line = (f"{name}: {timed_out:,} move{'s' if timed_out != 1 else ''} timed out (past {seconds} s), each turn "
            "played for it as a server plays a timed-out seat's, by the game's default move")
    if abandoned:
        line += (f"; {abandoned:,} seat{'s' if abandoned != 1 else ''} then handed to a house bot for the rest of "
                 f"the game, after {ABANDON_AFTER} timeouts in a row")
    return line


def positive(text: str) -> int:
    """A count given on the command line: a whole number, at least 1."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number of at least 1, not {text!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"at least 1, not {number}")
    return number


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="the game to play (craits, scat, or any registered game)")
    parser.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    parser.add_argument("--bot", action="append", required=True, metavar="[NAME=]BOT",
                        help="an entrant: random, greedy, path.py:function or name=path.py:function (repeatable)")
    parser.add_argument("--games", type=positive, default=1000, help="games to play (default 1000)")
    parser.add_argument("--processes", type=positive, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, help="game n is seeded SEED:n (default: random, printed)")
    parser.add_argument("--option", action="append", type=option, default=[], metavar="NAME=VALUE",
                        help="a game option for every game, e.g. short=true (repeatable)")
    parser.add_argument("--move-seconds", type=positive, default=MOVE_SECONDS, metavar="SECONDS",
                        help=f"a bot file's time for a move, past which its turn is timed out as on a server "
                             f"(default {MOVE_SECONDS})")
    parser.add_argument("--json", metavar="FILE", help="also write the standings as JSON to FILE")


@command("simulate", _arguments)
def run(args: argparse.Namespace) -> int:
    """Simulate many games between bot files and house bots, over processes, no server; print win rates."""
    from cardhall_client.arena import entrant, unique
    from cardhall_env.match import check_table

    try:
        check_table(args.game, args.players, dict(args.option))
    except ValueError as error:
        print(f"cardhall: {error}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1_000_000_000)
    names = [one.name for one in unique([entrant(spec) for spec in args.bot])]  # (checks every file loads)
    finished, seconds = simulate(args.game, args.players, args.bot, args.games, seed, dict(args.option),
                                 args.processes, args.move_seconds)
    rows = standings(names, args.players, finished)
    print(f"{args.game}, {args.players} players, {args.games} games, seed {seed}: "
          f"{args.games / seconds:,.1f} games/s over {args.processes} process{'es' if args.processes != 1 else ''}")
    print(f"{'entrant':<24}{'seats':>7}{'wins':>9}{'win rate':>10}{'95 % interval':>18}{'chance':>8}{'illegal':>9}"
          f"{'timed out':>11}")
    for row in rows:
        low, high = row["ci95"]
        print(f"{row['name']:<24}{row['seats']:>7}{row['wins']:>9.1f}{row['win_rate']:>10.3f}"
              f"{f'{low:.3f}–{high:.3f}':>18}{row['chance']:>8.3f}{row['illegal_moves']:>9}{row['timed_out_moves']:>11}")
    for row in rows:
        if first := row["first_illegal"]:
            print(f"{row['name']}: {row['illegal_moves']:,} move{'s' if row['illegal_moves'] != 1 else ''} refused, "
                  f"each replaced by the first legal move; the first in game {first['game']}, at version "
                  f"{first['version']}: {first['why']}")
    for row in rows:
        if timed_out := row["timed_out_moves"]:
            print(timeouts(row["name"], timed_out, row["abandoned_seats"], args.move_seconds))
    if args.json:
        about = {"game": args.game, "players": args.players, "games": args.games, "seed": seed,
                 "options": dict(args.option), "move_seconds": args.move_seconds,
                 "games_per_second": args.games / seconds, "standings": rows}
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(about, out, indent=2)
    return 0

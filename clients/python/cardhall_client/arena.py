"""The arena: entrants play many seeded games with fair seat rotation; results by entrant.

How one game is played is given to :func:`run`: through a server with the client
(:func:`play_remote`), or in the CLI's own process (``cardhall_cli.arena``, the
server's rules engine; this package speaks HTTP only). Built-in entrants ``random``
and ``greedy`` are the house bots; through a server they sit as house bots, so the
server plays them.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from typing import Any

from cardhall_client.loading import Choose, NoMove, ask, load_bot
from cardhall_client.types import Result

HOUSE_BOTS = ("random", "greedy")


@dataclasses.dataclass(frozen=True)
class Entrant:
    """A bot in the arena: its ``name`` and, for a file bot, its ``choose``; ``house`` for a house bot."""

    name: str
    choose: Choose | None = None
    house: str | None = None


def entrant(spec: str) -> Entrant:
    """``random``, ``greedy``, ``path.py:function`` or ``name=path.py:function``."""
    if spec in HOUSE_BOTS:
        return Entrant(spec, house=spec)
    name, _, bot = spec.rpartition("=")
    if bot in HOUSE_BOTS:
        return Entrant(name or bot, house=bot)
    return Entrant(name or default_name(bot), choose=load_bot(bot))


def default_name(bot: str) -> str:
    """An unnamed bot's name: its file's (``mybot`` for ``path/to/mybot.py:choose``), with its function's when that
    is not ``choose`` (``mybot:cautious``). Named after the function alone, every bot written as the docs show
    would be ``choose``, ``choose#2``…"""
    source, _, function = bot.rpartition(":") if ":" in bot else (bot, ":", "choose")
    stem = source.rpartition("/")[2].removesuffix(".py")
    return stem if function in ("", "choose") else f"{stem}:{function}"


def unique(entrants: list[Entrant]) -> list[Entrant]:
    """The entrants with names made distinct (``greedy``, ``greedy#2``...)."""
    seen: dict[str, int] = {}
    named = []
    for one in entrants:
        seen[one.name] = seen.get(one.name, 0) + 1
        named.append(one if seen[one.name] == 1 else dataclasses.replace(one, name=f"{one.name}#{seen[one.name]}"))
    return named


def seating(entrants: list[Entrant], players: int, game_number: int) -> list[int]:
    """Which entrant (by index) sits in each seat of game ``game_number``: a rotation, so seats even out."""
    return [(game_number + seat) % len(entrants) for seat in range(players)]


@dataclasses.dataclass(frozen=True)
class Played:
    """One finished game: who sat where and how it ended."""

    number: int
    seed: int
    seats: list[int]
    result: Result
    illegal: list[int]  # per seat: moves refused and replaced by the first legal one


def play_remote(client: Any, game: str, players: int, entrants: list[Entrant], number: int, seed: int,
                options: dict[str, Any]) -> Played:
    """One game through a server: house entrants sit as house bots, file bots play with the client."""
    from cardhall_client.errors import IllegalMove, ValidationError

    seats = seating(entrants, players, number)
    game_id = client.create_game(game, players, {**options, "seed": seed})["id"]
    mine: dict[int, Any] = {}
    for seat, index in enumerate(seats):
        one = entrants[index]
        if one.house:
            client.seat_bot(game_id, one.house)
        else:
            mine[seat] = client.seated(client.join(game_id, one.name)["token"])
    illegal = [0] * players
    view = client.state(game_id)
    while view["status"] != "finished":
        seat = view["to_act"][0]
        mover = mine[seat]
        own = mover.state(game_id)
        try:
            mover.move(game_id, ask(entrants[seats[seat]].choose, own), expected_version=own["version"])
        except (NoMove, IllegalMove, ValidationError):
            illegal[seat] += 1
            mover.move(game_id, own["legal_moves"][0], expected_version=own["version"])
        view = client.state(game_id)
    return Played(number, seed, seats, view["result"], illegal)


#: Plays one game: ``(game, players, entrants, number, seed, options)`` to how it ended.
PlayOne = Callable[[str, int, list[Entrant], int, int, dict[str, Any]], Played]


def run(game: str, players: int, entrants: list[Entrant], games: int, seed: int, *,
        play: PlayOne, options: dict[str, Any] | None = None) -> Iterator[Played]:
    """Play ``games`` games with ``play``, game ``n`` seeded ``seed + n``; yields each as it ends.

    The ``random`` module is seeded before each game too, so file bots that use it replay the same.
    """
    for number in range(games):
        random.seed(f"{seed}:{number}")
        yield play(game, players, entrants, number, seed + number, dict(options or {}))

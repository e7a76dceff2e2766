"""House bots: pick a move from what a seat may see.

``choose(game, kind, view, rng)`` takes the dict :func:`domain.table.view`
returns for the bot's seat (``legal_moves`` included) and returns one of those
moves. ``random`` picks uniformly, in every game; ``greedy`` plays the game's own
strategy, the one its :meth:`domain.game.Game.house_bot` gives (Craits' and Scat's
are their packages' ``bots`` modules), and plays randomly in a game that has none.
A game's bots come with the game: nothing here names one. Bots see only the view:
never another seat's cards.

``out_of_turn(game, kind, view, rng)`` is asked when a bot that is not to act is
offered moves anyway (announce, call, declare_31): it returns one of them, or
None to let the moment pass. ``greedy`` takes every such move (each one helps it
or hurts an opponent); ``random`` takes one half of the time.
"""

from __future__ import annotations

import random
from typing import Any

from domain.game import Game, get_game

BOT_KINDS = ("random", "greedy")


def needs_view(kind: str) -> bool:
    """Whether a bot of ``kind`` reads more of its view than ``legal_moves`` (the ``random`` bot
    does not: it may be shown ``{"legal_moves": [...]}`` alone, sparing a whole view per turn)."""
    return kind != "random"


def choose(game: Game | str, kind: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The move a house bot of ``kind`` makes from ``view`` in ``game`` (a game, or its name)."""
    moves = view["legal_moves"]
    if not moves:
        raise ValueError("a bot was asked to move with no legal move")
    if kind == "greedy":
        strategy = (get_game(game) if isinstance(game, str) else game).house_bot(kind)
        if strategy is not None:
            return strategy(view, rng)
    elif kind != "random":
        raise ValueError(f"unknown bot kind {kind!r}; house bots: {', '.join(BOT_KINDS)}")
    return rng.choice(moves)


def out_of_turn(game: Game | str, kind: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """The out-of-turn move a house bot of ``kind`` makes from ``view``, or None to pass."""
    moves = view["legal_moves"]
    if not moves:
        return None
    if kind == "greedy":
        return choose(game, kind, view, rng)
    if kind != "random":
        raise ValueError(f"unknown bot kind {kind!r}; house bots: {', '.join(BOT_KINDS)}")
    return rng.choice(moves) if rng.random() < 0.5 else None

"""Cardhall's games as local environments: the server's own rules, no server (``docs/env.md``).

``make("craits", players=4)`` is a PettingZoo AEC environment, one agent a seat;
``single("scat", players=3, opponents="greedy")`` a Gymnasium environment of one
seat against house bots; ``from_log(events)`` an AEC environment that starts a
server game's logged game and steps through it. Every game registered under the
``cardhall.games`` entry point is offered (``register()`` names ``single``'s for
``gymnasium.make``). This package imports the domain and the house bots, never the
server's layers; PettingZoo and Gymnasium come with ``pip install -e '.[env]'`` and are
imported only when an environment is made (or registered)
(``cardhall simulate`` plays :class:`cardhall_env.match.Match` without them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cardhall_env.aec import CardhallEnv
    from cardhall_env.one_seat import Choose, SingleSeatEnv


def make(game: str, players: int = 2, render_mode: str | None = None, *, history: bool = False,
         **options: Any) -> CardhallEnv:
    """The PettingZoo AEC environment of ``game`` for ``players`` seats, with the game's ``options``. ``history``:
    keep every version, for ``view_at``."""
    from cardhall_env.aec import CardhallEnv

    return CardhallEnv(game, players, options, render_mode, history=history)


def single(game: str, players: int = 2, *, seat: int = 0, opponents: str | Choose | Sequence[str | Choose] = "random",
           render_mode: str | None = None, **options: Any) -> SingleSeatEnv:
    """The Gymnasium environment of ``seat`` against house bots (``random`` or ``greedy``) or functions
    ``choose(view) -> move`` (bots written for the API, policies of your own), one for all or one a seat."""
    from cardhall_env.one_seat import SingleSeatEnv

    return SingleSeatEnv(game, players, options, seat=seat, opponents=opponents, render_mode=render_mode)


def register() -> list[str]:
    """Register ``single``'s environment of every game with Gymnasium, as ``cardhall/GAME-v0`` (``cardhall/scat-v0``…),
    for ``gymnasium.make`` and ``gymnasium.make_vec`` (its keyword arguments are ``single``'s); the ids. Registering
    again changes nothing."""
    import gymnasium

    from cardhall_env.observations import VECTORS
    from domain.game import all_games

    ids = []
    for game in sorted(set(VECTORS) & set(all_games())):
        env_id = f"cardhall/{game}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=single, kwargs={"game": game})
        ids.append(env_id)
    return ids


def from_log(events: Any, *, history: bool = False) -> CardhallEnv:
    """The AEC environment of a finished server game's whole log: the API's events list, or an events page that
    holds the whole game, or a record, or the path of a JSON file holding one; ValueError for a log cut short.
    Every seat is an agent, a house bot's too; its chance is the log's own shuffles, and
    ``next_logged_action()`` steps through the logged moves; any other legal step leaves the log, and the game
    goes on as the environment's own. ``history``: keep every version, for ``view_at``."""
    from cardhall_env.aec import CardhallEnv
    from cardhall_env.match import decode_log

    log = decode_log(events)
    created = log[0]
    return CardhallEnv(created.game, created.players, created.options, log=log, history=history)

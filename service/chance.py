"""Drawing chance outcomes: the only place where shuffles happen.

The domain says which shuffle it waits for (a :class:`ChanceRequest`); this
module produces the card order, which is then recorded as an event, so replay
never draws again. Policy (see the API contract, "Game options"):

* deal ``k`` of a game with ``decks`` uses ``decks[k]`` while there is one;
* a reshuffle in a game with ``decks`` turns the pile over unshuffled: the card
  played first (the bottom of the pile) becomes the top of the new draw pile;
* everything else is shuffled: by ``random.Random(f"{seed}:{version}")`` when
  the game has a ``seed`` (``version`` is the number the event will get, so the
  same seed and the same moves give the same game), else by the system's
  cryptographic source.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from domain.game import ChanceRequest

_system = random.SystemRandom()


def rng_for(options: Mapping[str, Any], version: int, salt: str = "") -> random.Random:
    """The random source for the event numbered ``version`` of a game with ``options``."""
    seed = options.get("seed")
    if seed is None:
        return _system
    return random.Random(f"{seed}:{version}{salt}")


def resolve(request: ChanceRequest, options: Mapping[str, Any], version: int) -> Sequence[str]:
    """The card order for ``request``, to be recorded as event number ``version``."""
    decks = options.get("decks")
    if decks:
        if request.kind == "deal" and request.deal is not None and request.deal < len(decks):
            return tuple(decks[request.deal])
        if request.kind == "reshuffle":
            return tuple(request.cards)
    order = list(request.cards)
    rng_for(options, version).shuffle(order)
    return tuple(order)

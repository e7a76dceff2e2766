"""Drawing chance outcomes: the only place where shuffles happen.

The domain says which shuffle it waits for (a :class:`ChanceRequest`); this
module produces the card order and a fresh salt, which are then recorded,
committed, as an event, so replay never draws again. Policy (see the API
contract, "Game options" and "Fairness"):

* deal ``k`` of a game with ``decks`` uses ``decks[k]`` while there is one;
* a reshuffle in a game with ``decks`` turns the pile over unshuffled: the card
  played first (the bottom of the pile) becomes the top of the new draw pile;
* everything else is shuffled: for a game with a ``seed``, by a generator keyed
  with HMAC-SHA256 of the seed and the event's number under the deployment's
  secret (so the same seed and the same moves give the same game on one
  deployment, and nobody without the secret can search seeds against what is
  public); else by the system's cryptographic source.
* every salt comes from the system's cryptographic source, seeded game or not.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from domain.fairness import Shuffled
from domain.game import ChanceRequest

_system = random.SystemRandom()


def rng_for(options: Mapping[str, Any], version: int, secret: bytes, salt: str = "") -> random.Random:
    """The random source for the event numbered ``version`` of a game with ``options`` on a deployment
    whose shuffle secret is ``secret``; ``salt`` keeps apart the sources of one event (a bot's, a shuffle's)."""
    seed = options.get("seed")
    if seed is None:
        return _system
    key = hmac.new(secret, f"{seed}:{version}{salt}".encode(), hashlib.sha256).digest()
    return random.Random(key)


def resolve(request: ChanceRequest, options: Mapping[str, Any], version: int, secret: bytes) -> Sequence[str]:
    """The card order for ``request``, to be recorded as event number ``version``."""
    decks = options.get("decks")
    if decks:
        if request.kind == "deal" and request.deal is not None and request.deal < len(decks):
            return tuple(decks[request.deal])
        if request.kind == "reshuffle":
            return tuple(request.cards)
    order = list(request.cards)
    rng_for(options, version, secret).shuffle(order)
    return tuple(order)


def new_salt() -> str:
    """A shuffle's salt: 32 hex characters from the system's cryptographic source."""
    return secrets.token_hex(16)


def draw(request: ChanceRequest, options: Mapping[str, Any], version: int, secret: bytes) -> Shuffled:
    """The committed event recording ``request``'s outcome as event number ``version``."""
    return request.outcome(resolve(request, options, version, secret), new_salt())

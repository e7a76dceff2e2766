"""Drawing chance outcomes: the only place where shuffles happen.

The domain says which shuffle it waits for (a :class:`ChanceRequest`); this
module produces the card order and a fresh salt, which are then recorded,
committed, as an event, so replay never draws again. Policy (see the API
contract, "Game options" and "Fairness"):

* deal ``k`` of a game with ``decks`` uses ``decks[k]`` while there is one;
* a reshuffle in a game with ``decks`` turns the pile over unshuffled: the card
  played first (the bottom of the pile) becomes the top of the new draw pile;
* everything else is shuffled: in a game with a server seed (every game created
  since seeds from everyone, :mod:`domain.fairness`), by the construction that
  derives the order from the server seed, the entropy mixed in and the event's
  number; a game created before then goes on as it was: for a ``seed``, by a
  generator keyed with HMAC-SHA256 of the seed and the event's number under the
  deployment's secret, else by the system's cryptographic source.
* every salt comes from the system's cryptographic source, seeded game or not;
* a tournament's stacked decks (:func:`tournament_decks`) come from a generator keyed with
  HMAC-SHA256 of the tournament's seed and the deal's round and table under the deployment's
  secret, so the seed alone fixes every deal of the tournament.

A game's server seed (:func:`server_seed`): 32 random bytes from the system's
source; for a game with a ``seed``, HMAC-SHA256 of the seed and the game's id under
the deployment's secret, so a seed reused on one deployment deals other cards (a
creator who reused one would know every hand), and nobody without the secret can
tell them from the seed; a replay of a deal (``replay_of``) takes its original's.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from domain.cards import DECK
from domain.fairness import Seeds, Shuffled, fixed_order
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


def server_seed(options: Mapping[str, Any], game_id: str, secret: bytes) -> str:
    """A new game's server seed (64 hex): the module docstring says how it is drawn."""
    seed = options.get("seed")
    if seed is None:
        return secrets.token_hex(32)
    return hmac.new(secret, f"cardhall-seed/1:{seed}:{game_id}".encode(), hashlib.sha256).hexdigest()


def resolve(request: ChanceRequest, options: Mapping[str, Any], version: int, secret: bytes,
            seeds: Seeds | None = None) -> Sequence[str]:
    """The card order for ``request``, to be recorded as event number ``version`` (``seeds``: the
    game's, None for a game created before server seeds)."""
    fixed = fixed_order(request, version, seeds, options.get("decks"))
    if fixed is not None:
        return fixed
    order = list(request.cards)
    rng_for(options, version, secret).shuffle(order)
    return tuple(order)


def new_salt() -> str:
    """A shuffle's salt: 32 hex characters from the system's cryptographic source."""
    return secrets.token_hex(16)


def draw(request: ChanceRequest, options: Mapping[str, Any], version: int, secret: bytes,
         seeds: Seeds | None = None) -> Shuffled:
    """The committed event recording ``request``'s outcome as event number ``version``."""
    return request.outcome(resolve(request, options, version, secret, seeds), new_salt())


def bot_rng(seeds: Seeds, version: int, seat: int) -> random.Random:
    """The random source of the house bot in ``seat`` at event ``version`` of a game with ``seeds``:
    keyed with its server seed, so a replay with the same moves has the same bots' moves."""
    return random.Random(hmac.new(bytes.fromhex(seeds.server_seed), f"bot:{seat}:{version}".encode(),
                                  hashlib.sha256).digest())


def tournament_decks(seed: str, round_number: int, table: int, secret: bytes, count: int) -> list[list[str]]:
    """The ``count`` stacked decks of deal (``round_number``, ``table``) of the tournament whose seed is
    ``seed``: the same on every call, so a replay of a tournament (which takes its seed) deals the same
    cards, and nobody without the secret can tell them from the seed."""
    key = hmac.new(secret, f"cardhall-tournament/1:{seed}:{round_number}:{table}".encode(), hashlib.sha256).digest()
    rng = random.Random(key)
    return [rng.sample(DECK, len(DECK)) for _ in range(count)]

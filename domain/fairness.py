"""Provable fairness: every shuffle is committed to before anyone sees its effect.

A shuffle event records the card order it produced, a ``salt`` (32 hex
characters the service draws from the system's random source) and their
``commitment``: the lower-case hex SHA-256 of the UTF-8 text ``SALT:CARD,CARD,…``
(the API contract, "Fairness"). Every viewer sees the commitment at once; the
salt and the order only once the game is over, when anyone can recompute it.

Seeds from everyone: a game created with a server seed (:class:`Seeds`, 32 bytes
the service draws, committed to as ``server_seed_hash`` at creation and revealed
at the end) derives every shuffle's order from the server seed, every seat's
``entropy`` (64 hex characters a seat may add when it takes its seat) and the
shuffle's index (the version of the event that records it), so that no single
party, the server included, can choose a deal. The construction
(:func:`derived_order`, also written out in ``docs/api.md`` "Fairness" and in
``examples/verify_game.py``):

1. ``key = HMAC-SHA256(key=bytes.fromhex(server_seed), msg="cardhall-shuffle/1:" + E + ":" + str(index))``
   where ``E`` joins every seat's entropy in seat order with ``,`` (an empty string
   for a seat that added none);
2. a byte stream: block ``n`` (from 0) is ``HMAC-SHA256(key, n as 8 bytes big-endian)``;
3. ``below(m)``: the next 4 bytes of the stream as a big-endian integer ``u``, drawn
   again while ``u >= 2**32 - 2**32 % m``; then ``u % m``;
4. the cards sorted by their codes (``sorted()``: by code points), then Fisher–Yates
   from the end: for ``i`` from ``len - 1`` down to 1, swap ``i`` and ``below(i + 1)``.

A game whose chance its creator fixed mixes a fixed entropy list instead of the
seats' (``Seeds.fixed``): none for a seeded game, its original's for a replay.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from domain.copying import maker
from domain.events import Event

if TYPE_CHECKING:
    from domain.game import ChanceRequest


def commitment(salt: str, order: Sequence[str]) -> str:
    """The commitment to ``order`` under ``salt``, exactly as the contract defines it."""
    return hashlib.sha256(f"{salt}:{','.join(order)}".encode()).hexdigest()


@dataclasses.dataclass(frozen=True, slots=True)
class Shuffled(Event):
    """Base of every shuffle event: the ``order`` (index 0 the top card), its ``salt`` and ``commitment``.

    Shuffles recorded before commitments existed have neither: they are read with
    ``salt`` and ``commitment`` None (see :meth:`upcast`) and never verify.
    """

    #: What the shuffle is for: ``dealer_draw``, ``deal`` or ``reshuffle`` (a game's own classes say;
    #: a stacked game deals its decks and turns its pile over, :func:`expected_order`).
    kind: ClassVar[str] = "shuffle"

    order: tuple[str, ...]
    salt: str | None = None
    commitment: str | None = None

    @classmethod
    def committed(cls, order: Sequence[str], salt: str) -> Shuffled:
        """The event recording ``order``, committed under ``salt``."""
        order = tuple(order)
        return maker(cls)(None, order, salt, commitment(salt, order))  # (cls(...), without its frozen __setattr__s)

    @classmethod
    def upcast(cls, data: Mapping[str, Any]) -> dict[str, Any]:
        """A shuffle stored before commitments (``order`` alone): no salt, no commitment."""
        return {"salt": None, "commitment": None, **data}

    def verifies(self) -> bool:
        """Whether the salt and order recorded give the commitment recorded."""
        return self.salt is not None and self.commitment == commitment(self.salt, self.order)

    def public_data(self) -> dict[str, Any]:
        """The event as anyone sees it before the game is over: the commitment only."""
        return {"order": None, "salt": None, "commitment": self.commitment}


SHUFFLE_LABEL = "cardhall-shuffle/1"


def seed_hash(server_seed: str) -> str:
    """The commitment to a server seed: the lower-case hex SHA-256 of its 32 bytes."""
    return hashlib.sha256(bytes.fromhex(server_seed)).hexdigest()


@dataclasses.dataclass(frozen=True, slots=True)
class Seeds:
    """A game's chance material: its ``server_seed`` (64 hex) and the ``entropy`` mixed in, by seat.

    ``fixed``: the entropy was fixed at creation (a seeded game mixes none, a replay its
    original's) and the seats' own is shown but not mixed. ``replay_of``: the game whose
    chance a replay repeats.
    """

    server_seed: str
    entropy: tuple[str | None, ...]
    fixed: bool = False
    replay_of: str | None = None

    def with_entropy(self, seat: int, entropy: str | None) -> Seeds:
        """The seeds once ``seat`` was taken with ``entropy`` (unchanged when the entropy is fixed)."""
        if self.fixed:
            return self
        return dataclasses.replace(self, entropy=self.entropy[:seat] + (entropy,) + self.entropy[seat + 1 :])

    def order(self, cards: Iterable[str], index: int) -> tuple[str, ...]:
        """The order of ``cards`` for the shuffle recorded as event number ``index``."""
        return derived_order(cards, self.server_seed, self.entropy, index)


def shuffle_key(server_seed: str, entropy: Sequence[str | None], index: int) -> bytes:
    """Step 1 of the construction: the key of the shuffle numbered ``index``."""
    message = f"{SHUFFLE_LABEL}:{','.join(item or '' for item in entropy)}:{index}"
    return hmac.new(bytes.fromhex(server_seed), message.encode(), hashlib.sha256).digest()


def _words(key: bytes) -> Iterator[int]:
    """Steps 2 and 3: the stream's 4-byte big-endian words."""
    block = 0
    while True:
        chunk = hmac.new(key, block.to_bytes(8, "big"), hashlib.sha256).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(chunk[offset : offset + 4], "big")
        block += 1


def derived_order(cards: Iterable[str], server_seed: str, entropy: Sequence[str | None], index: int
                  ) -> tuple[str, ...]:
    """The construction of the module docstring: ``cards`` shuffled for the shuffle numbered ``index``."""
    order = sorted(cards)
    words = _words(shuffle_key(server_seed, entropy, index))
    for i in range(len(order) - 1, 0, -1):
        span = i + 1
        limit = 2**32 - 2**32 % span
        word = next(words)
        while word >= limit:
            word = next(words)
        j = word % span
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def fixed_order(request: ChanceRequest, version: int, seeds: Seeds | None,
                decks: Sequence[Sequence[str]] | None) -> tuple[str, ...] | None:
    """The order chance has no say in for ``request``, to be recorded as event number ``version``: a stacked
    game's deal k is ``decks[k]`` while there is one, and its pile is turned over unshuffled; every other shuffle
    is the order the server seed and the seats' entropy derive. None for a game stored before server seeds,
    whose shuffles are drawn (the server's from its own sources, an environment's from its seed)."""
    if decks:
        if request.kind == "deal" and request.deal is not None and request.deal < len(decks):
            return tuple(decks[request.deal])
        if request.kind == "reshuffle":
            return tuple(request.cards)
    return None if seeds is None else seeds.order(request.cards, version)


def expected_order(event: Shuffled, index: int, seeds: Seeds | None, decks: Sequence[Sequence[str]] | None,
                   deals_before: int) -> tuple[str, ...] | None:
    """The order the shuffle recorded as event ``index`` had to have, or None where the log alone cannot
    tell (a game stored before server seeds; a stacked game's pile turned over, which only its state shows).

    ``deals_before``: how many deals the game dealt before this shuffle (deal k of a stacked game is ``decks[k]``).
    """
    if decks:
        if event.kind == "deal" and deals_before < len(decks):
            return tuple(decks[deals_before])
        if event.kind == "reshuffle":
            return None
    return None if seeds is None else seeds.order(event.order, index)


def audit(shuffles: Iterable[tuple[int, Shuffled]], over: bool, seeds: Seeds | None = None,
          decks: Sequence[Sequence[str]] | None = None) -> dict[str, Any]:
    """The audit of a game's shuffles, each with its event's version: every commitment, and once
    the game is ``over`` every salt and order, whether they give the commitment and whether the order
    is the one the server seed, the seats' entropy and the index derive (``derived``; for a stacked
    deal, its deck); ``verified`` for them all.

    A game with a shuffle that committed to nothing (stored before commitments) never verifies.
    """
    entries, deals = [], 0
    for version, event in shuffles:
        expected = expected_order(event, version, seeds, decks, deals) if over else None
        entries.append(_audited(version, event, over, expected))
        deals += event.kind == "deal"
    return {"verified": all(entry["ok"] for entry in entries) if over else None, "shuffles": entries}


def _audited(version: int, event: Shuffled, over: bool, expected: tuple[str, ...] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"version": version, "type": event.type_name(), **event.public_data(), "ok": None,
                             "derived": None}
    if over:
        derived = None if expected is None else expected == event.order
        entry.update(salt=event.salt, order=list(event.order), derived=derived,
                     ok=event.verifies() and derived is not False)
    return entry

"""Provable fairness: every shuffle is committed to before anyone sees its effect.

A shuffle event records the card order it produced, a ``salt`` (32 hex
characters the service draws from the system's random source) and their
``commitment``: the lower-case hex SHA-256 of the UTF-8 text ``SALT:CARD,CARD,…``
(the API contract, "Fairness"). Every viewer sees the commitment at once; the
salt and the order only once the game is over, when anyone can recompute it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from domain.events import Event


def commitment(salt: str, order: Sequence[str]) -> str:
    """The commitment to ``order`` under ``salt``, exactly as the contract defines it."""
    return hashlib.sha256(f"{salt}:{','.join(order)}".encode()).hexdigest()


@dataclasses.dataclass(frozen=True, slots=True)
class Shuffled(Event):
    """Base of every shuffle event: the ``order`` (index 0 the top card), its ``salt`` and ``commitment``.

    Shuffles recorded before commitments existed have neither: they are read with
    ``salt`` and ``commitment`` None (see :meth:`upcast`) and never verify.
    """

    order: tuple[str, ...]
    salt: str | None = None
    commitment: str | None = None

    @classmethod
    def committed(cls, order: Sequence[str], salt: str) -> Shuffled:
        """The event recording ``order``, committed under ``salt``."""
        order = tuple(order)
        return cls(None, order=order, salt=salt, commitment=commitment(salt, order))

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


def audit(shuffles: Iterable[tuple[int, Shuffled]], over: bool) -> dict[str, Any]:
    """The audit of a game's shuffles, each with its event's version: every commitment, and once
    the game is ``over`` every salt and order and whether they match; ``verified`` for them all.

    A game with a shuffle that committed to nothing (stored before commitments) never verifies.
    """
    entries = [_audited(version, event, over) for version, event in shuffles]
    return {"verified": all(entry["ok"] for entry in entries) if over else None, "shuffles": entries}


def _audited(version: int, event: Shuffled, over: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {"version": version, "type": event.type_name(), **event.public_data(), "ok": None}
    if over:
        entry.update(salt=event.salt, order=list(event.order), ok=event.verifies())
    return entry

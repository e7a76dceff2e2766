"""Game options: their specification and one validator for every game.

Every game takes ``seed``, ``move_seconds`` and ``decks`` (see the API contract);
each game adds its own, a game with a dealer drawn for ``first_dealer``
(:func:`first_dealer`). Validation is pure and raises ``InvalidOptions`` naming
the option at fault.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from domain.cards import is_full_deck
from domain.errors import InvalidOptions


@dataclasses.dataclass(frozen=True)
class OptionSpec:
    """One option: its JSON kind (``int``, ``bool``, ``seat``, ``decks``), default and bounds."""

    name: str
    kind: str
    description: str
    default: Any = None
    minimum: int | None = None
    maximum: int | None = None
    hidden: bool = False  # fixes chance: hidden from players until the game is over

    def describe(self) -> dict[str, Any]:
        """The option as listed by ``GET /v1/game-types``."""
        out = {"type": self.kind, "description": self.description, "default": self.default}
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


COMMON_OPTIONS = (
    OptionSpec(
        "seed",
        "int",
        "Seed for every shuffle: the same seed and moves give the same game.",
        minimum=-(2**63),
        maximum=2**63 - 1,
        hidden=True,
    ),
    OptionSpec(
        "move_seconds",
        "int",
        "A clock: seconds each turn may take; past them the server plays the turn (see Clocks).",
        minimum=1,
        maximum=86_400,
    ),
    OptionSpec(
        "decks",
        "decks",
        "Stacked decks: full 52-card orders (index 0 the top card) used for the first deals in turn.",
        maximum=64,
        hidden=True,
    ),
)


def first_dealer(rule: str) -> OptionSpec:
    """The option of a game whose first dealer is drawn for (the draw's rule: ``rule``, e.g. ``C4``):
    ``first_dealer``, the seat that deals first, skipping the draw."""
    return OptionSpec("first_dealer", "seat", f"Seat of the first dealer; skips the dealer draw ({rule}).")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_one(spec: OptionSpec, value: Any, players: int) -> Any:
    name = spec.name
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise InvalidOptions(f"option '{name}' must be true or false")
        return value
    if spec.kind == "decks":
        if not isinstance(value, list | tuple) or not value or len(value) > (spec.maximum or len(value)):
            raise InvalidOptions(f"option 'decks' must be a list of 1 to {spec.maximum} full 52-card orders")
        for index, deck in enumerate(value):
            if not isinstance(deck, list | tuple) or not is_full_deck(deck):
                raise InvalidOptions(f"decks[{index}] is not a permutation of the 52 cards")
        return [list(deck) for deck in value]
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON does not tell 2 from 2.0
    if not _is_int(value):
        raise InvalidOptions(f"option '{name}' must be an integer")
    if spec.kind == "seat" and not 0 <= value < players:
        raise InvalidOptions(f"option '{name}' must be a seat from 0 to {players - 1}")
    if spec.minimum is not None and value < spec.minimum:
        raise InvalidOptions(f"option '{name}' must be at least {spec.minimum}")
    if spec.maximum is not None and value > spec.maximum:
        raise InvalidOptions(f"option '{name}' must be at most {spec.maximum}")
    return value


def validate_options(specs: Mapping[str, OptionSpec], players: int, options: Any) -> dict[str, Any]:
    """The options with defaults filled in; unknown or bad options raise InvalidOptions."""
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise InvalidOptions("options must be an object")
    unknown = sorted(set(options) - set(specs))
    if unknown:
        raise InvalidOptions(f"unknown option(s): {', '.join(map(str, unknown))}; known: {', '.join(sorted(specs))}")
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        if name not in options:
            if spec.default is not None:
                out[name] = spec.default
            continue
        if options[name] is None:
            raise InvalidOptions(f"option '{name}' may be left out but not null")
        out[name] = _check_one(spec, options[name], players)
    return out

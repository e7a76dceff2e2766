"""Moves: imperative commands a seat sends (``Play``, ``Draw``, ``Knock``).

A move class is a frozen dataclass with a class-level ``type`` (the API's
``"type"`` string). Fields carry a ``kind`` in their metadata so that one
parser can check any game's moves: ``card`` (a card code), ``suit`` (a suit
letter), ``seat`` (an integer), ``bool``, or ``choice`` with ``choices``.
A field with a default is optional.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from domain.cards import is_card, is_suit
from domain.errors import InvalidMove


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """Base of every move."""

    type: ClassVar[str] = ""

    def as_dict(self) -> dict[str, Any]:
        """The move as the API's JSON object; optional fields left unset are omitted."""
        out: dict[str, Any] = {"type": self.type}
        for name, default in _defaults(type(self)):
            value = getattr(self, name)
            if default is not dataclasses.MISSING and value == default:
                continue
            out[name] = value
        return out


#: Each move class's fields and their defaults, once: dataclasses.fields() rebuilds its tuple per call.
_DEFAULTS: dict[type, tuple[tuple[str, Any], ...]] = {}


def _defaults(cls: type) -> tuple[tuple[str, Any], ...]:
    found = _DEFAULTS.get(cls)
    if found is None:
        found = _DEFAULTS[cls] = tuple((field.name, field.default) for field in dataclasses.fields(cls))
    return found


def field(kind: str, *, choices: tuple[str, ...] = (), default: Any = dataclasses.MISSING) -> Any:
    """Declare a move field of ``kind`` (``card``, ``suit``, ``seat``, ``bool``, ``choice``)."""
    return dataclasses.field(default=default, metadata={"kind": kind, "choices": choices})


def _check(kind: str, choices: tuple[str, ...], value: Any) -> bool:
    if kind == "card":
        return is_card(value)
    if kind == "suit":
        return is_suit(value)
    if kind == "seat":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "choice":
        return isinstance(value, str) and value in choices
    raise AssertionError(f"unknown move field kind {kind}")


_EXPECTED = {
    "card": "a card code such as 'TH' (rank A23456789TJQK, suit CDHS)",
    "suit": "one of 'C', 'D', 'H', 'S'",
    "seat": "a seat number (integer from 0)",
    "bool": "true or false",
}


class MoveParser:
    """Turns API move objects into a game's move classes, or raises InvalidMove."""

    def __init__(self, classes: Iterable[type[Move]]) -> None:
        self.classes = {cls.type: cls for cls in classes}

    def parse(self, data: Mapping[str, Any]) -> Move:
        """Parse one move object; unknown types and bad fields raise InvalidMove."""
        if not isinstance(data, Mapping):
            raise InvalidMove("a move must be a JSON object with a 'type'")
        move_type = data.get("type")
        cls = self.classes.get(move_type) if isinstance(move_type, str) else None
        if cls is None:
            known = ", ".join(sorted(self.classes))
            raise InvalidMove(f"unknown move type {move_type!r}; this game knows: {known}")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        extra = set(data) - set(fields) - {"type"}
        if extra:
            raise InvalidMove(f"'{move_type}' takes no field {', '.join(sorted(map(str, extra)))}")
        kwargs = {}
        for name, spec in fields.items():
            if name not in data or data[name] is None:
                if spec.default is dataclasses.MISSING:
                    raise InvalidMove(f"'{move_type}' needs the field '{name}'")
                continue
            kind, choices = spec.metadata["kind"], spec.metadata["choices"]
            if not _check(kind, choices, data[name]):
                expected = _EXPECTED.get(kind) or "one of " + ", ".join(repr(c) for c in choices)
                raise InvalidMove(f"'{name}' must be {expected}, not {data[name]!r}")
            kwargs[name] = data[name]
        return cls(**kwargs)

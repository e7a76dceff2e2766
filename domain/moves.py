"""Moves: imperative commands a seat sends (``Play``, ``Draw``, ``Knock``).

A move class is a frozen dataclass with a class-level ``type`` (the API's
``"type"`` string). Each field is declared with :func:`field` and a
:class:`FieldKind`: the test its JSON value must pass, the words saying what it
must be, and its JSON Schema, so that one parser checks any game's moves and
the API documents them. The kinds below are shared (``CARD``, ``SUIT``,
``SEAT``, ``BOOL``, :func:`choice`); a game declares its own as freely. A field
with a default is optional. ``examples`` are the API document's examples of
the move: a name, a summary and the move's fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from domain.cards import DECK, SUITS, is_card, is_suit
from domain.errors import InvalidMove

#: The largest seat a move may name: a 32-bit integer, as every number the API reads.
MAX_SEAT = 2**31 - 1


def _unchanged(value: Any) -> Any:
    return value


@dataclasses.dataclass(frozen=True, slots=True)
class FieldKind:
    """What a move field holds: ``accepts`` tests a JSON value, ``expected`` says in words what it must be,
    ``schema`` is its JSON Schema, and ``read`` turns an accepted value into the one the move holds."""

    accepts: Callable[[Any], bool]
    expected: str
    schema: Mapping[str, Any]
    read: Callable[[Any], Any] = _unchanged


def _is_seat(value: Any) -> bool:
    # JSON does not tell 2 from 2.0: both are seat 2.
    integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return integral and not isinstance(value, bool) and 0 <= value <= MAX_SEAT


CARD = FieldKind(is_card, "a card code such as 'TH' (rank A23456789TJQK, suit CDHS)", {"enum": list(DECK)})
SUIT = FieldKind(is_suit, "one of 'C', 'D', 'H', 'S'", {"enum": list(SUITS)})
SEAT = FieldKind(_is_seat, "a seat number (integer from 0)", {"type": "integer", "minimum": 0, "maximum": MAX_SEAT}, int)
BOOL = FieldKind(lambda value: isinstance(value, bool), "true or false", {"type": "boolean"})


def choice(*choices: str) -> FieldKind:
    """The kind of a field holding one of ``choices``."""
    return FieldKind(lambda value: isinstance(value, str) and value in choices,
                     "one of " + ", ".join(repr(option) for option in choices), {"enum": list(choices)})


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """Base of every move."""

    type: ClassVar[str] = ""
    examples: ClassVar[tuple[tuple[str, str, Mapping[str, Any]], ...]] = ()

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


def field(kind: FieldKind, *, default: Any = dataclasses.MISSING) -> Any:
    """Declare a move field of ``kind``."""
    return dataclasses.field(default=default, metadata={"kind": kind})


def kind_of(spec: dataclasses.Field) -> FieldKind:
    """The kind a move field was declared with."""
    return spec.metadata["kind"]


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
            if name not in data:
                if spec.default is dataclasses.MISSING:
                    raise InvalidMove(f"'{move_type}' needs the field '{name}'")
                continue
            kind = kind_of(spec)
            if not kind.accepts(data[name]):
                raise InvalidMove(f"'{name}' must be {kind.expected}, not {data[name]!r}")
            kwargs[name] = kind.read(data[name])
        return cls(**kwargs)

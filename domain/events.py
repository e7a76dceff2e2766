"""Events: immutable facts in the past tense, and their stored form.

Every event is a frozen dataclass deriving from :class:`Event`. Its stored form
is ``(type, seat, data)``: ``type`` the class name, ``seat`` the acting seat (or
``None`` for chance and lifecycle facts), ``data`` the other fields as JSON
values. Tuples are stored as lists and read back as tuples, so an event read
from the log compares equal to the one that was decided.

An event class whose shape changed reads what older code stored through its
``upcast`` (an *upcaster*): the stored data is never rewritten.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True)
class Event:
    """Base of every event; ``seat`` is the seat that acted, if any."""

    seat: int | None

    @classmethod
    def type_name(cls) -> str:
        """The stored ``type`` of this event class."""
        return cls.__name__

    @classmethod
    def upcast(cls, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """Stored data of an older shape, in this class's shape (a class whose shape changed overrides this)."""
        return data


def _to_json(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_to_json(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _to_json(item) for key, item in value.items()}
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_from_json(item) for item in value)
    if isinstance(value, dict):
        return {key: _from_json(item) for key, item in value.items()}
    return value


#: The data fields (all but ``seat``) of each event class met so far: dataclasses.fields()
#: rebuilds its tuple on every call.
_DATA_FIELDS: dict[type, tuple[str, ...]] = {}


def event_data(event: Event) -> dict[str, Any]:
    """The event's fields but ``seat``, as JSON values."""
    names = _DATA_FIELDS.get(type(event))
    if names is None:
        names = _DATA_FIELDS[type(event)] = tuple(
            field.name for field in dataclasses.fields(event) if field.name != "seat"
        )
    return {name: _to_json(getattr(event, name)) for name in names}


class EventCatalog:
    """Maps stored type names back to event classes."""

    def __init__(self, classes: Iterable[type[Event]]) -> None:
        self._classes: dict[str, type[Event]] = {}
        self._fields: dict[str, tuple[str, ...]] = {}
        for cls in classes:
            self.add(cls)

    def add(self, cls: type[Event]) -> None:
        """Register one more event class."""
        name = cls.type_name()
        if name in self._classes and self._classes[name] is not cls:
            raise ValueError(f"two event classes are named {name}")
        self._classes[name] = cls
        self._fields[name] = tuple(f.name for f in dataclasses.fields(cls) if f.name != "seat")

    def __contains__(self, name: object) -> bool:
        return name in self._classes

    def event_class(self, type_name: str) -> type[Event]:
        """The class of events stored as ``type_name``, without rebuilding one."""
        return self._classes[type_name]

    def decode(self, type_name: str, seat: int | None, data: Mapping[str, Any]) -> Event:
        """Rebuild the event stored as ``(type_name, seat, data)``."""
        cls = self._classes[type_name]
        names = self._fields[type_name]
        try:
            kwargs = {name: _from_json(data[name]) for name in names}
        except KeyError:  # stored by older code: read through the class's upcaster
            data = cls.upcast(data)
            kwargs = {name: _from_json(data[name]) for name in names}
        return cls(seat, **kwargs)

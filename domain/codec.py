"""Frozen dataclass values as plain JSON data and back, driven by their declared types.

A game's state (and a table's seats) is frozen dataclasses of tuples, strings,
integers, booleans and None. :func:`encode` turns such a value into lists, objects,
strings, numbers, booleans and null; :func:`decode` rebuilds it from the type it is
declared as. The data names no class: reading it back constructs only the types the
code declares, so stored data can never choose what runs.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

_PLAIN = (str, int, float, bool, type(None))


def encode(value: Any) -> Any:
    """``value`` as JSON data: a dataclass as an object of its fields, a tuple as a list."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: encode(getattr(value, field.name)) for field in _init_fields(type(value))}
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {_key(key): encode(item) for key, item in value.items()}
    if isinstance(value, _PLAIN):
        return value
    raise TypeError(f"cannot encode a {type(value).__name__} as JSON data")


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"cannot encode a {type(key).__name__} key as JSON data")
    return key


def decode(hint: Any, data: Any) -> Any:
    """The value of declared type ``hint`` that :func:`encode` gave ``data`` for; ValueError if it does not fit."""
    return _decoder(hint)(data)


@functools.cache
def _decoder(hint: Any) -> Callable[[Any], Any]:
    """A function decoding data of declared type ``hint``, built once per type (a snapshot holds many values of each)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or origin in (Mapping, dict) or hint in (Mapping, dict):
        return _same
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(args)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return lambda data: tuple(map(item, _list(data, hint)))
        items = tuple(_decoder(arg) for arg in args)
        return lambda data: tuple(decode_item(value) for decode_item, value in zip(items, _list(data, hint, len(items)),
                                                                                   strict=True))
    if dataclasses.is_dataclass(hint):
        hints = _hints(hint)
        fields = tuple((field.name, _decoder(hints[field.name])) for field in _init_fields(hint))

        def decode_dataclass(data: Any) -> Any:
            values = _object(data, hint)
            return hint(**{name: decode_field(values[name]) for name, decode_field in fields})

        return decode_dataclass
    if hint in _PLAIN:
        return functools.partial(_plain, hint)
    raise TypeError(f"cannot decode a declared {hint}")


def _same(data: Any) -> Any:
    return data


def _union_decoder(args: tuple[Any, ...]) -> Callable[[Any], Any]:
    nullable = type(None) in args
    choices = tuple(_decoder(arg) for arg in args if arg is not type(None))

    def decode_union(data: Any) -> Any:
        if data is None and nullable:
            return None
        errors = []
        for choice in choices:
            try:
                return choice(data)
            except (ValueError, KeyError, TypeError) as error:
                errors.append(str(error))
        raise ValueError(f"{data!r} fits none of {args}: {'; '.join(errors)}")

    return decode_union


def _list(data: Any, hint: Any, length: int | None = None) -> list[Any]:
    if not isinstance(data, list) or (length is not None and len(data) != length):
        raise ValueError(f"expected a list for {hint}, got {data!r}")
    return data


def _object(data: Any, hint: type) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f"expected an object for {hint.__name__}, got {type(data).__name__}")
    return data


def _plain(hint: type, data: Any) -> Any:
    if isinstance(data, hint) and not (hint is int and isinstance(data, bool)):
        return data
    if hint is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    raise ValueError(f"expected {hint.__name__}, got {data!r}")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@functools.cache
def _init_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(field for field in dataclasses.fields(cls) if field.init)

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
from collections.abc import Mapping
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
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any or origin in (Mapping, dict) or hint in (Mapping, dict):
        return data
    if origin in (typing.Union, types.UnionType):
        return _decode_union(args, data)
    if origin is tuple:
        if not isinstance(data, list):
            raise ValueError(f"expected a list for {hint}, got {type(data).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], item) for item in data)
        if len(args) != len(data):
            raise ValueError(f"expected {len(args)} items for {hint}, got {len(data)}")
        return tuple(decode(arg, item) for arg, item in zip(args, data, strict=True))
    if dataclasses.is_dataclass(hint):
        if not isinstance(data, dict):
            raise ValueError(f"expected an object for {hint.__name__}, got {type(data).__name__}")
        hints = _hints(hint)
        return hint(**{field.name: decode(hints[field.name], data[field.name]) for field in _init_fields(hint)})
    if hint in _PLAIN and isinstance(data, hint) and not (hint is int and isinstance(data, bool)):
        return data
    if hint is float and isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    raise ValueError(f"expected {hint}, got {data!r}")


def _decode_union(args: tuple[Any, ...], data: Any) -> Any:
    if data is None and type(None) in args:
        return None
    errors = []
    for arg in args:
        if arg is type(None):
            continue
        try:
            return decode(arg, data)
        except (ValueError, KeyError, TypeError) as error:
            errors.append(str(error))
    raise ValueError(f"{data!r} fits none of {args}: {'; '.join(errors)}")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@functools.cache
def _init_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    return tuple(field for field in dataclasses.fields(cls) if field.init)

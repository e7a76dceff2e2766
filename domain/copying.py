"""Copying a game's state field by field: the one way every game's fold makes a new state.

A fold copies the state once an event, so replay speed hangs on the copy: it is
compiled once per class into straight-line code calling the slots' own setters,
as ``dataclasses.replace`` and a frozen dataclass's ``__init__`` slow replay down
visibly (``bench/engine.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any


def copier(target: type, names: Iterable[str]) -> Callable[[Any], Any]:
    """A function giving a new ``target`` holding the fields ``names`` of any value that has them;
    ``target`` has slots of those names (a frozen dataclass, or a mutable draft of one)."""
    names = tuple(names)
    if target.__setattr__ is object.__setattr__:  # a mutable draft: plain stores, the fastest
        stores = "".join(f" new.{name} = value.{name}\n" for name in names)
    else:  # frozen: its __setattr__ refuses, its slots' setters do not
        stores = "".join(f" _set_{name}(new, value.{name})\n" for name in names)
    namespace = {"_new": object.__new__, "_target": target,
                 **{f"_set_{name}": target.__dict__[name].__set__ for name in names}}
    exec(f"def copy(value):\n new = _new(_target)\n{stores} return new\n", namespace)
    return namespace["copy"]


def replacer(cls: type) -> Callable[..., Any]:
    """``dataclasses.replace`` for instances of the frozen dataclass ``cls``, without its checks."""
    names = tuple(field.name for field in dataclasses.fields(cls))
    copy = copier(cls, names)
    setters = {name: cls.__dict__[name].__set__ for name in names}

    def replace(value: Any, **changes: Any) -> Any:
        new = copy(value)
        for name, changed in changes.items():
            setters[name](new, changed)
        return new

    return replace

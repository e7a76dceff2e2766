"""Copying a game's state field by field: how every game's fold makes a new state.

``evolve`` copies the frozen state into a mutable draft (a class with slots of
the same names), lets the event's handler edit the draft, and then makes the
draft the new frozen state. Replay does this once an event, so its speed hangs on
the copy: it is compiled once per class into straight-line code, as
``dataclasses.replace`` and a frozen dataclass's ``__init__`` slow replay down
visibly (``bench/engine.py``, old and new in one run). The draft becomes the
frozen state without a second copy (:func:`freezer`). The values a fold or a
decision makes often (a settlement, an event) are made the same way (:func:`maker`).
"""

from __future__ import annotations

import dataclasses
import functools
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


def freezer(draft: type, target: type) -> Callable[[Any], Any]:
    """A function making a finished ``draft`` the frozen ``target`` it describes, in place: its class becomes
    ``target``, no field copied. Python allows that only between classes of the same slots in the same order
    (a TypeError otherwise); the draft, a state from then on, is never edited again."""
    if draft.__slots__ != target.__slots__:
        raise TypeError(f"{draft.__name__} and {target.__name__} must have the same slots, in the same order")

    def freeze(value: Any) -> Any:
        value.__class__ = target
        return value

    return freeze


@functools.cache
def maker(target: type) -> Callable[..., Any]:
    """A function making a ``target`` (a frozen dataclass with slots) from all its fields, given in their order:
    ``maker(target)(*values) == target(*values)``, at a third of the cost. A frozen dataclass's ``__init__`` stores
    each field through ``object.__setattr__``; here they are plain stores into a subclass of ``target`` that
    adds no slots and lets them be set, made ``target`` once they are all set (as :func:`freezer` does). Made once
    per class."""
    names = tuple(field.name for field in dataclasses.fields(target))
    draft = type(f"{target.__name__}Draft", (target,),
                 {"__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__})
    stores = "".join(f" new.{name} = {name}\n" for name in names)
    namespace = {"_new": object.__new__, "_draft": draft, "_target": target}
    exec(f"def make({', '.join(names)}):\n new = _new(_draft)\n{stores} new.__class__ = _target\n return new\n",
         namespace)
    return namespace["make"]

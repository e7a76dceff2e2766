"""The seed ``reset()`` takes, the render modes an environment is made with, and what an environment says when it is
used before ``reset()`` has begun a game."""

from __future__ import annotations

import numbers
from typing import Any

from gymnasium.error import ResetNeeded

RESET_FIRST = "call reset() first: the environment has no game before it"


class _NoGame:
    """An environment's game until ``reset()`` begins one: anything asked of it raises Gymnasium's ``ResetNeeded``
    saying to call ``reset()``. (A stand-in, not a ``__getattr__`` on the environment: that would slow every one of
    its attribute lookups, a step's too.)"""

    def __getattr__(self, name: str) -> Any:
        raise ResetNeeded(RESET_FIRST)

    def __repr__(self) -> str:
        return "<no game: call reset() first>"


#: The game an environment holds before its first ``reset()``.
NO_GAME: Any = _NoGame()


def seed_of(seed: Any) -> int | None:
    """``reset``'s seed as a Python int, or None: a Python or NumPy integer from 0 up, as Gymnasium takes (NumPy's
    too). TypeError for anything else (a float, a string, a bool), ValueError for a negative seed (``random`` would
    take -3 for 3)."""
    if seed is None or (type(seed) is int and seed >= 0):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"a seed is a whole number from 0 up (a Python or NumPy integer) or None, not {seed!r} "
                        f"({type(seed).__name__})")
    if seed < 0:
        raise ValueError(f"a seed is a whole number from 0 up, not {seed}")
    return int(seed)


def check_render_mode(render_mode: Any, offered: list[str]) -> None:
    """ValueError, at once, for a ``render_mode`` the environment does not offer (None: no rendering)."""
    if render_mode is not None and render_mode not in offered:
        raise ValueError(f"render_mode {render_mode!r} is not offered: {', '.join(offered)}, or None")

"""What an environment says when it is used before ``reset()`` has begun a game."""

from __future__ import annotations

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

"""The Gymnasium single-agent environment: one seat against the house bots (``cardhall_env.single``)."""

from __future__ import annotations

import numbers
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

import bots
from cardhall_env.actions import action_table
from cardhall_env.match import Match, check_table, in_a_line
from cardhall_env.observations import HIGH, LOW, VECTORS, vector_size
from cardhall_env.resetting import NO_GAME, RESET_FIRST, check_render_mode, seed_of

#: A bot written for the API: the move (an API move object) it makes of its seat's view.
Choose = Callable[[dict[str, Any]], Mapping[str, Any]]


class SingleSeatEnv(gymnasium.Env):
    """``seat`` is the agent; every other seat is a house bot (``random`` or ``greedy``), played as the server's
    house plays it, or a function ``choose(view) -> move`` as a bot written for the API is (a file bot of
    ``cardhall simulate``, a policy of your own: self-play), asked with its seat's view when it is on turn. An
    observation is ``{"observation": vector, "action_mask": mask}``; ``action_masks()`` gives the mask alone,
    ``info["legal_actions"]`` (of ``reset`` and ``step``) the ids it allows, as the AEC
    environment's infos do (empty once the game is over), and ``view()`` the API's JSON view of the seat. The
    reward comes when the game ends: +1 if the agent's seat is among the winners, else -1; that step's info also
    holds the game's ``result`` (``winners`` and the final ``scores`` or ``lives``), as the view's. ``render_mode``
    ``"ansi"``: ``render()`` gives the table as the agent's seat sees it, in a line.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, game: str, players: int, options: Mapping[str, Any] | None = None, *, seat: int = 0,
                 opponents: str | Choose | Sequence[str | Choose] = "random", render_mode: str | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.render_mode = render_mode
        if game not in VECTORS:
            raise ValueError(f"{game} has no observation vector yet (cardhall_env.observations.VECTORS)")
        check_table(game, players, options or {})
        if isinstance(seat, bool) or not isinstance(seat, numbers.Integral):
            raise TypeError(f"seat is a whole number from 0 to {players - 1}, not {seat!r} ({type(seat).__name__})")
        if not 0 <= seat < players:  # (before the opponents, which are counted from the other seats)
            raise ValueError(f"seat must be from 0 to {players - 1}")
        seat = int(seat)
        others = [other for other in range(players) if other != seat]
        kinds = [opponents] * len(others) if isinstance(opponents, str) or callable(opponents) else list(opponents)
        if len(kinds) != len(others) or any(not callable(kind) and kind not in bots.BOT_KINDS for kind in kinds):
            raise ValueError(f"opponents: one of {', '.join(bots.BOT_KINDS)} or a function choose(view) -> move, or "
                             f"one such for each of the {len(others)} other seats")
        self.game, self.players, self.options, self.seat = game, players, dict(options or {}), seat
        self.bots_at = {other: kind for other, kind in zip(others, kinds) if not callable(kind)}
        #: The seats a function plays, by seat (the match asks them as it asks the agent: they are no house bots).
        self.policies: dict[int, Choose] = {other: kind for other, kind in zip(others, kinds) if callable(kind)}
        self.actions = action_table(game)
        self._vector = VECTORS[game][0]
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(LOW, HIGH, (vector_size(game),), np.float32),
            "action_mask": spaces.Box(0, 1, (self.actions.size,), np.int8),
        })
        self.action_space = spaces.Discrete(self.actions.size)
        self.match: Match = NO_GAME  # (until the first reset: asked anything, it says to call reset())
        self._ended = False  # (the episode is over: the game, or an illegal action, ended it)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game, seeded by ``seed`` (the deal and the bots' choices alike): a Python or NumPy integer from 0
        up. ``options`` are taken and ignored, as the AEC environment's are: a game's options are given to ``single``."""
        seed = seed_of(seed)
        super().reset(seed=seed)
        rng = random.Random(seed if seed is not None else int(self.np_random.integers(2**63)))
        self.match = Match(self.game, self.players, self.options, rng=rng, bots_at=self.bots_at)
        self._ended = False
        if self.policies:
            self._opponents_play()
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """The agent acts; the bots play until the agent must act again or the game is over. An action the mask
        forbids ends the game there for the agent (reward -1, ``info["illegal_action"]``), as any action of
        the space must be taken. Anything that is not an action of the space, an integer from 0 to n - 1, is
        refused (:meth:`ActionTable.id_from`). Before the first reset, or once the episode has ended, Gymnasium's
        ``ResetNeeded``: call ``reset()``."""
        match = self.match
        if match is NO_GAME:
            raise ResetNeeded(RESET_FIRST)
        if self._ended:
            raise ResetNeeded("the episode has ended: call reset() to begin another before step()")
        action = self.actions.id_from(action)
        if not self.action_masks()[action]:
            self._ended = True
            return (self._observation(), -1.0, True, False,
                    {"legal_actions": (), "illegal_action": self.actions.name(action)})
        match.step(action)
        if self.policies:
            self._opponents_play()
        over = self._ended = match.over
        if not over:
            return self._observation(), 0.0, False, False, self._info()
        return (self._observation(), match.rewards()[self.seat], True, False,
                {**self._info(), "result": match.result()})

    def _opponents_play(self) -> None:
        """The seats functions play decide until the agent's seat must, or the game is over: each on turn is asked
        its move with its seat's view; out of turn it passes (as ``cardhall simulate`` asks a file bot). ValueError,
        naming the seat, for a move it made that is not legal (or a move object of no move of the game)."""
        match, policies = self.match, self.policies
        while (seat := match.seat) is not None and seat != self.seat:
            if match.may_pass:
                match.step(self.actions.pass_id)
                continue
            move = policies[seat](match.view(seat))
            try:
                match.play(move)
            except (ValueError, TypeError, KeyError) as error:
                raise ValueError(f"the opponent in seat {seat} made {move!r}, which is not one of its legal moves now: "
                                 f"{error}") from None

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as a 0/1 mask (what sb3-contrib's MaskablePPO asks for)."""
        mask = np.zeros(self.actions.size, np.int8)
        if self.match.seat == self.seat:
            mask[list(self.match.legal_actions())] = 1
        return mask

    def view(self, **how: Any) -> dict[str, Any]:
        """The API's JSON view of the agent's seat, as ``GET /v1/games/{id}/state`` returns it."""
        return self.match.view(self.seat, **how)

    def render(self) -> str | None:
        """``ansi``: the table as the agent's seat sees it (its own hand shown), in a line; None without a mode."""
        if self.render_mode != "ansi":
            return None
        return in_a_line(self.match.view(self.seat))

    def _info(self) -> dict[str, Any]:
        """The ids of the agent's legal actions (the mask's ones), as the AEC environment's ``infos`` hold them."""
        return {"legal_actions": self.match.legal_actions() if self.match.seat == self.seat else ()}

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": self._vector(self.match.state, self.seat), "action_mask": self.action_masks()}

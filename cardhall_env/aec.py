"""The PettingZoo AEC environment of a game and player count (``cardhall_env.make``)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from pettingzoo import AECEnv

from cardhall_env.actions import action_table
from cardhall_env.match import Match, check_table, from_log, in_a_line
from cardhall_env.observations import HIGH, LOW, VECTORS, vector_size
from cardhall_env.resetting import NO_GAME, RESET_FIRST, check_render_mode, seed_of
from domain.game import all_games


def agent_name(seat: int) -> str:
    """The agent of ``seat``: ``seat_0``, ``seat_1``…"""
    return f"seat_{seat}"


class CardhallEnv(AECEnv):
    """A Cardhall game as a PettingZoo AEC environment: one agent a seat.

    ``observe(agent)`` is ``{"observation": vector, "action_mask": mask}``; the
    API's JSON view of the seat is ``view(agent)``. ``infos[agent]["legal_actions"]``
    holds the ids the mask allows (a tuple; empty for an agent not asked to act), as
    RLCard's ``state["legal_actions"]`` and OpenSpiel's ``legal_actions()`` do. Rewards
    come once, when the game ends: +1 to each winner, -1 to every other seat; every agent's info then holds the
    game's ``result`` (``winners`` and the final ``scores`` or ``lives``), as the view's.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 1, "is_parallelizable": False}

    def __init__(self, game: str, players: int, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None, *, log: Any = None, history: bool = False) -> None:
        super().__init__()
        games = all_games()
        if game not in games:
            raise ValueError(f"unknown game {game!r}; registered: {', '.join(sorted(games))}")
        if game not in VECTORS:
            raise ValueError(f"{game} has no observation vector yet (cardhall_env.observations.VECTORS)")
        check_render_mode(render_mode, self.metadata["render_modes"])
        if log is None:
            check_table(game, players, options or {})
        self.game, self.players, self.options = game, players, dict(options or {})
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"cardhall_{game}_{players}p_v0"}
        self.possible_agents = [agent_name(seat) for seat in range(players)]
        self._seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self.actions = action_table(game)
        self._vector = VECTORS[game][0]
        observation = spaces.Box(LOW, HIGH, (vector_size(game),), np.float32)
        mask = spaces.Box(0, 1, (self.actions.size,), np.int8)
        self._no_actions = np.zeros(self.actions.size, np.int8)
        self._observation_space = spaces.Dict({"observation": observation, "action_mask": mask})
        self._action_space = spaces.Discrete(self.actions.size)
        # (PettingZoo's attributes beside its methods: the same space for every agent)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._action_space)
        self._log, self._history = log, history
        self.match: Match = NO_GAME  # (until the first reset: asked anything, it says to call reset())
        self._rng: random.Random | None = None  # (made by the first reset, and by every seeded one)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # -- the AEC loop ---------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (the logged one's start, for an environment made from a log), seeded by ``seed``; without a
        seed, drawn on from the environment's random source (as Gymnasium's and PettingZoo's environments do), so
        that a run seeded once at its first reset plays the same games again. ``seed``: a Python or NumPy integer
        from 0 up. ``options`` are taken and ignored (PettingZoo's ``api_test`` hands some over): a game's options are
        given to ``make``."""
        seed = seed_of(seed)
        if seed is not None or self._rng is None:
            self._rng = random.Random(seed)
        rng = self._rng
        if self._log is not None:
            self.match = from_log(self._log, rng=rng, history=self._history)
        else:
            self.match = Match(self.game, self.players, self.options, rng=rng, history=self._history)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {"legal_actions": ()} for agent in self.agents}
        self._asked: str | None = None
        self._select()

    def step(self, action: int | None) -> None:
        """The selected agent acts: an id of its action table, a Python or NumPy integer (TypeError for anything
        else); ValueError for an action not legal now, or for None, which only an agent terminated or truncated
        takes (PettingZoo's dead step); ResetNeeded before the first reset."""
        try:
            agent = self.agent_selection
        except AttributeError:
            raise ResetNeeded(RESET_FIRST) from None
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: step(None) is only for an agent terminated or truncated; give the "
                             f"id of an action its mask allows (infos[{agent!r}]['legal_actions'])")
        # (PettingZoo clears the acting agent's cumulative reward here; ours are all 0 until the game ends)
        self.match.step(action if type(action) is int else self.actions.id_from(action))
        over = self.match.over
        if over:  # (the only rewards: until now every one stayed 0, nothing to clear or add up)
            self.rewards = {agent_name(seat): reward for seat, reward in enumerate(self.match.rewards())}
            self.terminations = dict.fromkeys(self.agents, True)
            result = self.match.result()
            for info in self.infos.values():  # (the game's own result, the scores or lives beside the winners)
                info["result"] = result
        self._select()
        if over:
            self._accumulate_rewards()

    def _select(self) -> None:
        """The agent to act next; its info's legal actions (and none left in the last one asked)."""
        seat = self.match.seat
        asked = None if seat is None else self.possible_agents[seat]
        if self._asked != asked:  # (a seat often decides twice in a row: Scat's draw, then its discard)
            if self._asked is not None:
                self.infos[self._asked]["legal_actions"] = ()
            self._asked = asked
        if asked is not None:
            self.agent_selection = asked
            self.infos[asked]["legal_actions"] = self.match.legal_actions()
        elif self.agent_selection not in self.agents or not self.terminations.get(self.agent_selection):
            self.agent_selection = self.agents[0]

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last()``: the selected agent's observation, cumulative reward, termination, truncation
        and info; ResetNeeded before the first reset."""
        try:
            agent = self.agent_selection
        except AttributeError:
            raise ResetNeeded(RESET_FIRST) from None
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's ``agent_iter()``; ResetNeeded before the first reset."""
        if self.match is NO_GAME:
            raise ResetNeeded(RESET_FIRST)
        return super().agent_iter(max_iter)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's vector and its action mask (all zeros unless it is the agent to act)."""
        seat = self._seats[agent]
        mask = self._no_actions.copy()  # (a copy, set item by item: cheaper than a bytearray viewed as an array)
        if seat == self.match.seat:
            for action in self.match.legal_actions():
                mask[action] = 1
        return {"observation": self._vector(self.match.state, seat), "action_mask": mask}

    def view(self, agent: str | None, **how: Any) -> dict[str, Any]:
        """The API's JSON view of the agent's seat, as ``GET /v1/games/{id}/state`` returns it (None: a spectator's,
        without a token)."""
        return self.match.view(self._seat_of(agent), **how)

    def view_at(self, version: int, agent: str | None, **how: Any) -> dict[str, Any]:
        """The agent's view as it stood after event ``version`` (an environment made with ``history=True``; None: a
        spectator's)."""
        return self.match.view_at(version, self._seat_of(agent), **how)

    def _seat_of(self, agent: str | None) -> int | None:
        """The seat of ``agent`` (None for a spectator); ValueError naming the agents for any other name."""
        if agent is None:
            return None
        try:
            return self._seats[agent]
        except (KeyError, TypeError):
            raise ValueError(f"no agent {agent!r}: the agents are {', '.join(self.possible_agents)}, "
                             "or None for a spectator") from None

    def next_logged_action(self) -> int | None:
        """For an environment made from a log: the action that carries on the logged game from here (a
        seat asked out of turn that did not act there passes), None once the log is played out, or left by
        another action (the game then goes on by itself: house bots, chance from the environment's source)."""
        return self.match.next_logged_action()

    def record(self, game_id: str = "local", at: str | None = None) -> dict[str, Any]:
        """The finished game as a ``cardhall-record/1`` document, which ``cardhall record import`` stores on a server;
        ValueError before the game is over."""
        return self.match.record(game_id, at)

    def log(self) -> list[dict[str, Any]]:
        """The game so far as a log the server reads: the API's events list of a finished game."""
        return self.match.log()

    def render(self) -> str | None:
        """``ansi``: the whole table in a line, every hand shown (for the person watching: no agent observes it)."""
        if self.render_mode != "ansi":
            return None
        return in_a_line(self.match.view(None, reveal_all=True, with_moves=False))

    def close(self) -> None:
        pass

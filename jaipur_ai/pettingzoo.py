"""A PettingZoo AEC environment: both players of a round of Jaipur
(``pip install "jaipur-ai[pettingzoo]"``; docs/ecosystem.md).

>>> from jaipur_ai.pettingzoo import env
>>> e = env()
>>> e.reset(seed=3)
>>> for agent in e.agent_iter(max_iter=6):
...     obs, reward, termination, truncation, info = e.last()
...     e.step(None if termination or truncation
...            else e.action_space(agent).sample(obs["action_mask"]))
>>> e.agents, e.agent_selection in e.agents
(['player_0', 'player_1'], True)

Agents are ``"player_0"`` and ``"player_1"`` (jaipur_ai's player numbers).  Each
observation is a dict: ``observation``, the 64-float observation tensor of that player's
view, and ``action_mask`` over the 25,499 dense action ids (docs/notation.md), all zero
for the player not to move.  An episode is one round; the reward at its end is the seal
(+1 / -1, 0 for a draw) or, with ``reward="margin"``, the difference of the round totals.
An illegal move ends the episode with reward -1 for the player who made it (PettingZoo's
``TerminateIllegalWrapper``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from jaipur_ai.envs._adapter import (ACTIONS, REWARDS, move_of_action, need,
                                     observation_dict, observation_spaces, round_reward)
from jaipur_ai.errors import InvalidOptionError, JaipurError
from jaipur_ai.rules.position import GameState

if TYPE_CHECKING:   # (pettingzoo has no type information: pyproject.toml's mypy overrides)
    import gymnasium as gym
    import pettingzoo as pz
else:
    pz = need("pettingzoo", "pettingzoo")
    gym = need("gymnasium", "pettingzoo")
from pettingzoo.utils import wrappers  # noqa: E402

__all__ = ["env", "raw_env"]

AGENTS = ["player_0", "player_1"]


def env(**kwargs: Any) -> pz.AECEnv:
    """The environment with PettingZoo's usual wrappers (illegal moves end the episode,
    out-of-range actions assert, the call order is enforced)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(pz.AECEnv):
    """Jaipur, one round, two agents; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "jaipur_v0",
                "is_parallelizable": False, "render_fps": 4}

    def __init__(self, reward: str = "seal", max_plies: int = 400,
                 render_mode: Optional[str] = None, actions: str = "dense") -> None:
        super().__init__()
        if actions not in ACTIONS:
            raise InvalidOptionError("actions", f"{actions!r} is not one of {', '.join(ACTIONS)}")
        self.actions = actions
        if reward not in REWARDS:
            raise InvalidOptionError("reward", f"{reward!r} is not one of {', '.join(REWARDS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidOptionError("render_mode", f"{render_mode!r} is not one of "
                                                    f"{self.metadata['render_modes']}")
        self.reward_kind = reward
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.possible_agents = AGENTS[:]
        self.agents = AGENTS[:]
        obs_space, act_space = observation_spaces(gym.spaces, actions)
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: act_space for a in AGENTS}
        self.state: Optional[GameState] = None
        self._rng = np.random.default_rng()
        self._plies = 0

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        p = AGENTS.index(agent)
        if self.state is None:
            raise RuntimeError("call reset() before observe()")
        return observation_dict(self.state, p, agent == self.agent_selection
                                and not (self.terminations[agent] or self.truncations[agent]),
                                self.actions)

    def reset(self, seed: Optional[int] = None, options: Optional[dict[str, Any]] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        deal = int(self._rng.integers(2**63))
        starter = int(self._rng.integers(2))
        self.state = GameState.new(seed=deal, starter=starter)
        self._plies = 0
        self.agents = AGENTS[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = AGENTS[self.state.to_move]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        move = move_of_action(self.state, action, self.actions)
        if move is None:
            raise JaipurError("action", f"{agent}: {action!r} names no legal move "
                                        f"(actions={self.actions!r}: see the action mask)")
        self.state = self.state.apply(move)
        self._plies += 1
        self.rewards = {a: 0.0 for a in self.agents}
        if self.state.is_round_over:
            for i, a in enumerate(AGENTS):
                self.rewards[a] = round_reward(self.state, i, self.reward_kind)
            self.terminations = {a: True for a in self.agents}
        elif self._plies >= self.max_plies:
            self.truncations = {a: True for a in self.agents}
        self.infos = {a: {"last_move": str(move)} for a in self.agents}
        self.agent_selection = AGENTS[self.state.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Optional[str]:
        if self.state is None:
            return None
        text = str(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

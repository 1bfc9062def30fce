"""A Gymnasium single-agent environment: you play one seat of a round of Jaipur against a
jaipur_ai engine (``pip install "jaipur-ai[gymnasium]"``; docs/ecosystem.md).

>>> from jaipur_ai.gymnasium import JaipurEnv
>>> env = JaipurEnv(opponent="greedy")
>>> obs, info = env.reset(seed=1)
>>> obs["observation"].shape, obs["action_mask"].shape, int(env.action_space.n)
((64,), (25499,), 25499)
>>> action = env.action_space.sample(obs["action_mask"])      # a random legal move
>>> obs, reward, terminated, truncated, info = env.step(action)
>>> reward, terminated, truncated
(0.0, False, False)

Observations are dicts: ``observation`` is jaipur_ai's 64-float observation tensor of the
agent's view and ``action_mask`` marks the agent's legal dense action ids
(docs/notation.md).  With ``actions="index"``, ``legal_ids`` lists the legal dense ids
(167 wide, padded with -1), ``action_mask`` marks the listed entries and an action is an
index into the list.  An episode is one round.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional, Union

import numpy as np

from jaipur_ai.envs._vecenv import episode_deal_seed
from jaipur_ai.rules import encoding
from jaipur_ai.envs._adapter import (ACTIONS, REWARDS, move_of_action, need,
                                     observation_dict, observation_spaces, round_reward)
from jaipur_ai.errors import InvalidOptionError
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState, View

if TYPE_CHECKING:
    import gymnasium as gym
else:
    gym = need("gymnasium", "gymnasium")
spaces = gym.spaces

__all__ = ["JaipurEnv", "JaipurVectorEnv", "ENV_ID"]


def observation_space() -> Any:
    return observation_spaces(spaces, "dense")[0]


class JaipurEnv(gym.Env):
    """One round of Jaipur against ``opponent`` (an engine spec: ``"greedy"``,
    ``"random"``, ``"ismcts:iterations=200"``, a level name ...; docs/cli.md; or a
    callable ``f(view) -> Move``, asked with the opponent's view).

    ``seat``: the agent's player number, or ``None`` to draw it each episode; who starts
    is drawn each episode too.  ``reward``: ``"seal"`` (+1 / -1 / 0 at the end of the
    round) or ``"margin"`` (the difference of the round totals).  An illegal action
    ends the episode with reward ``illegal_reward`` and ``info["illegal_action"]``.
    A round still running after ``max_plies`` plies is truncated.

    **Deals.** The ``k``-th round (from 0) after ``reset(seed=s)`` is
    ``GameState.new(seed=episode_deal_seed(s, k))``, who starts included (its seed is
    ``info["deal_seed"]``); :class:`JaipurVectorEnv`'s round ``i`` deals as this
    environment reset with ``s + i``, as in Gymnasium's own vector environments.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(self, opponent: Union[str, Callable[[View], Move]] = "greedy", seat: Optional[int] = None,
                 reward: str = "seal", illegal_reward: float = -1.0, max_plies: int = 400,
                 render_mode: Optional[str] = None, actions: str = "dense") -> None:
        if actions not in ACTIONS:
            raise InvalidOptionError("actions", f"{actions!r} is not one of {', '.join(ACTIONS)}")
        self.actions = actions
        if reward not in REWARDS:
            raise InvalidOptionError("reward", f"{reward!r} is not one of {', '.join(REWARDS)}")
        if seat not in (None, 0, 1):
            raise InvalidOptionError("seat", f"{seat!r} is not 0, 1 or None")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidOptionError("render_mode", f"{render_mode!r} is not one of "
                                                    f"{self.metadata['render_modes']}")
        self._opponent_fn: Optional[Callable[[View], Move]] = None
        self.opponent_spec: Optional[EngineSpec] = None
        if callable(opponent):
            self._opponent_fn = opponent
        elif isinstance(opponent, str):
            self.opponent_spec = EngineSpec.parse(opponent)
            self._opponent_limits = self.opponent_spec.fixed_limits("the opponent")
            self._opponent = self.opponent_spec.make_engine()
        else:
            raise InvalidOptionError("opponent", f"{opponent!r} is neither an engine spec "
                                                 f"nor a callable")
        self._fixed_seat = seat
        self.reward_kind = reward
        self.illegal_reward = float(illegal_reward)
        self.max_plies = max_plies
        self.render_mode = render_mode
        self.observation_space, self.action_space = observation_spaces(spaces, actions)
        self.state: Optional[GameState] = None
        self.seat = 0
        self._plies = 0
        self._deal_base: Optional[int] = None      # the seed of the last reset(seed=...)
        self._deals = 0                              # rounds dealt since

    # ------------------------------------------------------------------ internals
    def _live_state(self) -> GameState:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        return self.state

    def _obs(self) -> dict[str, Any]:
        state = self._live_state()
        return observation_dict(state, self.seat, state.to_move == self.seat, self.actions)

    def _opponent_moves(self) -> None:
        spec = self.opponent_spec
        state = self._live_state()
        while not state.is_round_over and state.to_move != self.seat \
                and self._plies < self.max_plies:
            if spec is None:
                assert self._opponent_fn is not None
                move = self._opponent_fn(state.view(state.to_move))
            else:
                view = state if spec.cheats else state.view(state.to_move)
                seed = int(self.np_random.integers(2**63))
                move = self._opponent.best_move(view, seed=seed, **self._opponent_limits)
            state = self.state = state.apply(move)
            self._plies += 1

    # ------------------------------------------------------------------ the API
    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None or self._deal_base is None:
            self._deal_base = int(seed if seed is not None
                                  else self.np_random.integers(2**63)) % 2**64
            self._deals = 0
        deal = episode_deal_seed(self._deal_base, self._deals)
        self._deals += 1
        self.seat = int(self.np_random.integers(2)) if self._fixed_seat is None else self._fixed_seat
        self.state = GameState.new(seed=deal)
        self._plies = 0
        self._opponent_moves()
        if self.render_mode == "human":
            self.render()
        return self._obs(), {"seat": self.seat, "deal_seed": deal}

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.state.is_round_over or self._plies >= self.max_plies:
            raise RuntimeError("the episode is over: call reset()")
        move = move_of_action(self.state, action, self.actions)
        if move is None:
            obs = self._obs()
            self._plies = self.max_plies          # the episode is over
            return obs, self.illegal_reward, True, False, {"illegal_action": True}
        self.state = self.state.apply(move)
        self._plies += 1
        self._opponent_moves()
        terminated = self.state.is_round_over
        truncated = not terminated and self._plies >= self.max_plies
        reward = round_reward(self.state, self.seat, self.reward_kind) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        info: dict[str, Any] = {"move": str(move)}
        if terminated:
            info["round_totals"] = self.state.round_totals()
        return self._obs(), reward, terminated, truncated, info

    def render(self) -> Optional[str]:
        if self.state is None:
            return None
        text = str(self.state.view(self.seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text


class JaipurVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` rounds stepped together in the compiled core: a
    ``gymnasium.vector.VectorEnv`` over :class:`jaipur_ai.VectorEnv` (which says what a
    step is, the opponents and the rewards), made by ``gymnasium.make_vec(ENV_ID,
    num_envs=n, vectorization_mode="vector_entry_point")``.

    The agent plays seat 0; ``opponent`` is ``"random"`` (the default), ``"greedy"``,
    ``"learned"`` (all three inside the compiled step), an engine spec or a callable
    ``f(view) -> Move`` (asked between compiled calls: much slower).  ``actions="dense"``:
    observations hold ``observation`` and ``action_mask`` (25,499 int8), an action is a
    dense id; ``actions="index"``: they hold ``observation`` and ``legal_ids`` (the legal
    dense ids, :data:`~jaipur_ai.rules.encoding.MAX_LEGAL` wide, padded with -1) and an
    action is an index into that list.

    Rounds that end are dealt afresh in the same step (``AutoresetMode.SAME_STEP``): the
    observation returned is the new round's, the ended round's last one is in
    ``info["final_obs"][i]`` (``info["_final_obs"]`` marks the rounds that ended).
    ``info["deal_seed"]`` holds the seed of each new deal (``info["_deal_seed"]`` marks
    them): round ``i`` deals as a :class:`JaipurEnv` with ``seat=0`` reset with seed
    ``seed + i``, so with a deterministic opponent (a callable) the two give the same
    rounds, step for step.  The arrays returned are copies.

    >>> import gymnasium
    >>> envs = gymnasium.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point")
    >>> obs, info = envs.reset(seed=1)
    >>> obs["observation"].shape, obs["action_mask"].shape, envs.action_space
    ((4, 64), (4, 25499), MultiDiscrete([25499 25499 25499 25499]))
    """

    metadata: dict[str, Any] = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP,
                                "render_modes": []}

    def __init__(self, num_envs: int = 1, opponent: Any = "random", reward: str = "seal",
                 max_plies: int = 400, actions: str = "dense", weights: Optional[str] = None,
                 seed: int = 0, render_mode: Optional[str] = None) -> None:
        from jaipur_ai.vecenv import VectorEnv
        if render_mode is not None:
            raise InvalidOptionError("render_mode", "the vector environment draws nothing")
        self._env = VectorEnv(num_envs, seed=seed, opponent=opponent, reward=reward,
                              max_plies=max_plies, actions=actions, mask=actions == "dense",
                              weights=weights)
        self.num_envs = num_envs
        self.render_mode = None
        self._index = actions == "index"
        if self._index:
            self.single_observation_space = spaces.Dict({
                "observation": observation_space()["observation"],
                "legal_ids": spaces.Box(low=-1, high=encoding.N_DENSE_ACTIONS - 1,
                                        shape=(encoding.MAX_LEGAL,), dtype=np.int32)})
            self.single_action_space = spaces.Discrete(encoding.MAX_LEGAL)
        else:
            self.single_observation_space = observation_space()
            self.single_action_space = spaces.Discrete(encoding.N_DENSE_ACTIONS)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space,
                                                              num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)

    def _obs(self, obs: np.ndarray, rows: Optional[np.ndarray] = None) -> dict[str, Any]:
        e = self._env
        pick = slice(None) if rows is None else rows
        out: dict[str, Any] = {"observation": obs[pick].copy()}
        if self._index:
            out["legal_ids"] = e.legal_ids[pick].copy()
        else:
            assert e.mask is not None
            out["action_mask"] = e.mask[pick].view(np.int8).copy()
        return out

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[dict[str, Any]] = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        obs, _ = self._env.reset(seed)
        return self._obs(obs), {"deal_seed": self._env.deal_seeds,
                                "_deal_seed": np.ones(self.num_envs, dtype=np.bool_)}

    def step(self, actions: Any) -> tuple[dict[str, Any], np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        obs, _, reward, terminated, truncated = self._env.step(np.asarray(actions, np.int64))
        info: dict[str, Any] = {}
        ended = terminated | truncated
        if ended.any():
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended):
                last = {"observation": self._env.final_obs[i].copy()}
                if self._index:     # (a finished round has no legal move)
                    last["legal_ids"] = np.full(encoding.MAX_LEGAL, -1, np.int32)
                else:
                    last["action_mask"] = np.zeros(encoding.N_DENSE_ACTIONS, np.int8)
                final[i] = last
            info = {"final_obs": final, "_final_obs": ended.copy(),
                    "final_info": np.array([{} for _ in range(self.num_envs)], dtype=object),
                    "_final_info": ended.copy(),
                    "deal_seed": self._env.deal_seeds, "_deal_seed": ended.copy()}
        return self._obs(obs), reward.copy(), terminated.copy(), truncated.copy(), info


ENV_ID = "jaipur_ai/Jaipur-v0"
"""``gymnasium.make(ENV_ID, opponent=...)`` makes a :class:`JaipurEnv` once this module is
imported; ``gymnasium.make_vec(ENV_ID, num_envs=n, vectorization_mode="vector_entry_point")``
a :class:`JaipurVectorEnv`."""
if ENV_ID not in gym.registry:
    gym.register(ENV_ID, entry_point="jaipur_ai.gymnasium:JaipurEnv",
                 vector_entry_point="jaipur_ai.gymnasium:JaipurVectorEnv")

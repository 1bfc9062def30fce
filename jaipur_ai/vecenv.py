"""``VectorEnv``: n rounds of Jaipur stepped at once in the compiled core.

One call to :meth:`VectorEnv.step` applies one move in every round, lets the
opponent reply (by default a uniformly random player), scores the rounds that end,
deals them afresh, and writes observations, action masks, rewards and done flags
into arrays allocated once (docs/ecosystem.md, "VectorEnv").

>>> import numpy as np
>>> import jaipur_ai as jp
>>> env = jp.VectorEnv(4, seed=1)
>>> obs, mask = env.reset()
>>> obs.shape, mask.shape, mask.dtype
((4, 64), (4, 25499), dtype('bool'))
>>> actions = env.sample_actions()              # a random legal dense id per round
>>> bool(mask[np.arange(4), actions].all())
True
>>> obs, mask, reward, terminated, truncated = env.step(actions)
>>> reward.dtype, terminated.dtype, terminated.shape
(dtype('float32'), dtype('bool'), (4,))
"""
from __future__ import annotations

import numbers
import secrets
from typing import Any, Callable, Optional, Union

import numpy as np

from jaipur_ai.envs import _vecenv
from jaipur_ai.rules._observation import N_DENSE_PY, OBS_SIZE_PY
from jaipur_ai.rules.encoding import MAX_LEGAL
from jaipur_ai.errors import InvalidOptionError, JaipurError
from jaipur_ai.options import check
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState, View

__all__ = ["VectorEnv"]

_OPPONENTS = {"random": 0, "self": 1, "greedy": 2, "learned": 3}

MAX_ROUNDS = 2**20        #: rounds of one VectorEnv (each holds about 26 kB with its mask)
MAX_PLIES = 10**6         #: a cut-off past any round's length (the core counts in C ints)


def _check_count(name: str, value: Any, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or not 1 <= int(value) <= most:
        raise InvalidOptionError(name, f"{value!r} is not a whole number from 1 to {most:,}")
    return int(value)


def _check_seed(seed: Any) -> int:
    """A seed as every other door takes it: a whole number from 0 to 2**64 - 1, or None
    for fresh entropy (the repr then shows the seed drawn)."""
    seed = check("seed", seed)
    return secrets.randbits(63) if seed is None else int(seed)
_EXTERNAL = 4
_ACTIONS = {"dense": 0, "index": 1}
_REWARDS = {"seal": 0, "margin": 1}


class VectorEnv:
    """``n`` independent rounds, each an episode, stepped together.

    ``opponent="random"`` (the default): you play seat 0 of every round and a uniformly
    random opponent plays seat 1 inside the same compiled call; who starts a round is
    drawn at random, and when the opponent starts it has already moved when the round
    is reported.  ``opponent="self"``: you play both seats; ``to_move[i]`` says whose
    turn (and whose observation) round ``i`` shows.  Other opponents of seat 1:
    ``"greedy"`` (the playouts' move-score policy without its noise) and ``"learned"``
    (the candidate whose position the learned evaluation rates best, one ply; the
    shipped weights, or ``weights=``) play inside the compiled call too; an engine spec
    (``"ismcts:iterations=200"``, searching from seat 1's view, seeded from the
    environment's seed) or a Python callable ``f(view) -> Move`` is asked for each move
    between compiled calls, much slower (a search or Python call per move).

    ``reward="seal"`` gives +1 / -1 / 0 (won, lost, drawn the round's seal) to the player
    who made the move, on the step that ends the round, 0 otherwise; ``reward="margin"``
    the difference of the round totals from that player's side. A round that reaches
    ``max_plies`` plies without ending is cut off (``truncated``, reward 0).

    Rounds that end are dealt afresh at once (auto-reset): after such a step
    ``obs[i]`` and ``mask[i]`` already show the new round.  Round ``i`` deals its
    episodes as a :class:`jaipur_ai.gymnasium.JaipurEnv` reset with seed ``seed + i``
    does (``deal_seeds[i]`` is the current one's seed: ``GameState.new(seed=...)``
    deals it), so with the same deterministic opponent the two give the same rounds. Every array is allocated
    once; :meth:`reset` and :meth:`step` return the same arrays every time, filled
    in place. Pass ``copy=True`` to :meth:`step` for fresh copies.

    **Compact actions.** Beside the mask, ``legal_ids[i, :n_legal[i]]`` lists round
    ``i``'s legal dense ids (ascending, as in every environment), the rest of the row
    ``-1``; the rows are :data:`~jaipur_ai.rules.encoding.MAX_LEGAL` (167) wide, the most legal moves
    any position has.  ``mask=False`` keeps only the lists (the dense mask is then
    ``None``: 25,499 bytes a round a step saved).  ``actions="index"`` takes an action as
    an index into the round's list instead of a dense id (``sample_actions`` then draws
    indices too).
    """

    def __init__(self, n: int, seed: Optional[int] = 0,
                 opponent: Union[str, Callable[[View], Move]] = "random", reward: str = "seal",
                 max_plies: int = 400, actions: str = "dense", mask: bool = True,
                 weights: Optional[str] = None) -> None:
        self._ask: Optional[Callable[[View, int], Move]] = None
        if callable(opponent):
            fn = opponent
            self._ask = lambda view, _seed: fn(view)
            mode = _EXTERNAL
        elif isinstance(opponent, str) and opponent in _OPPONENTS:
            mode = _OPPONENTS[opponent]
        elif isinstance(opponent, str):
            from jaipur_ai.matches.spec import EngineSpec
            try:
                spec = EngineSpec.parse(opponent)
                limits = spec.fixed_limits("the opponent")
            except JaipurError as e:
                raise InvalidOptionError("opponent", f"{opponent!r} is not one of "
                                         f"{sorted(_OPPONENTS)}, a callable or an engine "
                                         f"spec ({e.reason})") from None
            engine = spec.make_engine()
            self._ask = lambda view, s: engine.best_move(view, time=limits["time"],
                                                         iterations=limits["iterations"],
                                                         seed=s)
            mode = _EXTERNAL
        else:
            raise InvalidOptionError("opponent", f"{opponent!r} is not one of "
                                     f"{sorted(_OPPONENTS)}, a callable or an engine spec")
        if weights is not None and mode != _OPPONENTS["learned"]:
            raise InvalidOptionError("weights", "only for opponent='learned'")
        if reward not in _REWARDS:
            raise InvalidOptionError("reward", f"{reward!r} is not one of {sorted(_REWARDS)}")
        if actions not in _ACTIONS:
            raise InvalidOptionError("actions", f"{actions!r} is not one of {sorted(_ACTIONS)}")
        if not isinstance(mask, bool):
            raise InvalidOptionError("mask", f"{mask!r} is not true or false")
        _check_count("n", n, MAX_ROUNDS)
        _check_count("max_plies", max_plies, MAX_PLIES)
        seed = _check_seed(seed)
        self.n = n
        self.opponent = opponent if isinstance(opponent, str) else "callable"
        self.reward_kind = reward
        self.max_plies = max_plies
        self._seed = seed
        self.action_kind = actions
        self._core = _vecenv.VecCore(n, self._seed, mode, _REWARDS[reward],
                                     max_plies, _ACTIONS[actions], mask, MAX_LEGAL)
        if mode == _OPPONENTS["learned"]:
            from jaipur_ai.search.evaluation import cached_evaluation, default_evaluation
            self._core.set_evaluation(default_evaluation() if weights is None
                                      else cached_evaluation(weights))
        self._asked = 0
        self.obs = np.zeros((n, OBS_SIZE_PY), dtype=np.float32)
        # (without the mask, a one-byte stand-in that the core never writes)
        self.mask: Optional[np.ndarray] = np.zeros((n, N_DENSE_PY) if mask else (1, 1),
                                                   dtype=np.bool_)
        self.legal_ids = np.full((n, MAX_LEGAL), -1, dtype=np.int32)
        self.n_legal = np.zeros(n, dtype=np.int32)
        self.final_obs = np.zeros((n, OBS_SIZE_PY), dtype=np.float32)
        self.reward = np.zeros(n, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.to_move = np.zeros(n, dtype=np.int32)
        self._actions = np.zeros(n, dtype=np.int64)
        assert self.mask is not None
        self._mask_u8 = self.mask.view(np.uint8)
        if not mask:
            self.mask = None
        self._term_u8 = self.terminated.view(np.uint8)
        self._trunc_u8 = self.truncated.view(np.uint8)
        self._ready = False

    @property
    def observation_size(self) -> int:
        return OBS_SIZE_PY

    @property
    def n_actions(self) -> int:
        return N_DENSE_PY

    @property
    def deal_seeds(self) -> np.ndarray:
        """The seed of every round's current deal (``GameState.new(seed=...)`` deals it)."""
        return np.array(self._core.deal_seeds(), dtype=np.uint64)

    @property
    def rounds_done(self) -> int:
        """Rounds finished (ended or cut off) since the environment was made."""
        return self._core.rounds_done

    def reset(self, seed: Optional[int] = None) -> Any:
        """Deal every round afresh (reseeded when ``seed`` is given); returns (obs, mask)."""
        if seed is not None:
            self._seed = _check_seed(seed)
            self._core.seed(self._seed)
        waiting = self._core.reset(self.obs, self._mask_u8, self.legal_ids, self.n_legal,
                                   self.to_move)
        self.reward[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        if waiting:
            self._opponent_moves()
        self._ready = True
        return self.obs, self.mask

    def step(self, actions: Any, copy: bool = False) -> Any:
        """Play ``actions[i]`` in round ``i``: a dense action id, legal by ``mask[i]``
        (or an index into ``legal_ids[i, :n_legal[i]]`` with ``actions="index"``).

        Returns (obs, mask, reward, terminated, truncated); ``legal_ids`` and ``n_legal``
        are updated in place. An illegal action raises ``ValueError`` naming the round,
        before any round moves."""
        if not self._ready:
            self.reset()
        a = actions if (isinstance(actions, np.ndarray) and actions.dtype == np.int64
                        and actions.flags.c_contiguous) else np.ascontiguousarray(actions, np.int64)
        if a.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {a.shape}")
        if self._core.step(a, self.obs, self._mask_u8, self.legal_ids, self.n_legal,
                           self.reward, self._term_u8, self._trunc_u8, self.to_move,
                           self.final_obs):
            self._opponent_moves()
        out = (self.obs, self.mask, self.reward, self.terminated, self.truncated)
        return tuple(None if x is None else x.copy() for x in out) if copy else out

    def _opponent_moves(self) -> None:
        """Ask the engine or callable of seat 1 for its moves until every round waits
        for the agent again (each search seeded by the environment's seed and a count)."""
        from jaipur_ai.matches.spec import derive_seed
        assert self._ask is not None
        while True:
            waiting = self._core.pending_rounds()
            if not waiting:
                return
            for i in waiting:
                view = GameState(self._core.core_state(i)).view(1)
                self._asked += 1
                move = self._ask(view, derive_seed(self._seed, 5, self._asked))
                self._core.apply_opponent(i, move.dense_index, self.obs, self._mask_u8,
                                          self.legal_ids, self.n_legal, self.reward,
                                          self._term_u8, self._trunc_u8, self.to_move,
                                          self.final_obs)

    def sample_actions(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """A uniformly random legal move for every round (its own seeded stream): a dense
        id, or an index into the round's legal list with ``actions="index"``."""
        if not self._ready:
            self.reset()
        if out is None:
            out = self._actions
        self._core.sample(out)
        return out

    def state(self, i: int) -> GameState:
        """Round ``i`` as a ``GameState`` (a copy: for inspection and tests)."""
        return GameState(self._core.core_state(i))

    def __repr__(self) -> str:
        extra = "" if self.action_kind == "dense" else f", actions={self.action_kind!r}"
        extra += "" if self.mask is not None else ", mask=False"
        return (f"VectorEnv({self.n}, seed={self._seed}, opponent={self.opponent!r}, "
                f"reward={self.reward_kind!r}, max_plies={self.max_plies}{extra})")

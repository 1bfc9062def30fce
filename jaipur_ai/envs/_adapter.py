"""What the framework adapters (jaipur_ai.gymnasium, jaipur_ai.pettingzoo,
jaipur_ai.openspiel) share: the observation dict with its action mask, seat-relative
rewards, and the error for a missing optional dependency.  Needs only numpy."""
from __future__ import annotations

from typing import Any

import numpy as np

from jaipur_ai.rules import encoding
from jaipur_ai.rules.position import GameState

__all__ = ["observation_dict", "round_reward", "need", "REWARDS", "ACTIONS", "observation_spaces",
           "move_of_action"]

REWARDS = ("seal", "margin")
#: How an action names a move: a dense id of 25,499, or an index into the list of legal
#: dense ids (``legal_ids``, MAX_LEGAL wide).
ACTIONS = ("dense", "index")


def need(module: str, extra: str) -> Any:
    """Import an optional framework, or say which extra installs it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{module} is not installed: pip install \"jaipur-ai[{extra}]\" "
                          f"({e})") from e


def observation_dict(state: GameState, player: int, to_act: bool,
                     actions: str = "dense") -> dict[str, Any]:
    """``{"observation": float32[64], "action_mask": int8[25499]}`` of ``player``; the mask
    is all zero unless that player is to act in a running round.  With ``actions="index"``:
    ``legal_ids`` (int32[MAX_LEGAL], the legal dense ids, then -1) and ``action_mask``
    (int8[MAX_LEGAL], 1 on the listed entries: the count is its sum)."""
    acting = to_act and not state.is_round_over
    if actions == "index":
        ids = np.full(encoding.MAX_LEGAL, -1, dtype=np.int32)
        mask = np.zeros(encoding.MAX_LEGAL, dtype=np.int8)
        if acting:
            legal = encoding.legal_dense_ids(state)
            ids[:len(legal)] = legal
            mask[:len(legal)] = 1
        return {"observation": encoding.observation(state, player), "legal_ids": ids,
                "action_mask": mask}
    mask = np.zeros(encoding.N_DENSE_ACTIONS, dtype=np.int8)
    if acting:
        encoding.action_mask(state, out=mask)
    return {"observation": encoding.observation(state, player), "action_mask": mask}


def observation_spaces(spaces: Any, actions: str) -> tuple[Any, Any]:
    """(observation space, action space) of one player, in ``spaces`` (gymnasium's)."""
    obs = {"observation": spaces.Box(low=0.0, high=encoding.OBSERVATION_HIGH.copy(),
                                     shape=(encoding.OBSERVATION_SIZE,), dtype=np.float32)}
    if actions == "index":
        obs["legal_ids"] = spaces.Box(low=-1, high=encoding.N_DENSE_ACTIONS - 1,
                                      shape=(encoding.MAX_LEGAL,), dtype=np.int32)
        obs["action_mask"] = spaces.Box(low=0, high=1, shape=(encoding.MAX_LEGAL,),
                                        dtype=np.int8)
        return spaces.Dict(obs), spaces.Discrete(encoding.MAX_LEGAL)
    obs["action_mask"] = spaces.Box(low=0, high=1, shape=(encoding.N_DENSE_ACTIONS,),
                                    dtype=np.int8)
    return spaces.Dict(obs), spaces.Discrete(encoding.N_DENSE_ACTIONS)


def move_of_action(state: GameState, action: Any, actions: str) -> Any:
    """The move an action names in ``state`` (None when it names no legal move)."""
    from jaipur_ai.rules.move import Move
    try:
        a = int(action)
    except (TypeError, ValueError):
        return None
    if a != action:
        return None
    if actions == "index":
        legal = encoding.legal_dense_ids(state)
        return Move.from_dense_index(int(legal[a])) if 0 <= a < len(legal) else None
    if not 0 <= a < encoding.N_DENSE_ACTIONS:
        return None
    move = Move.from_dense_index(a)
    return move if state.is_legal(move) else None


def round_reward(state: GameState, player: int, kind: str) -> float:
    """``player``'s reward for a finished round: the seal (+1 / -1 / 0 for a draw) or the
    margin of the round totals."""
    if kind == "margin":
        t = state.round_totals()
        return float(t[player] - t[1 - player])
    w = state.round_winner()
    return 0.0 if w == "draw" else (1.0 if w == player else -1.0)

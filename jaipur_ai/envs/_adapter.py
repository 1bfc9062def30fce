"""What the framework adapters (jaipur_ai.gymnasium, jaipur_ai.pettingzoo,
jaipur_ai.openspiel) share: the observation dict with its action mask, seat-relative
rewards, and the error for a missing optional dependency.  Needs only numpy."""
from __future__ import annotations

from typing import Any

import numpy as np

from jaipur_ai.rules import encoding
from jaipur_ai.rules.position import GameState

__all__ = ["observation_dict", "round_reward", "need", "REWARDS"]

REWARDS = ("seal", "margin")


def need(module: str, extra: str) -> Any:
    """Import an optional framework, or say which extra installs it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{module} is not installed: pip install \"jaipur-ai[{extra}]\" "
                          f"({e})") from e


def observation_dict(state: GameState, player: int, to_act: bool) -> dict[str, Any]:
    """``{"observation": float32[64], "action_mask": int8[25499]}`` of ``player``; the mask
    is all zero unless that player is to act in a running round."""
    mask = np.zeros(encoding.N_DENSE_ACTIONS, dtype=np.int8)
    if to_act and not state.is_round_over:
        encoding.action_mask(state, out=mask)
    return {"observation": encoding.observation(state, player), "action_mask": mask}


def round_reward(state: GameState, player: int, kind: str) -> float:
    """``player``'s reward for a finished round: the seal (+1 / -1 / 0 for a draw) or the
    margin of the round totals."""
    if kind == "margin":
        t = state.round_totals()
        return float(t[player] - t[1 - player])
    w = state.round_winner()
    return 0.0 if w == "draw" else (1.0 if w == player else -1.0)

"""Numbers for learning code: the observation tensor of a player and the dense action
index with its mask (docs/notation.md, "Observation tensor" and "Dense action index").

Both are computed in the compiled core (``_observation``); this module is their
Python face.  An observation is 64 float32 counts from one player's side and reads
only what that player may see, so the observation of a full state for a player is
the observation of that player's view:

>>> import jaipur_ai as jp
>>> from jaipur_ai.rules import encoding
>>> state = jp.GameState.new(seed=7, starter=0)
>>> obs = encoding.observation(state, player=0)
>>> obs.shape, obs.dtype
((64,), dtype('float32'))
>>> bool((obs == encoding.observation(state.view(0))).all())
True
>>> dict(zip(encoding.OBSERVATION_FIELDS[:7], obs[:7].tolist()))
{'market_D': 0.0, 'market_G': 1.0, 'market_S': 1.0, 'market_C': 0.0, 'market_P': 0.0, 'market_L': 0.0, 'market_M': 3.0}

The dense action index numbers the 25,499 moves that are legal in some position (of
the 148,225 fixed action ids), in the order of the action ids:

>>> mask = encoding.action_mask(state)
>>> mask.shape, int(mask.sum()) == len(state.legal_moves())
((25499,), True)
>>> [str(encoding.move_of_dense(i)) for i in encoding.legal_dense_ids(state)[:4]]
['take G', 'take S', 'camels', 'sell 2S']
>>> jp.Move.parse("swap GS for PP").dense_index
267
>>> encoding.move_of_dense(267)
Move.parse('swap GS for PP')
"""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy as np

from jaipur_ai.rules import _observation as _obs
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState
from jaipur_ai.rules.position import View

__all__ = ["OBSERVATION_SIZE", "OBSERVATION_FIELDS", "OBSERVATION_HIGH", "N_DENSE_ACTIONS",
           "MAX_LEGAL",
           "observation", "action_mask", "legal_dense_ids", "dense_index", "move_of_dense",
           "DENSE_TO_ACTION"]

OBSERVATION_SIZE: int = _obs.OBS_SIZE_PY
"""Floats in one observation: 64."""
OBSERVATION_FIELDS: tuple[Any, ...] = _obs.OBS_FIELDS
"""The name of each slot of an observation (docs/notation.md has their meaning)."""
OBSERVATION_HIGH: np.ndarray = _obs.OBS_HIGH
"""The largest value each slot can take (every slot is at least 0)."""
OBSERVATION_HIGH.flags.writeable = False
N_DENSE_ACTIONS: int = _obs.N_DENSE_PY
"""Size of the dense action space: 25,499."""
MAX_LEGAL: int = 167
"""The most legal moves any position has: the padding of the lists of legal ids.

Derived by exhaustion (``jaipur_ai.rules._movegen.max_legal_moves``, checked by
tests/test_encoding.py): every market, every hand of the player to move and every herd
up to 5 within the card totals; nothing else a position holds changes what is legal.
It is reached, for one, with the market diamond, gold, gold, silver, silver and a hand
of two cloth, two spice and two leather with one camel: 3 takes, 6 sales and 158
exchanges."""
DENSE_TO_ACTION: np.ndarray = _obs.dense_table()
"""``DENSE_TO_ACTION[i]`` is the fixed action id of dense id ``i`` (ascending)."""
DENSE_TO_ACTION.flags.writeable = False

Position = Union[GameState, View]


def _core_of(position: Position) -> Any:
    if isinstance(position, (GameState, View)):
        return position._core
    raise TypeError(f"expected a GameState or a View, not {type(position).__name__}")


def observation(position: Position, player: Optional[int] = None,
                out: Optional[np.ndarray] = None) -> np.ndarray:
    """The observation of ``player`` (float32, ``OBSERVATION_SIZE``).

    ``position`` is a ``GameState`` (``player`` 0 or 1, by default the player to move) or
    a ``View`` (its observer; ``player`` may be omitted).  ``out`` is filled and returned
    when given."""
    core = _core_of(position)
    if isinstance(position, View):
        if player is None:
            player = position.observer
    elif player is None:
        player = position.to_move
    if out is None:
        out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    _obs.observation_into(core, int(player), out)
    return out


def action_mask(position: Position, out: Optional[np.ndarray] = None,
                dtype: Any = np.int8) -> np.ndarray:
    """1 at the dense id of each legal move of the player to move, 0 elsewhere.

    For a ``View`` the observer must be to move (the opponent's moves depend on their
    hidden hand); a finished round has an all-zero mask."""
    if isinstance(position, View) and position.to_move != position.observer \
            and not position.is_round_over:
        position.legal_moves()      # raises the View's own error
    if out is None:
        out = np.zeros(N_DENSE_ACTIONS, dtype=dtype)
    _obs.mask_into(_core_of(position), out)
    return out


def legal_dense_ids(position: Position) -> list[int]:
    """The dense ids of the legal moves of the player to move, ascending."""
    if isinstance(position, View) and position.to_move != position.observer \
            and not position.is_round_over:
        position.legal_moves()
    return _obs.legal_dense_ids(_core_of(position))


def dense_index(move: Union[Move, str, int]) -> int:
    """The dense id of a move (a ``Move``, its text or its fixed action id)."""
    m = move if isinstance(move, Move) else (
        Move.from_action_id(move) if isinstance(move, int) else Move.parse(move))
    return m.dense_index


def move_of_dense(index: int) -> Move:
    """The ``Move`` of a dense id; ``InvalidMoveError`` when out of range
    (:meth:`Move.from_dense_index`)."""
    return Move.from_dense_index(index)

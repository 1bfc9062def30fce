"""Rollouts with common random numbers (the move-quality benchmark's references)."""
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

MAX_ROLLOUT_PLIES: int

def rollout_outcomes(view: Any, actions: Sequence[int] | NDArray[Any], worlds: int,
                     seed: int, first: int = ..., epsilon: float = ...,
                     noise: float = ..., evaluation: Any = ...,
                     fair: bool = ..., hands: Any = ...,
                     weights: Any = ..., per_ply: bool = ...,
                     cutoff: int = ...) -> tuple[NDArray[np.float32], NDArray[np.int16]]: ...

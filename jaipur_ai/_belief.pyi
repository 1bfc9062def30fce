"""Type stubs of src_cy/jaipur_ai/_belief.pyx (the likelihood of the opponent's moves)."""
from typing import Any, Optional

import numpy as np

from ._bridge import CoreView
from ._evaluation import Evaluation

SCORER_CANDIDATES: int
SCORER_LEARNED: int
SCORER_GREEDY: int

def hand_likelihoods(view: CoreView, action: int, unknown_goods: Any,
                     evaluation: Optional[Evaluation] = ..., temp: float = ...,
                     floor: float = ..., seed: int = ...,
                     scorer: int = ...) -> np.ndarray: ...

"""Type stubs of src_cy/jaipur_ai/search/_belief.pyx (the likelihood of the opponent's moves)."""
from typing import Any, Optional

import numpy as np

from jaipur_ai.rules._bridge import CoreView
from jaipur_ai.search._evaluation import Evaluation

SCORER_LEARNED: int
SCORER_GREEDY: int

def hand_likelihoods(view: CoreView, action: int, unknown_goods: Any,
                     evaluation: Optional[Evaluation] = ..., temp: float = ...,
                     floor: float = ..., seed: int = ...,
                     scorer: int = ...) -> np.ndarray: ...

"""Type stubs of the compiled exact endgames (src_cy/jaipur_ai/search/_endgame.pyx)."""
from typing import Any, Optional

import numpy as np

from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.search._search import Root, RootSearch

class EndgameSolver(RootSearch):
    samples: int
    n_moves: int
    nodes: int
    hits: int
    elapsed: float
    depth_done: int
    exact: bool
    def __init__(self, pos: Root, *, seed: int = ..., samples: int = ...,
                 table_bits: int = ...) -> None: ...
    def world_states(self) -> list[CoreState]: ...
    def run_depth(self, depth: int, node_limit: Optional[int] = ...,
                  seconds: Optional[float] = ..., deadline: Optional[float] = ...) -> bool: ...
    def root_actions(self) -> list[int]: ...
    def bounds(self) -> Optional[tuple[np.ndarray, np.ndarray, np.ndarray]]: ...
    def summary(self) -> dict[str, Any]: ...

"""Type stubs of the compiled leaf evaluation (src_cy/jaipur_ai/_evaluation.pyx)."""
from typing import Any

from ._core import CoreState

class Evaluation:
    source: str
    def __init__(self, lin: Any, margin: Any, hidden_w: Any, hidden_b: Any, out_w: Any,
                 source: str = ...) -> None: ...
    @property
    def n_hidden(self) -> int: ...
    def value(self, st: CoreState, player: int) -> tuple[float, float]: ...

def heuristic_value(st: CoreState, player: int) -> tuple[float, float]: ...

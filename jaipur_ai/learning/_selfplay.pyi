"""Type stubs of the compiled self-play data generator (src_cy/jaipur_ai/learning/_selfplay.pyx)."""
from typing import Any, Optional

from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.search._evaluation import Evaluation

def policy_rounds(seed: int, rounds: int, epsilon: float = ..., noise: float = ...
                  ) -> dict[str, Any]: ...

STATE_BYTES: int

def state_bytes(st: CoreState) -> bytes: ...
def policy_rows(states: Any, child_action: Any, child_visits: Any,
                evaluation: Optional[Evaluation] = ...) -> dict[str, Any]: ...

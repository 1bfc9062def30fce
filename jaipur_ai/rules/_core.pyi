"""Type stubs of the compiled rules core (src_cy/jaipur_ai/rules/_core.pyx)."""
from typing import Any, Optional

N_ACTIONS_PY: int

def move_to_action(kind: int, good: int, count: int, take: Any, give: Any) -> int: ...
def action_to_move(action: int) -> Optional[tuple[int, int, int, tuple[int, ...], tuple[int, ...]]]: ...

"""Type stubs of the compiled raw inputs (src_cy/jaipur_ai/search/_rawinputs.pyx)."""
from typing import Any

from jaipur_ai.rules._bridge import CoreState

N_RAW_PY: int
RAW_VERSION_PY: int
RAW_NAMES: tuple[str, ...]

def raw_inputs_of(st: CoreState, player: int) -> Any: ...
def raw_rows(states: Any) -> Any: ...

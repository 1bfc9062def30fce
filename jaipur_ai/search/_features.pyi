"""Type stubs of the compiled evaluation features (src_cy/jaipur_ai/search/_features.pyx)."""
from typing import Any

from jaipur_ai.rules._bridge import CoreState

FEATURES_VERSION_PY: int
N_FEATURES_PY: int
N_FEATURES_V1_PY: int
FEATURE_NAMES: tuple[str, ...]

def features_of(st: CoreState, player: int) -> Any: ...

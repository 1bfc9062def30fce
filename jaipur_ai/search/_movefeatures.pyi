from typing import Any

from jaipur_ai.rules._bridge import CoreState

MOVE_FEATURES_VERSION_PY: int
N_MOVE_FEATURES_PY: int
MOVE_FEATURE_NAMES: tuple[str, ...]

def move_features_of(st: CoreState, action: int) -> Any: ...

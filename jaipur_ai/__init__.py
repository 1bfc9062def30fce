"""jaipur_ai: the card game Jaipur, its exact rules and information sets, and
search that suggests the best move without peeking at hidden cards.

>>> import jaipur_ai as jp
>>> state = jp.GameState.new(seed=7, starter=0)
>>> len(state.legal_moves()) > 0
True
"""
from .errors import (IllegalMoveError, InvalidMoveError, InvalidOptionError, InvalidPositionError,
                     JaipurError, MissingExtraError)
from .move import N_ACTIONS, Move
from .state import GameState, PlayerState
from .view import View, read_position
from .vecenv import VectorEnv
from .record import GameRecord, RecordError

__version__ = "0.1.0"

__all__ = [
    "GameState", "PlayerState", "View", "Move", "N_ACTIONS", "read_position",
    "JaipurError", "InvalidPositionError", "InvalidMoveError", "IllegalMoveError",
    "InvalidOptionError", "MissingExtraError", "VectorEnv", "GameRecord", "RecordError",
    "__version__",
]

try:  # the search API (jaipur_ai.engine) builds on the above
    from .engine import Analysis, Candidate, Engine, analyse, best_move  # noqa: F401
    __all__ += ["Engine", "Analysis", "Candidate", "analyse", "best_move"]
    from .review import GameReview, PlyReview, ReviewError, review_game  # noqa: F401
    __all__ += ["review_game", "GameReview", "PlyReview", "ReviewError"]
except ImportError:  # pragma: no cover - only while the search is being built
    pass

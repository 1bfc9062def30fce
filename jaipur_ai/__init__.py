"""jaipur_ai: the card game Jaipur, its exact rules and information sets, and
search that suggests the best move without peeking at hidden cards.

>>> import jaipur_ai as jp
>>> state = jp.GameState.new(seed=7, starter=0)
>>> len(state.legal_moves()) > 0
True
"""
import logging

from jaipur_ai._version import __version__
from jaipur_ai.doors.review import GameReview, PlyReview, ReviewError, review_game
from jaipur_ai.errors import (IllegalMoveError, InvalidMoveError, InvalidOptionError,
                              InvalidPositionError, JaipurError, MissingExtraError)
from jaipur_ai.matches.record import GameRecord, RecordError
from jaipur_ai.rules.move import N_ACTIONS, Move
from jaipur_ai.rules.position import GameState, PlayerState, View, read_position
from jaipur_ai.search.engine import Analysis, Candidate, Engine, analyse, best_move
from jaipur_ai.search.levels import Level, levels
from jaipur_ai.search.settings import Settings
from jaipur_ai.vecenv import VectorEnv

__all__ = [
    "GameState", "PlayerState", "View", "Move", "N_ACTIONS", "read_position",
    "Engine", "Settings", "Analysis", "Candidate", "analyse", "best_move", "levels", "Level",
    "review_game", "GameReview", "PlyReview", "ReviewError",
    "JaipurError", "InvalidPositionError", "InvalidMoveError", "IllegalMoveError",
    "InvalidOptionError", "MissingExtraError", "VectorEnv", "GameRecord", "RecordError",
    "__version__",
]

# the library logs through the "jaipur_ai" logger (searches at DEBUG, matches and the
# learning pipeline at INFO, a server's internal errors at ERROR); silent unless the
# application configures logging
logging.getLogger(__name__).addHandler(logging.NullHandler())

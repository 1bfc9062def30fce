# cython: language_level=3
"""Features of a move in a state, for the learned move policy (see _movefeatures.pyx
and docs/search.md, "The learned move policy")."""
from jaipur_ai.rules._core cimport State, Move

cdef enum:
    N_MOVE_FEATURES = 32       # length of a move's feature vector (version 1)
    MOVE_FEATURES_VERSION = 1  # bumped whenever a move feature changes meaning or is added

# out[0:N_MOVE_FEATURES]: the features of move m, legal in s, for the player to move
cdef void move_features(const State* s, const Move* m, double* out) noexcept nogil
# the dot product of w with the features of m in s (one policy logit's learned part)
cdef double move_dot(const State* s, const Move* m, const double* w) noexcept nogil

# cython: language_level=3
"""Features of a full state from one player's side, for the learned evaluation
(see _features.pyx and docs/search.md, "Learned evaluation")."""
from jaipur_ai._core cimport State

cdef enum:
    N_FEATURES = 29            # length of a feature vector
    FEATURES_VERSION = 1       # bumped whenever a feature changes meaning

cdef void features(const State* s, int p, double* out) noexcept nogil

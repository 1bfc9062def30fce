# cython: language_level=3
"""Features of a full state from one player's side, for the learned evaluation
(see _features.pyx and docs/search.md, "Learned evaluation")."""
from jaipur_ai.rules._core cimport State

cdef enum:
    N_FEATURES = 53            # length of a feature vector (version 2)
    N_FEATURES_V1 = 29         # version 1's features: the first 29 of version 2, unchanged
    FEATURES_VERSION = 2       # bumped whenever a feature changes meaning or is added

# out[0:n] for player p; n is N_FEATURES, or N_FEATURES_V1 for weights of version 1
# (the rest is then not computed)
cdef void features(const State* s, int p, double* out, int n) noexcept nogil

# cython: language_level=3
"""The informed playout policy (see _policy.pyx, docs/search.md "Playout policies")."""
from jaipur_ai._core cimport State, Move, Rng
from jaipur_ai._params cimport Params
from jaipur_ai._heuristic cimport HoldTab

cdef enum:
    MAX_CAND = 48              # candidate moves the informed policy scores

cdef int candidates(const State* s, const HoldTab* T, Move* cand) noexcept nogil
cdef int score_candidates(const State* s, const HoldTab* T, const Move* cand, int n,
                          double* sc) noexcept nogil
cdef int policy_move(const State* s, Rng* r, const Params* P, Move* out) noexcept nogil
cdef double playout(State* s, Rng* r, const Params* P) noexcept nogil

# cython: language_level=3
"""The cards a move's refill draws: outcomes and probabilities (see _chance.pyx)."""
from libc.stdint cimport uint8_t
from jaipur_ai.rules._core cimport State, Move, Rng

# the outcomes of move m's refill in s, most likely first: their types (otypes, in draw
# order) and probabilities (oprob; at most 64 outcomes); n_samples sampled draws when
# three or more cards are drawn, n_top > 0 of them the likeliest exactly; 0: no draw
cdef int draw_outcomes(const State* s, const Move* m, int n_samples, int n_top, Rng* rng,
                       uint8_t (*otypes)[5], double* oprob) noexcept nogil
# reorder s's deck so that its top k cards are types[0..k-1] (drawn in that order)
cdef void force_top(State* s, const uint8_t* types, int k) noexcept nogil

# cython: language_level=3
"""C-level interface of the observation tensor and the dense action index
(docs/notation.md, "Observation tensor" and "Dense action index").

Everything here reads only what the observer may see (docs/rules.md, R8): an
observation computed from a full State equals the one computed from the
observer's View.
"""
from libc.stdint cimport uint8_t, int16_t, int32_t
from jaipur_ai.rules._core cimport State, View, Move

cdef enum:
    OBS_SIZE = 64              # floats in one observation
    N_DENSE = 25499            # dense action ids: every move legal in some position

# dense id <-> fixed action id (-1: no dense id / out of range)
cdef int32_t dense_of_action(int32_t action) noexcept nogil
cdef int32_t action_of_dense(int32_t dense) noexcept nogil
cdef const Move* dense_move(int32_t dense) noexcept nogil      # the decoded move of a dense id
cdef int32_t dense_of_move(const Move* m) noexcept nogil

# the observation of `observer`, who sees the opponent holding opp_hand_n goods
cdef void observe(const State* s, int observer, int opp_hand_n, float* out) noexcept nogil
cdef void observe_state(const State* s, int observer, float* out) noexcept nogil
cdef void observe_view(const View* v, float* out) noexcept nogil

# dense ids of the legal moves of the player to move, in generation order; returns how many
cdef int legal_dense(const State* s, int32_t* out) noexcept nogil

# cython: language_level=3
"""C-level interface of dealing and information sets (_dealing.pyx)."""
from libc.stdint cimport uint8_t
from jaipur_ai.rules._core cimport State, View, Rng

cdef void deal_round(State* s, Rng* r, int starter) noexcept nogil  # keeps round, seals, bonus set
cdef void new_match(State* s, Rng* r, int starter, int bonus_set) noexcept nogil
cdef void make_view(const State* s, int observer, View* v) noexcept nogil  # mask the unseen
cdef int sample_view(const View* v, State* out, Rng* r) noexcept nogil  # 0 ok, -1 inconsistent
# the same with the opponent's unknown hand slots holding exactly unknown_goods[N_GOODS]
cdef int sample_view_hand(const View* v, const uint8_t* unknown_goods, State* out,
                          Rng* r) noexcept nogil

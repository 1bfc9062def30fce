# cython: language_level=3
"""C-level interface of dealing and information sets (_dealing.pyx)."""
from libc.stdint cimport uint8_t, uint64_t
from jaipur_ai.rules._core cimport State, View, Rng

cdef void deal_round(State* s, Rng* r, int starter) noexcept nogil  # keeps round, seals, bonus set
cdef void new_match(State* s, Rng* r, int starter, int bonus_set) noexcept nogil
# a match dealt from `seed` alone: r seeded by it, then new_match (CoreState.new, the envs)
cdef void deal_match(State* s, Rng* r, uint64_t seed, int starter, int bonus_set) noexcept nogil


cdef inline int default_starter(uint64_t seed) noexcept nogil:
    """Who starts a match dealt from `seed` when the caller does not say
    (GameState.new(seed=...), the environments' deals): a bit of a multiplicative hash."""
    return <int>(((seed * <uint64_t>0x9E3779B97F4A7C15) >> 17) & 1)
cdef void make_view(const State* s, int observer, View* v) noexcept nogil  # mask the unseen
cdef int sample_view(const View* v, State* out, Rng* r) noexcept nogil  # 0 ok, -1 inconsistent
# the same with the opponent's unknown hand slots holding exactly unknown_goods[N_GOODS]
cdef int sample_view_hand(const View* v, const uint8_t* unknown_goods, State* out,
                          Rng* r) noexcept nogil

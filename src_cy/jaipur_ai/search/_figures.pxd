# cython: language_level=3
"""The rules core's figures as tables for the search (see _figures.pyx).

The search knows no card names: it reads token values, stack lengths and bonus
means from here, filled once from the core at import.  Modules keep a pointer:
``cdef const Figures* F = figures()``.
"""
from libc.stdint cimport uint8_t
from jaipur_ai.rules._core cimport State, N_GOODS

cdef enum:
    TOKPAD = 32                # token rows padded with zeros past each stack

ctypedef struct Figures:
    double tok[N_GOODS][TOKPAD]       # tok[g][i]: i-th goods token of g from the top (0 past the end)
    double tok_left[N_GOODS][TOKPAD]  # tok_left[g][i]: points of g's tokens from the i-th on (0 past the end)
    int toklen[N_GOODS]               # goods tokens in each stack at the start of a round
    int minsale[N_GOODS]              # smallest sale the rules allow (1, or 2 for precious goods)
    double bonus_mean_of[2][TOKPAD]   # [bonus set][n]: mean bonus of a sale of n cards (stack not empty)

cdef const Figures* figures() noexcept nogil


cdef inline int hand_count(const State* s, int p) noexcept nogil:
    """Goods in player p's hand."""
    cdef const uint8_t* h = s.hand[p]
    return h[0] + h[1] + h[2] + h[3] + h[4] + h[5]


cdef inline int n_empty(const Figures* F, const State* s) noexcept nogil:
    """Goods-token stacks already empty."""
    cdef int g, n = 0
    for g in range(N_GOODS):
        if s.tok_pos[g] >= F.toklen[g]:
            n += 1
    return n

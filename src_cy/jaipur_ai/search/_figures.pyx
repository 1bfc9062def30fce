# cython: language_level=3
"""The core's figures as search tables, filled once at import (see _figures.pxd)."""
from libc.string cimport memset
from libc.stdint cimport uint8_t

from jaipur_ai.rules._core cimport (Move, N_BONUS_KINDS, MAX_BONUS, ACTION_SELL0, token_len,
                              token_value, bonus_values, move_of)

cdef Figures _F


cdef const Figures* figures() noexcept nogil:
    return &_F


cdef void _init():
    cdef int g, i, b, k
    cdef uint8_t vals[MAX_BONUS]
    cdef uint8_t nv
    cdef Move m
    cdef double tot
    cdef double mean[N_BONUS_KINDS]
    memset(&_F, 0, sizeof(Figures))
    for g in range(N_GOODS):
        _F.toklen[g] = token_len(g)
        for i in range(_F.toklen[g]):
            _F.tok[g][i] = token_value(g, i)
        for i in range(_F.toklen[g] - 1, -1, -1):
            _F.tok_left[g][i] = _F.tok[g][i] + (_F.tok_left[g][i + 1] if i + 1 < TOKPAD else 0.0)
        # a sale of one card exists in the action space only where the rules allow it
        _F.minsale[g] = 1 if move_of(ACTION_SELL0 + g * 7, &m) == 0 else 2
    for b in range(2):
        for k in range(N_BONUS_KINDS):
            bonus_values(b, k, vals, &nv)
            tot = 0
            for i in range(nv):
                tot += vals[i]
            mean[k] = tot / nv if nv else 0.0
        # sales of 3, 4 and 5+ cards draw from the three bonus stacks
        for i in range(TOKPAD):
            if i < 3:
                _F.bonus_mean_of[b][i] = 0.0
            elif i < 5:
                _F.bonus_mean_of[b][i] = mean[i - 3]
            else:
                _F.bonus_mean_of[b][i] = mean[2]


_init()

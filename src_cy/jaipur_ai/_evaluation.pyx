# cython: language_level=3
"""The leaf evaluation: what a position not played to its end is worth.

ISMCTS scores a playout cut after ``cutoff`` plies with it, expectimax its leaves.
It reads the world it is given (a sampled world, never the real hidden state) and
returns an estimated win chance of one player, with an estimated margin in points
(docs/search.md, "Leaf evaluation").
"""
from libc.math cimport exp

from jaipur_ai._core cimport N_GOODS, RESULT_NONE, round_totals
from jaipur_ai._params cimport REWARD_MARGIN
from jaipur_ai._policy cimport Heur, weights, hold_value
from jaipur_ai._decisive cimport outcome

cdef const Heur* H = weights()


cdef double evaluate(const State* s, int p, double* margin) noexcept nogil:
    """Leaf evaluation: (estimated win chance of p, estimated margin in points)."""
    cdef int t[2]
    cdef int g, o = 1 - p
    cdef double e, w
    if s.result != RESULT_NONE:
        w = outcome(s, p, margin)
        return w
    round_totals(s, t)
    e = t[p] - t[o]
    for g in range(N_GOODS):
        if s.hand[p][g]:
            e += H.eval_hold * hold_value(s, g, s.hand[p][g])
        if s.hand[o][g]:
            e -= H.eval_hold * hold_value(s, g, s.hand[o][g])
    e += H.eval_camel * (<int>s.herd[p] - <int>s.herd[o])
    margin[0] = e
    return 1.0 / (1.0 + exp(-e / H.eval_scale))


cdef double reward(const Params* P, double win, double margin) noexcept nogil:
    """The reward backed up by an iteration: win (1/0.5/0 or a win chance) mixed with
    the margin mapped onto [0, 1] (clipped at +-margin_scale points)."""
    cdef double x = margin / P.margin_scale
    if x > 1.0:
        x = 1.0
    elif x < -1.0:
        x = -1.0
    if P.reward == REWARD_MARGIN:
        return 0.5 + 0.5 * x
    return (1.0 - P.margin_weight) * win + P.margin_weight * (0.5 + 0.5 * x)

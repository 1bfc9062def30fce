# cython: language_level=3
"""Raw inputs of a full state from player p's side, for the learned evaluation's
raw-input network (docs/search.md, "Raw inputs and lookahead targets").

The hand-made features (_features.pyx) are differences between the players, built so
that a linear model reads them.  These are the plain counts a network reads instead:
p's goods by type, the other player's, both herds, the market by type, each token
stack (tokens left, the top token's value, the next three's sum), the bonus tokens
left of each kind, both players' points, the draw pile, who moves, the seals, the
empty stacks and both hand sizes, each divided by a typical size so that it is about
1.  They are not antisymmetric: the evaluation reads them from both sides,
``g(raw(s, p)) - g(raw(s, 1 - p))``, so that the two players' values still add up to
one.  Like the features they read the world they are given; card names appear
nowhere.  ``RAW_NAMES`` names them in order.
"""
from libc.string cimport memcpy

import numpy as np

from jaipur_ai.rules._core cimport State, N_GOODS, N_TYPES, N_BONUS_KINDS
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._figures cimport Figures, figures, hand_count

cdef const Figures* F = figures()

N_RAW_PY = N_RAW
RAW_VERSION_PY = RAW_VERSION
RAW_NAMES = (
    tuple(f"mine{g}" for g in range(6)) + tuple(f"theirs{g}" for g in range(6))
    + ("my_herd", "their_herd") + tuple(f"market{t}" for t in range(7))
    + tuple(f"tokens_left{g}" for g in range(6)) + tuple(f"top_token{g}" for g in range(6))
    + tuple(f"next3_tokens{g}" for g in range(6))
    + ("bonus3_left", "bonus4_left", "bonus5_left", "my_points", "their_points",
       "pile", "to_move", "my_seals", "their_seals", "empty_stacks", "my_hand",
       "their_hand"))
assert len(RAW_NAMES) == N_RAW


cdef void raw_inputs(const State* s, int p, double* x) noexcept nogil:
    cdef int g, t, k, pos, left, empty = 0, o = 1 - p
    for g in range(N_GOODS):
        x[g] = s.hand[p][g] / 3.0
        x[6 + g] = s.hand[o][g] / 3.0
    x[12] = s.herd[p] / 5.0
    x[13] = s.herd[o] / 5.0
    for t in range(N_TYPES):
        x[14 + t] = s.market[t] / 2.0
    for g in range(N_GOODS):
        pos = s.tok_pos[g]
        left = F.toklen[g] - pos
        if left <= 0:
            left = 0
            empty += 1
        x[21 + g] = left / 5.0
        x[27 + g] = F.tok[g][pos] / 5.0                          # (0 past the end)
        x[33 + g] = (F.tok_left[g][pos] - F.tok_left[g][pos + 3]) / 15.0
    for k in range(N_BONUS_KINDS):
        x[39 + k] = (<int>s.bonus_len[k] - <int>s.bonus_pos[k]) / 5.0
    x[42] = (s.goods_pts[p] + s.bonus_pts[p]) / 50.0
    x[43] = (s.goods_pts[o] + s.bonus_pts[o]) / 50.0
    x[44] = s.deck_len / 40.0
    x[45] = 1.0 if s.to_move == p else 0.0
    x[46] = s.seals[p]
    x[47] = s.seals[o]
    x[48] = empty / 3.0
    x[49] = hand_count(s, p) / 7.0
    x[50] = hand_count(s, o) / 7.0


def raw_inputs_of(CoreState st, int player):
    """The raw inputs of a full state for player (float64 array of N_RAW)."""
    cdef double x[N_RAW]
    if player not in (0, 1):
        raise ValueError("player must be 0 or 1")
    raw_inputs(&st.s, player, x)
    return np.array([x[i] for i in range(N_RAW)], np.float64)


def raw_rows(states):
    """The raw inputs of stored full states (uint8 (n, STATE_BYTES), as the self-play
    shards keep them) from the mover's side and the other player's: float32 (n, 2,
    N_RAW), for fitting the raw-input network (jaipur_ai.learning.train)."""
    cdef const unsigned char[:, ::1] S = np.ascontiguousarray(states, np.uint8)
    cdef int n = S.shape[0], i, j, p
    cdef State s
    cdef double x[N_RAW]
    if S.shape[1] != sizeof(State):
        raise ValueError(f"states must have {sizeof(State)} bytes a row")
    out = np.zeros((n, 2, N_RAW), np.float32)
    cdef float[:, :, ::1] O = out
    for i in range(n):
        memcpy(&s, &S[i, 0], sizeof(State))
        p = s.to_move
        raw_inputs(&s, p, x)
        for j in range(N_RAW):
            O[i, 0, j] = x[j]
        raw_inputs(&s, 1 - p, x)
        for j in range(N_RAW):
            O[i, 1, j] = x[j]
    return out

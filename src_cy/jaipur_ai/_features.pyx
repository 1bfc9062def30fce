# cython: language_level=3
"""Features of a full state from player p's side, for the learned evaluation.

The search evaluates sampled worlds, so the features read the world they are given
(the opponent's hand in it included); they never see anything else.  Every feature
is *antisymmetric*: seen from the other player's side it changes sign,
``features(s, 1 - p) == -features(s, p)``, so an evaluation built on them gives the
two players complementary values by construction.  The list and its scales are in
docs/search.md ("Learned evaluation"); ``FEATURE_NAMES`` names them in order.
Card names appear nowhere: "precious" goods are those whose one-card sale is not a
move, as the core's figures say.
"""
from libc.stdint cimport uint8_t

import numpy as np

from jaipur_ai._core cimport N_GOODS, CAMEL, HAND_LIMIT
from jaipur_ai._bridge cimport CoreState
from jaipur_ai._figures cimport Figures, figures, hand_count, n_empty
from jaipur_ai._heuristic cimport hold_value

cdef const Figures* F = figures()

FEATURES_VERSION_PY = FEATURES_VERSION
N_FEATURES_PY = N_FEATURES
FEATURE_NAMES = (
    "points", "camel_majority", "herd", "hand_value", "hand_size",
    "to_move", "to_move*market_value", "to_move*market_camels",
    "good0", "good1", "good2", "good3", "good4", "good5",
    "progress*points", "progress*camel_majority", "progress*herd", "progress*hand_value",
    "progress*hand_size", "progress*to_move",
    "end*points", "end*camel_majority", "end*hand_value", "end*to_move",
    "sets_of_3", "full_hand", "tokens_held", "precious_held", "end*herd",
)
assert len(FEATURE_NAMES) == N_FEATURES


cdef void features(const State* s, int p, double* out) noexcept nogil:
    """Fill out[0:N_FEATURES] for player p (docs/search.md lists them)."""
    cdef int o = 1 - p, g, x, hp, ho
    cdef double sgn = 1.0 if s.to_move == p else -1.0
    cdef double pr = 1.0 - s.deck_len / 40.0
    cdef double end = 1.0 if (n_empty(F, s) >= 2 or s.deck_len <= 6) else 0.0
    cdef double d_pts, maj, d_herd, d_hv, d_hn, mv = 0.0
    cdef double hv[2]
    cdef int sets[2]
    cdef int prec[2]
    cdef int pl[2]
    pl[0] = p
    pl[1] = o
    for x in range(2):
        hv[x] = 0.0
        sets[x] = 0
        prec[x] = 0
        for g in range(N_GOODS):
            hp = s.hand[pl[x]][g]
            if hp:
                hv[x] += hold_value(s, g, hp)
                if hp >= 3:
                    sets[x] += 1
                if F.minsale[g] >= 2:
                    prec[x] += hp
    for g in range(N_GOODS):
        if s.market[g]:
            mv += s.market[g] * F.tok[g][s.tok_pos[g]]
    d_pts = ((s.goods_pts[p] + s.bonus_pts[p]) - (s.goods_pts[o] + s.bonus_pts[o])) / 10.0
    maj = 1.0 if s.herd[p] > s.herd[o] else (-1.0 if s.herd[p] < s.herd[o] else 0.0)
    d_herd = (<int>s.herd[p] - <int>s.herd[o]) / 4.0
    d_hv = (hv[0] - hv[1]) / 10.0
    hp = hand_count(s, p)
    ho = hand_count(s, o)
    d_hn = (hp - ho) / 4.0
    out[0] = d_pts
    out[1] = maj
    out[2] = d_herd
    out[3] = d_hv
    out[4] = d_hn
    out[5] = sgn
    out[6] = sgn * mv / 10.0
    out[7] = sgn * s.market[CAMEL] / 3.0
    for g in range(N_GOODS):
        out[8 + g] = (<int>s.hand[p][g] - <int>s.hand[o][g]) / 3.0
    out[14] = pr * d_pts
    out[15] = pr * maj
    out[16] = pr * d_herd
    out[17] = pr * d_hv
    out[18] = pr * d_hn
    out[19] = pr * sgn
    out[20] = end * d_pts
    out[21] = end * maj
    out[22] = end * d_hv
    out[23] = end * sgn
    out[24] = (sets[0] - sets[1]) / 2.0
    out[25] = (1.0 if hp >= HAND_LIMIT else 0.0) - (1.0 if ho >= HAND_LIMIT else 0.0)
    out[26] = ((s.n_goods_tok[p] + s.n_bonus_tok[p]) - (s.n_goods_tok[o] + s.n_bonus_tok[o])) / 10.0
    out[27] = (prec[0] - prec[1]) / 3.0
    out[28] = end * d_herd


def features_of(CoreState st, int player):
    """The feature vector (float64, N_FEATURES) of a full state from player's side."""
    if player not in (0, 1):
        raise ValueError("player must be 0 or 1")
    out = np.zeros(N_FEATURES, np.float64)
    cdef double[::1] o = out
    features(&st.s, player, &o[0])
    return out

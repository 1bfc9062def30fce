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

Version 2 appends 24 features to version 1's 29 (which keep their places and values),
so weights of version 1 still evaluate: they read the first N_FEATURES_V1 only, and
the rest is then not computed.
"""
from libc.stdint cimport uint8_t

import numpy as np

from jaipur_ai.rules._core cimport N_GOODS, CAMEL, HAND_LIMIT
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._figures cimport Figures, figures, hand_count, n_empty
from jaipur_ai.search._heuristic cimport hold_value

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
    # version 2
    "best_sale", "to_move*best_sale", "to_move*best_take", "to_move*market_goods",
    "stake0", "stake1", "stake2", "stake3", "stake4", "stake5",
    "progress*good0", "progress*good1", "progress*good2", "progress*good3",
    "progress*good4", "progress*good5",
    "empty*points", "closing*points", "closing*to_move", "closing*camel_majority",
    "goods_types", "pairs", "progress*best_sale", "end_tokens*to_move*best_sale",
)
N_FEATURES_V1_PY = N_FEATURES_V1
assert len(FEATURE_NAMES) == N_FEATURES


cdef bint _sale_empties_stack(const State* s, int x) noexcept nogil:
    """Whether player x can sell a good whose token stack the sale would empty."""
    cdef int g, n, left
    for g in range(N_GOODS):
        n = s.hand[x][g]
        left = F.toklen[g] - s.tok_pos[g]
        if n > 0 and n >= F.minsale[g] and left > 0 and n >= left:
            return True
    return False


cdef void features(const State* s, int p, double* out, int n) noexcept nogil:
    """Fill out[0:n] for player p, n = N_FEATURES or N_FEATURES_V1 (docs/search.md
    lists them).  One pass over the hands serves both versions."""
    cdef int o = 1 - p, m = s.to_move, g, x, hp, ho, goods = 0
    cdef double sgn = 1.0 if m == p else -1.0
    cdef double pr = 1.0 - s.deck_len / 40.0
    cdef int ne = n_empty(F, s)
    cdef double end = 1.0 if (ne >= 2 or s.deck_len <= 6) else 0.0
    cdef double d_pts, maj, d_herd, d_hv, d_hn, mv = 0.0, v, take = 0.0, top = 0.0, bm, closing, dg
    cdef double hv[2]
    cdef double best[2]                # the best sale now: all cards of one good
    cdef int sets[2]
    cdef int prec[2]
    cdef int types[2]
    cdef int pairs[2]
    cdef int pl[2]
    cdef double* w = out + N_FEATURES_V1
    pl[0] = p
    pl[1] = o
    for x in range(2):
        hv[x] = 0.0
        best[x] = 0.0
        sets[x] = 0
        prec[x] = 0
        types[x] = 0
        pairs[x] = 0
        for g in range(N_GOODS):
            hp = s.hand[pl[x]][g]
            if hp:
                v = hold_value(s, g, hp)
                hv[x] += v
                if hp >= F.minsale[g] and v > best[x]:
                    best[x] = v
                types[x] += 1
                if hp >= 2:
                    pairs[x] += 1
                if hp >= 3:
                    sets[x] += 1
                if F.minsale[g] >= 2:
                    prec[x] += hp
    for g in range(N_GOODS):
        if s.market[g]:
            v = F.tok[g][s.tok_pos[g]]
            mv += s.market[g] * v
            goods += s.market[g]
            if v > top:
                top = v
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
    if n <= N_FEATURES_V1:
        return
    # version 2: what the hands can cash now, what the mover can take, which goods
    # are contested, whether the mover can close the round
    bm = best[0] if m == p else best[1]
    if (hp if m == p else ho) < HAND_LIMIT:
        take = top
    w[0] = (best[0] - best[1]) / 10.0
    w[1] = sgn * bm / 10.0
    w[2] = sgn * take / 5.0
    w[3] = sgn * goods / 5.0
    for g in range(N_GOODS):
        dg = <int>s.hand[p][g] - <int>s.hand[o][g]
        w[4 + g] = dg * F.tok_left[g][s.tok_pos[g]] / 30.0
        w[10 + g] = pr * dg / 3.0
    w[16] = ne / 3.0 * d_pts
    closing = 1.0 if ((ne >= 2 and _sale_empties_stack(s, m)) or s.deck_len <= 2) else 0.0
    w[17] = closing * d_pts
    w[18] = closing * sgn
    w[19] = closing * maj
    w[20] = (types[0] - types[1]) / 3.0
    w[21] = (pairs[0] - pairs[1]) / 3.0
    w[22] = pr * (best[0] - best[1]) / 10.0
    w[23] = (1.0 if ne >= 2 else 0.0) * sgn * bm / 10.0


def features_of(CoreState st, int player):
    """The feature vector (float64, N_FEATURES) of a full state from player's side."""
    if player not in (0, 1):
        raise ValueError("player must be 0 or 1")
    out = np.zeros(N_FEATURES, np.float64)
    cdef double[::1] o = out
    features(&st.s, player, &o[0], N_FEATURES)
    return out

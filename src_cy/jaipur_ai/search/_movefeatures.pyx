# cython: language_level=3
"""Features of a move in a state, for the learned move policy.

The move policy (docs/search.md, "The learned move policy") gives each candidate move
a logit: the prior score the search has always used (the learned value of the position
the move leads to, or the hand-set move score in playouts) times a learned scale, plus
a learned linear function of these features.  They describe the move itself, from the
mover's side, and only read what the mover knows: its own hand and herd, the market,
the tokens and the size of the draw pile.  A softmax over moves ignores what all moves
share, so the position enters only through products with the move's kind (the
``late*`` features).  ``MOVE_FEATURE_NAMES`` names them in order; weights name the
version they were trained on, and another version is refused at load.
"""
from libc.string cimport memset

import numpy as np

from jaipur_ai.rules._core cimport (N_GOODS, CAMEL, HAND_LIMIT, MOVE_TAKE, MOVE_CAMELS,
                                    MOVE_SELL, move_of)
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._figures cimport Figures, figures, hand_count

cdef const Figures* F = figures()

MOVE_FEATURES_VERSION_PY = MOVE_FEATURES_VERSION
N_MOVE_FEATURES_PY = N_MOVE_FEATURES
MOVE_FEATURE_NAMES = (
    "take", "camels", "sell", "exchange",
    "in0", "in1", "in2", "in3", "in4", "in5",
    "out0", "out1", "out2", "out3", "out4", "out5",
    "camels_in", "camels_out", "sale_of_3", "sale_of_4", "sale_of_5",
    "sale_points", "hand_after", "herd_after",
    "late*sell", "late*take", "late*exchange", "late*camels",
    "empties_stack", "market_camels_after", "full_hand_after", "herd_lead_after",
)
assert len(MOVE_FEATURE_NAMES) == N_MOVE_FEATURES


cdef void move_features(const State* s, const Move* m, double* out) noexcept nogil:
    """The features of m (legal in s) for s.to_move; see MOVE_FEATURE_NAMES."""
    cdef int p = s.to_move, o = 1 - s.to_move, g, n, pos
    cdef int hand = hand_count(s, p), herd = s.herd[p], camels = s.market[CAMEL]
    cdef double late = 1.0 - s.deck_len / 40.0
    memset(out, 0, N_MOVE_FEATURES * sizeof(double))
    out[m.kind] = 1.0                 # take, camels, sell, exchange (MOVE_* order)
    if m.kind == MOVE_TAKE:
        out[4 + m.good] = 1.0
        hand += 1
        out[25] = late
    elif m.kind == MOVE_CAMELS:
        out[16] = camels / 5.0
        herd += camels
        camels = 0
        out[27] = late
    elif m.kind == MOVE_SELL:
        g = m.good
        n = m.count
        out[10 + g] = n
        out[18] = 1.0 if n >= 3 else 0.0
        out[19] = 1.0 if n >= 4 else 0.0
        out[20] = 1.0 if n >= 5 else 0.0
        pos = s.tok_pos[g]
        if pos < F.toklen[g]:
            # the goods tokens the sale takes (the token rows are padded with zeros)
            out[21] = (F.tok_left[g][pos] - F.tok_left[g][pos + n]) / 10.0
            out[28] = 1.0 if pos + n >= F.toklen[g] else 0.0
        hand -= n
        out[24] = late
    else:
        for g in range(N_GOODS):
            out[4 + g] = m.take[g]
            out[10 + g] = m.give[g]
        out[17] = m.give[CAMEL] / 5.0
        hand += m.give[CAMEL]         # camels given become goods in hand
        herd -= m.give[CAMEL]
        camels += m.give[CAMEL]
        out[26] = late
    out[22] = hand / <double>HAND_LIMIT
    out[23] = herd / 11.0
    out[29] = camels / 5.0
    out[30] = 1.0 if hand >= HAND_LIMIT else 0.0
    out[31] = (herd - <int>s.herd[o]) / 5.0


cdef double move_dot(const State* s, const Move* m, const double* w) noexcept nogil:
    cdef double f[N_MOVE_FEATURES]
    cdef double z = 0.0
    cdef int i
    move_features(s, m, f)
    for i in range(N_MOVE_FEATURES):
        z += w[i] * f[i]
    return z


def move_features_of(CoreState st, int action):
    """The features (float64, N_MOVE_FEATURES) of the legal move ``action`` in st, for
    the player to move; ValueError for an action not legal there."""
    cdef Move m
    if not st.is_legal_action(action) or move_of(action, &m) != 0:
        raise ValueError(f"action {action} is not legal in this state")
    out = np.zeros(N_MOVE_FEATURES, np.float64)
    cdef double[::1] o = out
    move_features(&st.s, &m, &o[0])
    return out

# cython: language_level=3
"""The hand-set heuristic: its weights, what a holding would sell for now, and the
move score.

``score`` is a heuristic gain of a move for the player to move, in points
(docs/search.md, "Move score"): greedy play, move ordering, ISMCTS expansion, the
PUCT priors and the informed playouts all use it.  The weights are one global struct,
so that all of them (and the hand-set leaf evaluation) agree.
"""
from libc.stdint cimport uint8_t

from jaipur_ai.rules._core cimport CAMEL, HAND_LIMIT, MOVE_TAKE, MOVE_CAMELS, MOVE_SELL
from jaipur_ai.search._figures cimport Figures, figures, hand_count

cdef const Figures* F = figures()

# ---------------------------------------------------------------------------
# Heuristic weights (docs/search.md, "Move score").  One global struct so that
# the informed playouts, greedy, move ordering and the leaf evaluation agree.
# ---------------------------------------------------------------------------
cdef Heur H
H.hold = 0.6
H.small_sale = 0.4
H.camel = 0.6
H.camel_major = 2.5
H.reveal = 0.25
H.gift = 0.15
H.swap_cost = 0.5
H.near_full = 0.5
H.eval_hold = 0.5
H.eval_camel = 0.3
H.eval_scale = 8.0

_HEUR_FIELDS = ("hold", "small_sale", "camel", "camel_major", "reveal", "gift",
                "swap_cost", "near_full", "eval_hold", "eval_camel", "eval_scale")


def heuristic_weights():
    """The heuristic weights as a dict (docs/search.md)."""
    return {k: (<object>H)[k] for k in _HEUR_FIELDS}


def set_heuristic_weights(**kw):
    """Change heuristic weights process-wide (for tuning experiments only)."""
    cdef Heur h = H
    d = <object>h
    for k, val in kw.items():
        if k not in _HEUR_FIELDS:
            raise KeyError(k)
        d[k] = float(val)
    h = d
    H.hold = h.hold
    H.small_sale = h.small_sale
    H.camel = h.camel
    H.camel_major = h.camel_major
    H.reveal = h.reveal
    H.gift = h.gift
    H.swap_cost = h.swap_cost
    H.near_full = h.near_full
    H.eval_hold = h.eval_hold
    H.eval_camel = h.eval_camel
    H.eval_scale = h.eval_scale


cdef const Heur* weights() noexcept nogil:
    return &H

# ---------------------------------------------------------------------------
# What a holding would sell for now
# ---------------------------------------------------------------------------
cdef double hold_value(const State* s, int g, int n) noexcept nogil:
    """What n cards of good g would sell for now: next n tokens and the mean bonus."""
    cdef int i, k, t = s.tok_pos[g]
    cdef double v = 0.0
    for i in range(n):
        v += F.tok[g][t + i]
    if n >= 3:
        k = (n if n < 5 else 5) - 3
        if s.bonus_pos[k] < s.bonus_len[k]:
            v += F.bonus_mean_of[s.bonus_set][n]
    return v


cdef void hold_tab(const State* s, HoldTab* t) noexcept nogil:
    """hold_value() of every good for 0..15 cards, in one pass."""
    cdef int g, n, k, p
    cdef double cum
    cdef double b[16]
    for n in range(16):
        b[n] = 0.0
        if n >= 3:
            k = (n if n < 5 else 5) - 3
            if s.bonus_pos[k] < s.bonus_len[k]:
                b[n] = F.bonus_mean_of[s.bonus_set][n]
    for g in range(N_GOODS):
        p = s.tok_pos[g]
        cum = 0.0
        t.v[g][0] = 0.0
        for n in range(1, 16):
            cum += F.tok[g][p + n - 1]
            t.v[g][n] = cum + b[n]

# ---------------------------------------------------------------------------
# Move score (greedy, informed playouts, move ordering).  Points-like units.
# ---------------------------------------------------------------------------
cdef double score(const State* s, const HoldTab* T, const Move* m) noexcept nogil:
    """Heuristic gain of a move for the player to move, ignoring the end of the round
    (T: the hold table of s)."""
    cdef int p = s.to_move, o = 1 - s.to_move, g, n, k, hs
    cdef const uint8_t* h = s.hand[p]
    cdef double v, pts
    cdef bint urgent
    if m.kind == MOVE_TAKE:
        g = m.good
        v = H.hold * (T.v[g][h[g] + 1] - T.v[g][h[g]]) - H.reveal
        if hand_count(s, p) + 1 >= HAND_LIMIT:
            v -= H.near_full
        return v
    if m.kind == MOVE_CAMELS:
        k = s.market[CAMEL]
        v = (H.camel - H.reveal) * k
        if s.herd[p] <= s.herd[o] and s.herd[p] + k > s.herd[o]:
            v += H.camel_major
        return v
    if m.kind == MOVE_SELL:
        g = m.good
        n = m.count
        pts = T.v[g][n]
        hs = hand_count(s, p)
        urgent = (n >= 3 or F.minsale[g] >= 2 or hs >= HAND_LIMIT - 1
                  or F.toklen[g] - s.tok_pos[g] <= n + 1 or s.hand[o][g] >= 2)
        if not urgent:
            pts *= H.small_sale
        # selling part of a holding leaves the rest for later: count it as held
        if n < h[g]:
            pts -= H.hold * (T.v[g][h[g]] - T.v[g][n]) * 0.5
        return pts
    # exchange
    v = -H.swap_cost
    for g in range(N_GOODS):
        if m.take[g]:
            v += H.hold * (T.v[g][h[g] + m.take[g]] - T.v[g][h[g]])
        elif m.give[g]:
            v -= H.hold * (T.v[g][h[g]] - T.v[g][h[g] - m.give[g]])
            v -= H.gift * F.tok[g][s.tok_pos[g]] * m.give[g]
    k = m.give[CAMEL]
    if k:
        v -= H.camel * k
        if s.herd[p] > s.herd[o] and s.herd[p] - k <= s.herd[o]:
            v -= H.camel_major
    return v


cdef double score_move(const State* s, const Move* m) noexcept nogil:
    """Heuristic gain of a move for the player to move, ignoring the end of the round."""
    cdef HoldTab T
    hold_tab(s, &T)
    return score(s, &T, m)

# cython: language_level=3
"""The move score and the informed playout policy.

``score`` is a hand-set heuristic gain of a move for the player to move, in points
(docs/search.md, "Move score"): greedy play, move ordering, ISMCTS expansion and the
PUCT priors all use it.  The informed policy builds a few candidate moves (takes,
camels, whole-good sales, a few exchanges), scores them with a look-ahead at the end
of the round, and plays the best (epsilon-greedy, with noise).
"""
from libc.string cimport memset
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t

from jaipur_ai._core cimport (CoreState, CAMEL, HAND_LIMIT, MAX_MOVES, MOVE_TAKE,
                              MOVE_CAMELS, MOVE_SELL, MOVE_SWAP, RESULT_NONE, gen_moves,
                              is_legal, apply_move, action_of, rng_seed, rng_below, rng_unit,
                              random_playout)
from jaipur_ai._params cimport PLAYOUT_RANDOM
from jaipur_ai._figures cimport Figures, figures, hand_count, n_empty
from jaipur_ai._decisive cimport ends_round, empties_stack, end_score, gives_opp_win

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



# ---------------------------------------------------------------------------
# Informed playout policy: a few constructed candidates, scored, epsilon-greedy.
# ---------------------------------------------------------------------------
cdef inline double _last_card_value(const HoldTab* T, int g, int n) noexcept nogil:
    """What giving away one of n held cards of g costs (token and bonus step)."""
    return T.v[g][n] - T.v[g][n - 1]


cdef int _give_for(const State* s, const HoldTab* T, const uint8_t* take, int k,
                   bint camels_first, Move* out) noexcept nogil:
    """Fill an exchange taking `take` (k cards): camels and/or the cheapest goods.

    Returns 1 when a legal exchange was built, else 0."""
    cdef int p = s.to_move, g, best, left = k, c, cap
    cdef uint8_t hh[N_GOODS]
    cdef double bv, v
    memset(out, 0, sizeof(Move))
    out.kind = MOVE_SWAP
    out.count = k
    for g in range(N_GOODS):
        out.take[g] = take[g]
        hh[g] = s.hand[p][g]
    cap = HAND_LIMIT - hand_count(s, p)
    if cap > s.herd[p]:
        cap = s.herd[p]
    if camels_first:
        c = cap if cap < left else left
        out.give[CAMEL] = c
        left -= c
    while left > 0:
        best = -1
        bv = 1e300
        for g in range(N_GOODS):
            if take[g] == 0 and hh[g] > 0:
                v = _last_card_value(T, g, hh[g])
                if v < bv:
                    bv = v
                    best = g
        if best < 0:
            break
        hh[best] -= 1
        out.give[best] += 1
        left -= 1
    if left > 0 and not camels_first:
        c = cap if cap < left else left
        out.give[CAMEL] = c
        left -= c
    return 1 if left == 0 else 0


cdef inline int memcmp16(const Move* a, const Move* b) noexcept nogil:
    cdef const uint8_t* x = <const uint8_t*>a
    cdef const uint8_t* y = <const uint8_t*>b
    cdef int i
    for i in range(sizeof(Move)):
        if x[i] != y[i]:
            return 1
    return 0


cdef int candidates(const State* s, const HoldTab* T, Move* cand) noexcept nogil:
    cdef int p = s.to_move, g, n = 0, hs, k
    cdef const uint8_t* h = s.hand[p]
    cdef uint8_t take[N_GOODS]
    cdef double bv, v, bv2
    cdef int b1, b2
    hs = hand_count(s, p)
    if hs < HAND_LIMIT:
        for g in range(N_GOODS):
            if s.market[g]:
                memset(&cand[n], 0, sizeof(Move))
                cand[n].kind = MOVE_TAKE
                cand[n].good = g
                cand[n].count = 1
                n += 1
    if s.market[CAMEL]:
        memset(&cand[n], 0, sizeof(Move))
        cand[n].kind = MOVE_CAMELS
        n += 1
    for g in range(N_GOODS):
        if h[g] >= F.minsale[g]:
            memset(&cand[n], 0, sizeof(Move))
            cand[n].kind = MOVE_SELL
            cand[n].good = g
            cand[n].count = h[g]
            n += 1
    # exchanges: all of one good from the market, for camels first or goods first
    for g in range(N_GOODS):
        k = s.market[g]
        if k >= 2:
            memset(take, 0, sizeof(take))
            take[g] = k
            if _give_for(s, T, take, k, True, &cand[n]):
                n += 1
            if _give_for(s, T, take, k, False, &cand[n]):
                if n == 0 or memcmp16(&cand[n], &cand[n - 1]) != 0:
                    n += 1
    # the two most valuable market goods of different types
    b1 = -1
    b2 = -1
    bv = -1.0
    bv2 = -1.0
    for g in range(N_GOODS):
        if s.market[g]:
            v = T.v[g][h[g] + 1] - T.v[g][h[g]]
            if v > bv:
                bv2 = bv
                b2 = b1
                bv = v
                b1 = g
            elif v > bv2:
                bv2 = v
                b2 = g
    if b2 >= 0:
        memset(take, 0, sizeof(take))
        take[b1] = 1
        take[b2] = 1
        if _give_for(s, T, take, 2, True, &cand[n]):
            n += 1
    return n


cdef int score_candidates(const State* s, const HoldTab* T, const Move* cand, int n,
                           double* sc) noexcept nogil:
    """Move scores of the candidates, with the round-end look-ahead: a move that ends
    the round is scored exactly, one that lets the opponent end it and win loses 800.
    Returns how many are not such losing moves."""
    cdef int ne = n_empty(F, s), i, nok = 0
    cdef bint endp = s.deck_len < 5 or ne >= 2
    cdef bint danger = s.deck_len < 10 or ne >= 2
    for i in range(n):
        if endp and ends_round(s, &cand[i]):
            sc[i] = end_score(s, &cand[i])
        else:
            sc[i] = score(s, T, &cand[i])
            if ((danger or (ne == 1 and empties_stack(s, &cand[i])))
                    and gives_opp_win(s, &cand[i])):
                sc[i] -= 800.0
        if sc[i] > -500.0:
            nok += 1
    return nok


cdef int policy_move(const State* s, Rng* r, const Params* P, Move* out) noexcept nogil:
    """Choose a move by the informed policy; returns 0, or -1 when there is none."""
    cdef Move cand[MAX_CAND]
    cdef double sc[MAX_CAND]
    cdef Move* buf
    cdef int n, i, best, pick, nok, ne
    cdef bint endp, danger
    cdef double bv
    cdef HoldTab T
    hold_tab(s, &T)
    n = candidates(s, &T, cand)
    if n == 0:
        # (never happens in a running round: some take, sale or camel take is
        # always among the candidates; kept off the stack of the hot path)
        buf = <Move*>malloc(MAX_MOVES * sizeof(Move))
        if buf == NULL:
            return -1
        n = gen_moves(s, buf)
        if n > 0:
            out[0] = buf[rng_below(r, n)]
        free(buf)
        return 0 if n > 0 else -1
    nok = score_candidates(s, &T, cand, n, sc)
    if P.epsilon > 0.0 and nok > 0 and rng_unit(r) < P.epsilon:
        pick = rng_below(r, nok)
        for i in range(n):
            if sc[i] > -500.0:
                if pick == 0:
                    out[0] = cand[i]
                    return 0
                pick -= 1
    best = 0
    bv = -1e300
    for i in range(n):
        if P.noise > 0.0:
            sc[i] += P.noise * rng_unit(r)
        if sc[i] > bv:
            bv = sc[i]
            best = i
    out[0] = cand[best]
    return 0


cdef double playout(State* s, Rng* r, const Params* P) noexcept nogil:
    """Play the round out by the chosen policy; returns plies played."""
    cdef Move m
    cdef int plies = 0, limit = P.max_playout
    if P.cutoff > 0 and P.cutoff < limit:
        limit = P.cutoff
    if P.playout == PLAYOUT_RANDOM:
        return random_playout(s, r, limit)
    while s.result == RESULT_NONE and plies < limit:
        if policy_move(s, r, P, &m) != 0:
            break
        apply_move(s, &m)
        plies += 1
    return plies


def check_policy(CoreState st, uint64_t seed, int rounds=10, double epsilon=0.1,
                 double noise=1.0):
    """Play `rounds` informed playouts from copies of st and check every move the
    policy picks against the rules core (for tests); returns plies checked."""
    cdef State s
    cdef Rng r
    cdef Move m
    cdef Params P
    cdef int i, plies = 0
    P.epsilon = epsilon
    P.noise = noise
    rng_seed(&r, seed)
    for i in range(rounds):
        s = st.s
        while s.result == RESULT_NONE and plies < 1000000:
            if policy_move(&s, &r, &P, &m) != 0:
                raise AssertionError("the policy found no move")
            if not is_legal(&s, &m):
                raise AssertionError(f"illegal policy move {action_of(&m)}")
            apply_move(&s, &m)
            plies += 1
    return plies



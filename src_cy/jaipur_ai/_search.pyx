# cython: language_level=3
"""The compiled search: ISMCTS, expectimax, greedy and random move choice.

Everything that loops runs without the GIL on the plain C structs of the rules core
(``_core.pxd``); Python objects only appear at the edges (constructors, ``run``
returning a count, ``summary`` building plain dicts).  The search knows no card
names: it uses the core's figures (``token_value``, ``bonus_values``), its move
generator and its action ids.  docs/search.md explains the algorithms.

Values are rewards in [0, 1] from the point of view of the player who made the
move into a node (1 win, 0.5 draw, 0 loss, see ``Params``); margins are in points
from the same point of view.
"""
cimport cython
from libc.string cimport memcpy, memset
from libc.stdlib cimport qsort, malloc, free
from libc.math cimport sqrt, log, exp
from libc.stdint cimport int8_t, uint8_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

import threading

import numpy as np

from jaipur_ai._core cimport *

__all__ = ["IsmctsSearcher", "ExpectimaxSearcher", "greedy_scores", "random_action",
           "rank_children", "NO_NODE_PY", "OUTCOME_PY", "derive_seed"]

NO_NODE_PY = NO_NODE
OUTCOME_PY = OUTCOME

# ---------------------------------------------------------------------------
# Tables taken from the core at import (no card names here).
# ---------------------------------------------------------------------------
cdef enum:
    TOKPAD = 32                # token table padded with zeros past each stack

cdef double _TOK[N_GOODS][TOKPAD]       # _TOK[g][i]: i-th token from the top (0 past the end)
cdef int _TOKLEN[N_GOODS]
cdef int _MINSALE[N_GOODS]              # smallest sale the core generates
cdef double _BONUS_MEAN[2][N_BONUS_KINDS]
cdef double _BONUS_MAX
cdef double _BONUS_MEAN_OF[2][TOKPAD]   # expected bonus of a sale of n cards (stack not empty)


cdef void _init_tables():
    cdef int g, i, b, k
    cdef uint8_t vals[MAX_BONUS]
    cdef uint8_t nv
    cdef Move m
    cdef double tot
    global _BONUS_MAX
    memset(_TOK, 0, sizeof(_TOK))
    for g in range(N_GOODS):
        _TOKLEN[g] = token_len(g)
        for i in range(_TOKLEN[g]):
            _TOK[g][i] = token_value(g, i)
        # a sale of one card exists in the action space only where the rules allow it
        _MINSALE[g] = 1 if move_of(ACTION_SELL0 + g * 7, &m) == 0 else 2
    _BONUS_MAX = 0
    for b in range(2):
        for k in range(N_BONUS_KINDS):
            bonus_values(b, k, vals, &nv)
            tot = 0
            for i in range(nv):
                tot += vals[i]
                if vals[i] > _BONUS_MAX:
                    _BONUS_MAX = vals[i]
            _BONUS_MEAN[b][k] = tot / nv if nv else 0.0
        for i in range(TOKPAD):
            if i < 3:
                _BONUS_MEAN_OF[b][i] = 0.0
            elif i < 5:
                _BONUS_MEAN_OF[b][i] = _BONUS_MEAN[b][i - 3]
            else:
                _BONUS_MEAN_OF[b][i] = _BONUS_MEAN[b][2]


_init_tables()

# ---------------------------------------------------------------------------
# Heuristic weights (docs/search.md, "Move score").  One global struct so that
# the informed playouts, greedy, move ordering and the leaf evaluation agree.
# ---------------------------------------------------------------------------
ctypedef struct Heur:
    double hold            # a card in hand is worth this share of what it would sell for now
    double small_sale      # factor on a sale that is neither urgent nor a set of 3+
    double camel           # value of one camel taken
    double camel_major     # extra for taking the camel majority (token of 5)
    double reveal          # cost per market card revealed to the opponent
    double gift            # cost per point of goods handed to the market in an exchange
    double swap_cost       # fixed cost of an exchange (tempo)
    double near_full       # cost of reaching 7 goods by a take
    double eval_hold       # leaf evaluation: share of a hand's sale value counted
    double eval_camel      # leaf evaluation: value of a camel in the herd (beyond the token)
    double eval_scale      # leaf evaluation: points for which the win chance moves by ~23%

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

# ---------------------------------------------------------------------------
# Small helpers on the state
# ---------------------------------------------------------------------------
cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <double>ts.tv_sec + <double>ts.tv_nsec * 1e-9


cdef inline int _hsize(const State* s, int p) noexcept nogil:
    cdef const uint8_t* h = s.hand[p]
    return h[0] + h[1] + h[2] + h[3] + h[4] + h[5]


cdef inline int _empty(const State* s) noexcept nogil:
    cdef int g, n = 0
    for g in range(N_GOODS):
        if s.tok_pos[g] >= _TOKLEN[g]:
            n += 1
    return n


cdef inline double _hold(const State* s, int g, int n) noexcept nogil:
    """What n cards of good g would sell for now: next n tokens and the mean bonus."""
    cdef int i, k, t = s.tok_pos[g]
    cdef double v = 0.0
    for i in range(n):
        v += _TOK[g][t + i]
    if n >= 3:
        k = (n if n < 5 else 5) - 3
        if s.bonus_pos[k] < s.bonus_len[k]:
            v += _BONUS_MEAN_OF[s.bonus_set][n]
    return v


ctypedef struct HoldTab:
    double v[N_GOODS][16]     # v[g][n] == _hold(s, g, n) for the state it was built on


cdef inline void _hold_tab(const State* s, HoldTab* t) noexcept nogil:
    """_hold() of every good for 0..15 cards, in one pass."""
    cdef int g, n, k, p
    cdef double cum
    cdef double b[16]
    for n in range(16):
        b[n] = 0.0
        if n >= 3:
            k = (n if n < 5 else 5) - 3
            if s.bonus_pos[k] < s.bonus_len[k]:
                b[n] = _BONUS_MEAN_OF[s.bonus_set][n]
    for g in range(N_GOODS):
        p = s.tok_pos[g]
        cum = 0.0
        t.v[g][0] = 0.0
        for n in range(1, 16):
            cum += _TOK[g][p + n - 1]
            t.v[g][n] = cum + b[n]


cdef inline bint _ends_round(const State* s, const Move* m) noexcept nogil:
    """Does the move end the round at once?  Uses public facts only."""
    cdef int g
    if m.kind == MOVE_TAKE:
        return s.deck_len < 1
    if m.kind == MOVE_CAMELS:
        return s.deck_len < s.market[CAMEL]
    if m.kind == MOVE_SELL:
        g = m.good
        return (s.tok_pos[g] < _TOKLEN[g] and s.tok_pos[g] + m.count >= _TOKLEN[g]
                and _empty(s) == 2)
    return False


cdef inline bint _empties_stack(const State* s, const Move* m) noexcept nogil:
    """Is m a sale that takes the last goods token of its stack?"""
    return (m.kind == MOVE_SELL and s.tok_pos[m.good] < _TOKLEN[m.good]
            and s.tok_pos[m.good] + m.count >= _TOKLEN[m.good])


cdef inline bint _any_end_possible(const State* s) noexcept nogil:
    return s.deck_len < 5 or _empty(s) >= 2


cdef inline double _outcome(const State* s, int p, double* margin) noexcept nogil:
    """1 / 0.5 / 0 for player p, with the totals' margin (round scored as it stands)."""
    cdef int t[2]
    cdef int w
    w = s.result if s.result != RESULT_NONE else round_winner(s)
    round_totals(s, t)
    margin[0] = t[p] - t[1 - p]
    if w == p:
        return 1.0
    if w == RESULT_DRAW:
        return 0.5
    return 0.0


cdef inline double _reward(const Params* P, double win, double margin) noexcept nogil:
    cdef double x = margin / P.margin_scale
    if x > 1.0:
        x = 1.0
    elif x < -1.0:
        x = -1.0
    if P.reward == REWARD_MARGIN:
        return 0.5 + 0.5 * x
    return (1.0 - P.margin_weight) * win + P.margin_weight * (0.5 + 0.5 * x)

# ---------------------------------------------------------------------------
# Move score (greedy, informed playouts, move ordering).  Points-like units.
# ---------------------------------------------------------------------------
cdef double _score(const State* s, const HoldTab* T, const Move* m) noexcept nogil:
    """Heuristic gain of a move for the player to move, ignoring the end of the round
    (T: the hold table of s)."""
    cdef int p = s.to_move, o = 1 - s.to_move, g, n, k, hs
    cdef const uint8_t* h = s.hand[p]
    cdef double v, pts
    cdef bint urgent
    if m.kind == MOVE_TAKE:
        g = m.good
        v = H.hold * (T.v[g][h[g] + 1] - T.v[g][h[g]]) - H.reveal
        if _hsize(s, p) + 1 >= HAND_LIMIT:
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
        hs = _hsize(s, p)
        urgent = (n >= 3 or _MINSALE[g] >= 2 or hs >= HAND_LIMIT - 1
                  or _TOKLEN[g] - s.tok_pos[g] <= n + 1 or s.hand[o][g] >= 2)
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
            v -= H.gift * _TOK[g][s.tok_pos[g]] * m.give[g]
    k = m.give[CAMEL]
    if k:
        v -= H.camel * k
        if s.herd[p] > s.herd[o] and s.herd[p] - k <= s.herd[o]:
            v -= H.camel_major
    return v


cdef double score_move(const State* s, const Move* m) noexcept nogil:
    """Heuristic gain of a move for the player to move, ignoring the end of the round."""
    cdef HoldTab T
    _hold_tab(s, &T)
    return _score(s, &T, m)


cdef inline double _end_score(const State* s, const Move* m) noexcept nogil:
    """Exact value of a round-ending move in a full state: +1000 win, -1000 loss, 0 draw."""
    cdef State t
    cdef double mg
    cdef double w
    memcpy(&t, s, sizeof(State))
    apply_move(&t, m)
    w = _outcome(&t, s.to_move, &mg)
    return (w - 0.5) * 2000.0 + mg


cdef bint _opp_wins_now(const State* t) noexcept nogil:
    """In a full state, can the player to move end the round at once and win it?

    Checks only round-ending moves: a take when the deck is empty (it changes no
    score), taking camels that cannot be refilled, and a sale emptying the third
    goods-token stack (all cards of that good, for the biggest bonus)."""
    cdef int q = t.to_move, g, left
    cdef Move m
    if t.result != RESULT_NONE:
        return False
    if t.deck_len == 0 and _hsize(t, q) < HAND_LIMIT:
        for g in range(N_GOODS):
            if t.market[g]:
                return round_winner(t) == q
    if t.market[CAMEL] and t.deck_len < t.market[CAMEL]:
        memset(&m, 0, sizeof(Move))
        m.kind = MOVE_CAMELS
        if _end_score(t, &m) > 500.0:
            return True
    if _empty(t) == 2:
        for g in range(N_GOODS):
            left = _TOKLEN[g] - t.tok_pos[g]
            if left > 0 and t.hand[q][g] >= left and t.hand[q][g] >= _MINSALE[g]:
                memset(&m, 0, sizeof(Move))
                m.kind = MOVE_SELL
                m.good = g
                m.count = t.hand[q][g]
                if _end_score(t, &m) > 500.0:
                    return True
    return False


cdef inline bint _gives_opp_win(const State* s, const Move* m) noexcept nogil:
    """After move m (which does not end the round), can the opponent end it and win?"""
    cdef State t
    memcpy(&t, s, sizeof(State))
    apply_move(&t, m)
    if not _any_end_possible(&t):
        return False
    return _opp_wins_now(&t)


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
    cap = HAND_LIMIT - _hsize(s, p)
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


cdef int _candidates(const State* s, const HoldTab* T, Move* cand) noexcept nogil:
    cdef int p = s.to_move, g, n = 0, hs, k
    cdef const uint8_t* h = s.hand[p]
    cdef uint8_t take[N_GOODS]
    cdef double bv, v, bv2
    cdef int b1, b2
    hs = _hsize(s, p)
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
        if h[g] >= _MINSALE[g]:
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


cdef int _score_candidates(const State* s, const HoldTab* T, const Move* cand, int n,
                           double* sc) noexcept nogil:
    """Move scores of the candidates, with the round-end look-ahead: a move that ends
    the round is scored exactly, one that lets the opponent end it and win loses 800.
    Returns how many are not such losing moves."""
    cdef int ne = _empty(s), i, nok = 0
    cdef bint endp = s.deck_len < 5 or ne >= 2
    cdef bint danger = s.deck_len < 10 or ne >= 2
    for i in range(n):
        if endp and _ends_round(s, &cand[i]):
            sc[i] = _end_score(s, &cand[i])
        else:
            sc[i] = _score(s, T, &cand[i])
            if ((danger or (ne == 1 and _empties_stack(s, &cand[i])))
                    and _gives_opp_win(s, &cand[i])):
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
    _hold_tab(s, &T)
    n = _candidates(s, &T, cand)
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
    nok = _score_candidates(s, &T, cand, n, sc)
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


# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------
cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = z + <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


def derive_seed(uint64_t seed, uint64_t index):
    """Seed of the index-th sub-search (thread) of a search seeded with `seed`."""
    return _mix(seed ^ _mix(index + <uint64_t>0xD1B54A32D192ED03))

# ---------------------------------------------------------------------------
# The node pool (parallel arrays, like mctx)
# ---------------------------------------------------------------------------
cdef class NodePool:
    """Preallocated parallel arrays of tree nodes; grows by doubling up to max_nodes."""

    def __cinit__(self, int capacity=65536, int max_nodes=4000000):
        if capacity < 1:
            capacity = 1
        if max_nodes < capacity:
            max_nodes = capacity
        self.max_nodes = max_nodes
        self.size = 0
        self.capacity = 0
        self._alloc(capacity)

    def _alloc(self, int cap):
        cdef int n = self.size
        old = self._arrays
        new = {
            "visits": np.zeros(cap, np.int32),
            "avail": np.zeros(cap, np.int32),
            "value_sum": np.zeros(cap, np.float64),
            "win_sum": np.zeros(cap, np.float64),
            "margin_sum": np.zeros(cap, np.float64),
            "action": np.zeros(cap, np.int32),
            "player": np.zeros(cap, np.int8),
            "first_child": np.full(cap, NO_NODE, np.int32),
            "next_sibling": np.full(cap, NO_NODE, np.int32),
            "parent": np.full(cap, NO_NODE, np.int32),
        }
        if old is not None:
            for k, a in new.items():
                a[:n] = old[k][:n]
        self._arrays = new
        self.visits = new["visits"]
        self.avail = new["avail"]
        self.value_sum = new["value_sum"]
        self.win_sum = new["win_sum"]
        self.margin_sum = new["margin_sum"]
        self.action = new["action"]
        self.player = new["player"]
        self.first_child = new["first_child"]
        self.next_sibling = new["next_sibling"]
        self.parent = new["parent"]
        self.capacity = cap

    @property
    def arrays(self):
        """The arrays (views of the first `size` nodes), for inspection."""
        return {k: a[:self.size] for k, a in self._arrays.items()}

    def clear(self):
        self.size = 0
        self.first_child[:] = NO_NODE
        self.next_sibling[:] = NO_NODE
        self.parent[:] = NO_NODE

    cdef int _grow(self) noexcept nogil:
        cdef int cap
        if self.capacity >= self.max_nodes:
            return -1
        cap = self.capacity * 2
        if cap > self.max_nodes:
            cap = self.max_nodes
        with gil:
            try:
                self._alloc(cap)
            except MemoryError:
                self.max_nodes = self.capacity
                return -1
        return 0

    cdef int new_node(self, int parent, int32_t action, int player) noexcept nogil:
        """A fresh node, linked first among parent's children; NO_NODE when full."""
        cdef int i
        if self.size >= self.capacity and self._grow() != 0:
            return NO_NODE
        i = self.size
        self.size += 1
        self.visits[i] = 0
        self.avail[i] = 1
        self.value_sum[i] = 0.0
        self.win_sum[i] = 0.0
        self.margin_sum[i] = 0.0
        self.action[i] = action
        self.player[i] = player
        self.first_child[i] = NO_NODE
        self.parent[i] = parent
        if parent != NO_NODE:
            self.next_sibling[i] = self.first_child[parent]
            self.first_child[parent] = i
        else:
            self.next_sibling[i] = NO_NODE
        return i

# ---------------------------------------------------------------------------
# Round-ending root moves (decisive-move check)
# ---------------------------------------------------------------------------
cdef int _root_position(object pos, View* v, State* truth, bint* cheat) except -1:
    """Fill v (and truth when a full state is searched with perfect information)."""
    cdef CoreView cv
    cdef CoreState cs
    if isinstance(pos, CoreView):
        cv = pos
        v[0] = cv.v
        cheat[0] = False
        memcpy(truth, &v.s, sizeof(State))
    elif isinstance(pos, CoreState):
        cs = pos
        truth[0] = cs.s
        make_view(&cs.s, cs.s.to_move, v)
        cheat[0] = True
    else:
        raise TypeError(f"expected CoreView or CoreState, got {type(pos).__name__}")
    if v.s.result != RESULT_NONE:
        raise ValueError("the round is over: there is no move to search")
    if v.s.to_move != v.observer:
        raise ValueError("it is not the observer's turn")
    return 0


cdef inline int _sample(const View* v, const State* truth, bint cheat, State* out,
                        Rng* r) noexcept nogil:
    if cheat:
        memcpy(out, truth, sizeof(State))
        return 0
    return sample_view(v, out, r)


cdef dict _decisive_table(const View* v, const State* truth, bint cheat, int samples,
                          uint64_t seed):
    """For each root move that ends the round: [samples, wins, draws, losses, margin sum]
    over `samples` determinizations (one, the truth, with perfect information)."""
    cdef Move buf[MAX_MOVES]
    cdef int ends[MAX_MOVES]
    cdef int stats[MAX_MOVES][4]
    cdef double msum[MAX_MOVES]
    cdef int n, i, j, any_end = 0, obs = v.observer, bad = 0
    cdef State d, t
    cdef Rng r
    cdef double w, mg
    n = gen_moves(&v.s, buf)
    for i in range(n):
        ends[i] = _ends_round(&v.s, &buf[i])
        any_end |= ends[i]
        stats[i][0] = stats[i][1] = stats[i][2] = stats[i][3] = 0
        msum[i] = 0.0
    if not any_end:
        return {}
    if cheat:
        samples = 1
    rng_seed(&r, _mix(seed ^ <uint64_t>0x5DEECE66D))
    with nogil:
        for j in range(samples):
            if _sample(v, truth, cheat, &d, &r) != 0:
                bad = 1
                break
            for i in range(n):
                if ends[i]:
                    memcpy(&t, &d, sizeof(State))
                    apply_move(&t, &buf[i])
                    w = _outcome(&t, obs, &mg)
                    stats[i][0] += 1
                    if w == 1.0:
                        stats[i][1] += 1
                    elif w == 0.5:
                        stats[i][2] += 1
                    else:
                        stats[i][3] += 1
                    msum[i] += mg
    if bad:
        raise ValueError("the view is inconsistent: no full state matches it")
    return {action_of(&buf[i]): [stats[i][0], stats[i][1], stats[i][2], stats[i][3], msum[i]]
            for i in range(n) if ends[i]}


def _decisive_kind(st):
    """'win' when a round-ending move won in every sample, 'loss' when it lost in every one."""
    if st is None or st[0] == 0:
        return None
    if st[1] == st[0]:
        return "win"
    if st[3] == st[0]:
        return "loss"
    return "mixed"


def rank_children(children):
    """Sort root-child dicts best first (in place and returned).

    Order: round-ending moves that won in every sampled world first, round-ending
    moves that lost in every one last (unless nothing else is legal); otherwise by
    visits, then mean value, then lowest action id."""
    def key(c):
        d = c.get("decisive")
        cls = 0 if d == "win" else (2 if d == "loss" else 1)
        return (cls, -c["visits"], -c["value"], c["action"])
    children.sort(key=key)
    return children

# ---------------------------------------------------------------------------
# What every searcher shares: the searched position, the stop flag, one run at a
# time, and the round-ending root moves judged in sampled worlds
# ---------------------------------------------------------------------------
cdef class _RootSearch:
    cdef View view
    cdef State truth
    cdef bint cheat
    cdef readonly uint64_t seed
    cdef volatile int stop_flag
    cdef object _lock
    cdef dict decisive
    cdef int decisive_samples

    cdef int _set_root(self, object pos, uint64_t seed) except -1:
        _root_position(pos, &self.view, &self.truth, &self.cheat)
        self.seed = seed
        self.stop_flag = 0
        self._lock = threading.Lock()
        return 0

    cdef int _judge_decisive(self, int samples) except -1:
        self.decisive_samples = samples
        self.decisive = _decisive_table(&self.view, &self.truth, self.cheat, samples,
                                        self.seed)
        return 0

    def stop(self):
        """Ask a running search to return (thread-safe; the flag stays set)."""
        self.stop_flag = 1

    def clear_stop(self):
        self.stop_flag = 0

    @property
    def stopped(self):
        return bool(self.stop_flag)


# ---------------------------------------------------------------------------
# ISMCTS (single observer)
# ---------------------------------------------------------------------------
cdef class IsmctsSearcher(_RootSearch):
    """SO-ISMCTS on one tree, continuable: ``run`` several times, then ``summary``."""
    cdef int observer
    cdef Params P
    cdef Rng rng
    cdef readonly NodePool pool
    cdef uint32_t[::1] stamp
    cdef uint16_t[::1] slot
    cdef uint32_t gen
    cdef readonly long long iterations
    cdef readonly long long determinizations
    cdef readonly double elapsed
    cdef readonly long long playout_plies
    cdef readonly int max_depth
    cdef int n_root_moves
    cdef readonly object root          # the CoreView (or CoreState) searched

    def __init__(self, pos, *, uint64_t seed=0, double exploration=0.7,
                 playout="informed", reward="win", double margin_weight=0.0,
                 double margin_scale=40.0, double epsilon=0.1, double noise=1.0,
                 int max_playout=400, int max_nodes=4000000, int initial_nodes=65536,
                 int decisive_samples=64, expand="ordered", int cutoff=0,
                 double widen=0.0, int tree_depth=0, bint chance_nodes=False, double puct=0.0,
                 double prior_temp=1.0):
        cdef State probe
        cdef Rng r
        cdef Move buf[MAX_MOVES]
        self._set_root(pos, seed)
        self.root = pos
        self.observer = self.view.observer
        if playout not in ("informed", "random"):
            raise ValueError(f"playout must be 'informed' or 'random', not {playout!r}")
        if reward not in ("win", "margin"):
            raise ValueError(f"reward must be 'win' or 'margin', not {reward!r}")
        if not (exploration >= 0.0):
            raise ValueError("exploration must be >= 0")
        if margin_scale <= 0:
            raise ValueError("margin_scale must be > 0")
        self.P.c_uct = exploration
        self.P.playout = PLAYOUT_INFORMED if playout == "informed" else PLAYOUT_RANDOM
        self.P.reward = REWARD_WIN if reward == "win" else REWARD_MARGIN
        self.P.margin_weight = margin_weight
        self.P.margin_scale = margin_scale
        self.P.epsilon = epsilon
        self.P.noise = noise
        self.P.max_playout = max_playout
        if expand not in ("random", "ordered"):
            raise ValueError(f"expand must be 'random' or 'ordered', not {expand!r}")
        self.P.expand = EXPAND_ORDERED if expand == "ordered" else EXPAND_RANDOM
        if cutoff < 0:
            raise ValueError("cutoff must be >= 0")
        self.P.cutoff = cutoff
        if not (widen >= 0.0):
            raise ValueError("widen must be >= 0")
        self.P.widen = widen
        if tree_depth < 0:
            raise ValueError("tree_depth must be >= 0")
        self.P.tree_depth = tree_depth
        self.P.chance_nodes = chance_nodes
        if not (puct >= 0.0):
            raise ValueError("puct must be >= 0")
        self.P.puct = puct
        if not (prior_temp > 0.0):
            raise ValueError("prior_temp must be > 0")
        self.P.prior_temp = prior_temp
        rng_seed(&self.rng, seed)
        # the view must have at least one consistent world
        rng_seed(&r, seed)
        if _sample(&self.view, &self.truth, self.cheat, &probe, &r) != 0:
            raise ValueError("the view is inconsistent: no full state matches it")
        self.n_root_moves = gen_moves(&self.view.s, buf)
        self.pool = NodePool(initial_nodes, max_nodes)
        self.pool.new_node(NO_NODE, -1, 1 - self.observer)
        self.stamp = np.zeros(N_ACTIONS, np.uint32)
        self.slot = np.zeros(N_ACTIONS, np.uint16)
        self.gen = 0
        self.iterations = 0
        self.determinizations = 0
        self.elapsed = 0.0
        self.playout_plies = 0
        self.max_depth = 0
        self._judge_decisive(decisive_samples)

    # -- control ---------------------------------------------------------
    @property
    def decisive_win(self):
        """Action id of a round-ending move that won in every sampled world, or None."""
        best = None
        for a, st in sorted(self.decisive.items()):
            if _decisive_kind(st) == "win":
                if best is None or st[4] > self.decisive[best][4]:
                    best = a
        return best

    def run(self, iterations=None, seconds=None):
        """Run until `iterations` more iterations, `seconds` more seconds, or the stop
        flag (whichever comes first); returns the iterations done by this call."""
        cdef long long limit = -1
        cdef double budget = -1.0
        cdef long long done
        if iterations is None and seconds is None:
            raise ValueError("give iterations, seconds or both")
        if iterations is not None:
            limit = int(iterations)
            if limit < 0:
                raise ValueError("iterations must be >= 0")
        if seconds is not None:
            budget = float(seconds)
            if budget < 0:
                raise ValueError("seconds must be >= 0")
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("this searcher is already running")
        try:
            with nogil:
                done = self._run(limit, budget)
        finally:
            self._lock.release()
        return done

    cdef long long _run(self, long long limit, double budget) noexcept nogil:
        cdef double t0 = _now(), deadline = t0 + budget, t
        cdef long long done = 0
        while limit < 0 or done < limit:
            if self.stop_flag:
                break
            # the clock is read every 8 iterations, and only after the first one,
            # so that every run makes progress
            if budget >= 0.0 and (done & 7) == 0 and done > 0:
                if _now() >= deadline:
                    break
            self._iterate()
            done += 1
        t = _now()
        self.elapsed += t - t0
        self.iterations += done
        return done

    cdef inline uint32_t _next_gen(self) noexcept nogil:
        cdef int i
        if self.gen >= <uint32_t>0xFFFFFFF0:
            for i in range(N_ACTIONS):
                self.stamp[i] = 0
            self.gen = 0
        self.gen += 2
        return self.gen

    cdef int _outcome_child(self, int node, const State* s, int dl) noexcept nogil:
        """The child of action node `node` for the cards just drawn into the market
        (s.deck[s.deck_len:dl]): the draw is public, so the next decisions are taken
        knowing it.  Outcome nodes carry player OUTCOME and the drawn counts as action."""
        cdef int32_t code = 0
        cdef int i, c
        for i in range(s.deck_len, dl):
            code += <int32_t>1 << (3 * s.deck[i])
        c = self.pool.first_child[node]
        while c != NO_NODE:
            if self.pool.action[c] == code:
                self.pool.avail[c] += 1
                return c
            c = self.pool.next_sibling[c]
        return self.pool.new_node(node, code, OUTCOME)

    cdef int _puct_step(self, int node, State* s, int* path, int* depth) noexcept nogil:
        """One tree step below the root; returns the node reached, or -1 after an
        expansion (the iteration then plays out from s)."""
        cdef Move cand[MAX_CAND]
        cdef double sc[MAX_CAND]
        cdef double pr[MAX_CAND]
        cdef int child[MAX_CAND]
        cdef HoldTab T
        cdef int n, i, c, best = -1, pp
        cdef int32_t a
        cdef uint32_t g
        cdef double mx = -1e300, tot = 0.0, sq, u, bu = -1e300, fpu, v
        _hold_tab(s, &T)
        n = _candidates(s, &T, cand)
        if n == 0:
            return -1
        _score_candidates(s, &T, cand, n, sc)
        for i in range(n):
            if sc[i] > mx:
                mx = sc[i]
        g = self._next_gen()
        for i in range(n):
            pr[i] = exp((sc[i] - mx) / self.P.prior_temp)
            tot += pr[i]
            a = action_of(&cand[i])
            self.stamp[a] = g
            self.slot[a] = i
            child[i] = NO_NODE
        c = self.pool.first_child[node]
        while c != NO_NODE:
            a = self.pool.action[c]
            if self.stamp[a] == g:
                child[self.slot[a]] = c
                self.pool.avail[c] += 1
            c = self.pool.next_sibling[c]
        # first-play urgency: an untried move is valued like the node itself
        pp = 0 if self.pool.player[node] == 0 else 1
        fpu = 0.5
        if self.pool.visits[node] > 0:
            v = self.pool.value_sum[node] / self.pool.visits[node]
            fpu = v if pp == s.to_move else 1.0 - v
        sq = sqrt(<double>self.pool.visits[node] + 1.0)
        for i in range(n):
            c = child[i]
            if c != NO_NODE and self.pool.visits[c] > 0:
                u = (self.pool.value_sum[c] / self.pool.visits[c]
                     + self.P.puct * pr[i] / tot * sq / (1.0 + self.pool.visits[c]))
            else:
                u = fpu + self.P.puct * pr[i] / tot * sq
            if u > bu:
                bu = u
                best = i
        c = child[best]
        if c == NO_NODE:
            c = self.pool.new_node(node, action_of(&cand[best]), s.to_move)
            self._descend(c, s, &cand[best], path, depth)
            return -1
        return self._descend(c, s, &cand[best], path, depth)

    cdef int _descend(self, int c, State* s, const Move* m, int* path,
                      int* depth) noexcept nogil:
        """Play m (the move of tree node c) and push c on the path, then the outcome
        node of the cards it drew; returns the last node pushed, or NO_NODE when c
        is NO_NODE (tree full) or no outcome node could be made."""
        cdef int dl = s.deck_len
        apply_move(s, m)
        if c == NO_NODE:
            return NO_NODE
        depth[0] += 1
        path[depth[0]] = c
        if self.P.chance_nodes and s.deck_len < dl and s.result == RESULT_NONE:
            c = self._outcome_child(c, s, dl)
            if c == NO_NODE:
                return NO_NODE
            depth[0] += 1
            path[depth[0]] = c
        return c

    cdef void _iterate(self) noexcept nogil:
        cdef State s
        cdef Move buf[MAX_MOVES]
        cdef int32_t acts[MAX_MOVES]
        cdef int path[MAX_TREE_DEPTH]
        cdef int depth = 0, node = 0, n, i, c, best, nlegal, untried, k, pick
        cdef int decisions = 0
        cdef int32_t a
        cdef uint32_t g
        cdef double u, bu, win, mg, r0
        cdef HoldTab T
        if _sample(&self.view, &self.truth, self.cheat, &s, &self.rng) != 0:
            return
        self.determinizations += 1
        path[0] = 0
        while s.result == RESULT_NONE and depth < MAX_TREE_DEPTH - 2:
            # (a decision adds up to two nodes to the path: the move and its outcome)
            if self.P.tree_depth > 0 and decisions >= self.P.tree_depth:
                break
            decisions += 1
            if node != 0 and self.P.puct > 0.0:
                # below the root: PUCT over the informed policy's candidates, with
                # the policy's preferences as priors (rarely visited nodes then play
                # like the playouts instead of trying every poor exchange)
                node = self._puct_step(node, &s, path, &depth)
                if node < 0:
                    break
                continue
            n = gen_moves(&s, buf)
            g = self._next_gen()
            for i in range(n):
                a = action_of(&buf[i])
                acts[i] = a
                self.stamp[a] = g
                self.slot[a] = i
            nlegal = 0
            best = NO_NODE
            bu = -1e300
            c = self.pool.first_child[node]
            while c != NO_NODE:
                a = self.pool.action[c]
                if self.stamp[a] == g:
                    self.stamp[a] = g + 1
                    self.pool.avail[c] += 1
                    nlegal += 1
                    u = (self.pool.value_sum[c] / self.pool.visits[c]
                         + self.P.c_uct * sqrt(log(<double>self.pool.avail[c]) / self.pool.visits[c]))
                    if u > bu:
                        bu = u
                        best = c
                c = self.pool.next_sibling[c]
            untried = n - nlegal
            if untried > 0:
                pick = -1
                # a round-ending move that wins for the mover in this world comes first
                if _any_end_possible(&s):
                    for i in range(n):
                        if self.stamp[acts[i]] == g and _ends_round(&s, &buf[i]):
                            if _end_score(&s, &buf[i]) > 500.0:
                                pick = i
                                break
                # progressive widening: no new child while the legal children
                # already number 1 + widen * sqrt(visits of the node)
                if (pick < 0 and self.P.widen > 0.0 and nlegal > 0 and nlegal >=
                        1 + <int>(self.P.widen * sqrt(<double>self.pool.visits[node]))):
                    untried = 0
            if untried > 0:
                if pick < 0 and self.P.expand == EXPAND_ORDERED:
                    bu = -1e300
                    _hold_tab(&s, &T)
                    for i in range(n):
                        if self.stamp[acts[i]] == g:
                            u = _score(&s, &T, &buf[i]) + self.P.noise * rng_unit(&self.rng)
                            if u > bu:
                                bu = u
                                pick = i
                if pick < 0:
                    k = rng_below(&self.rng, untried)
                    for i in range(n):
                        if self.stamp[acts[i]] == g:
                            if k == 0:
                                pick = i
                                break
                            k -= 1
                c = self.pool.new_node(node, acts[pick], s.to_move)
                self._descend(c, &s, &buf[pick], path, &depth)
                break
            node = self._descend(best, &s, &buf[self.slot[self.pool.action[best]]], path,
                                 &depth)
            if node == NO_NODE:
                break
        if depth > self.max_depth:
            self.max_depth = depth
        if s.result == RESULT_NONE:
            self.playout_plies += <long long>playout(&s, &self.rng, &self.P)
        if s.result == RESULT_NONE and self.P.cutoff > 0:
            win = _eval(&s, 0, &mg)
        else:
            win = _outcome(&s, 0, &mg)
        r0 = _reward(&self.P, win, mg)
        for i in range(depth + 1):
            c = path[i]
            self.pool.visits[c] += 1
            if self.pool.player[c] == 0:
                self.pool.value_sum[c] += r0
                self.pool.win_sum[c] += win
                self.pool.margin_sum[c] += mg
            else:
                self.pool.value_sum[c] += 1.0 - r0
                self.pool.win_sum[c] += 1.0 - win
                self.pool.margin_sum[c] -= mg

    # -- results -----------------------------------------------------------
    cdef int _best_child(self, int node):
        cdef NodePool pool = self.pool
        cdef int c = pool.first_child[node], best = NO_NODE
        cdef double bv = 0.0, v
        while c != NO_NODE:
            v = pool.value_sum[c] / pool.visits[c] if pool.visits[c] else 0.0
            if (best == NO_NODE or pool.visits[c] > pool.visits[best]
                    or (pool.visits[c] == pool.visits[best]
                        and (v > bv or (v == bv and pool.action[c] < pool.action[best])))):
                best = c
                bv = v
            c = pool.next_sibling[c]
        return best

    def _pv(self, int node, int max_len=12):
        pv = []
        while node != NO_NODE and len(pv) < max_len:
            if self.pool.player[node] != OUTCOME:
                pv.append(int(self.pool.action[node]))
            node = self._best_child(node)
            if node != NO_NODE and self.pool.visits[node] < 2:
                break
        return pv

    def summary(self, int pv_len=12):
        """Root statistics as plain Python data (values from the mover's view)."""
        cdef NodePool pool = self.pool
        cdef int c = pool.first_child[0]
        children = []
        seen = set()
        while c != NO_NODE:
            v = pool.visits[c]
            a = int(pool.action[c])
            seen.add(a)
            st = self.decisive.get(a)
            children.append({
                "action": a,
                "visits": int(v),
                "avail": int(pool.avail[c]),
                "value": pool.value_sum[c] / v if v else 0.0,
                "win": pool.win_sum[c] / v if v else 0.0,
                "margin": pool.margin_sum[c] / v if v else 0.0,
                "pv": self._pv(c, pv_len),
                "decisive": _decisive_kind(st),
                "decisive_stats": st,
            })
            c = pool.next_sibling[c]
        # round-ending moves never expanded still carry their decisive statistics
        for a, st in self.decisive.items():
            if a not in seen:
                w = (st[1] + 0.5 * st[2]) / st[0] if st[0] else 0.0
                children.append({"action": a, "visits": 0, "avail": 0, "value": w,
                                 "win": w, "margin": st[4] / st[0] if st[0] else 0.0,
                                 "pv": [a], "decisive": _decisive_kind(st),
                                 "decisive_stats": st})
        rank_children(children)
        return {
            "algorithm": "ismcts",
            "children": children,
            "iterations": int(self.iterations),
            "determinizations": int(self.determinizations) + (
                0 if self.cheat or not self.decisive else self.decisive_samples),
            "elapsed": self.elapsed,
            "nodes": pool.size,
            "max_depth": self.max_depth,
            "playout_plies": int(self.playout_plies),
            "root_moves": self.n_root_moves,
            "seed": int(self.seed),
            "perfect_information": bool(self.cheat),
            "stopped": bool(self.stop_flag),
        }

    def best_action(self):
        ch = self.summary(pv_len=1)["children"]
        return ch[0]["action"] if ch else None

# ---------------------------------------------------------------------------
# Greedy and random
# ---------------------------------------------------------------------------
cdef list _danger_rates(const View* v, const State* truth, bint cheat, int samples,
                        uint64_t seed, Move* buf, int n):
    """For each root move that does not end the round: the share of `samples` sampled
    worlds in which the opponent can answer it by ending the round and winning."""
    cdef int i, j, ne, bad = 0
    cdef int hits[MAX_MOVES]
    cdef int check[MAX_MOVES]
    cdef bint any_check = False
    cdef State d
    cdef Rng r
    ne = _empty(&v.s)
    for i in range(n):
        hits[i] = 0
        check[i] = (not _ends_round(&v.s, &buf[i]) and
                    (v.s.deck_len < 10 or ne >= 2 or (ne == 1 and _empties_stack(&v.s, &buf[i]))))
        if check[i]:
            any_check = True
    if not any_check:
        return [0.0] * n
    if cheat:
        samples = 1
    if samples < 1:
        samples = 1
    rng_seed(&r, _mix(seed ^ <uint64_t>0xA5A5A5A5A5A5A5A5))
    with nogil:
        for j in range(samples):
            if _sample(v, truth, cheat, &d, &r) != 0:
                bad = 1
                break
            for i in range(n):
                if check[i] and _gives_opp_win(&d, &buf[i]):
                    hits[i] += 1
    if bad:
        raise ValueError("the view is inconsistent: no full state matches it")
    return [hits[i] / <double>samples for i in range(n)]


def greedy_scores(pos, uint64_t seed=0, int decisive_samples=64):
    """Every legal move of the root with its greedy score, best first.

    The score is score_move() on the observer's view (docs/search.md).  A move that
    ends the round is scored by how it ends over `decisive_samples` sampled worlds
    (+1000 for a sure win, -1000 for a sure loss, plus the mean margin); any other
    move loses 1000 times the share of those worlds in which the opponent can reply
    by ending the round and winning.  Ties go to the lowest action id.
    Returns (list of (action, score, decisive stats or None), decisive table)."""
    cdef View v
    cdef State truth
    cdef bint cheat
    cdef Move buf[MAX_MOVES]
    cdef int n, i
    cdef Rng r
    cdef State probe
    _root_position(pos, &v, &truth, &cheat)
    rng_seed(&r, seed)
    if _sample(&v, &truth, cheat, &probe, &r) != 0:
        raise ValueError("the view is inconsistent: no full state matches it")
    table = _decisive_table(&v, &truth, cheat, decisive_samples, seed)
    n = gen_moves(&v.s, buf)
    danger = _danger_rates(&v, &truth, cheat, decisive_samples, seed, buf, n)
    out = []
    for i in range(n):
        a = action_of(&buf[i])
        st = table.get(a)
        if st is not None and st[0]:
            sc = 2000.0 * ((st[1] + 0.5 * st[2]) / st[0] - 0.5) + st[4] / st[0]
        else:
            sc = score_move(&v.s, &buf[i]) - 1000.0 * danger[i]
        out.append((a, sc, st))
    out.sort(key=lambda t: (-t[1], t[0]))
    return out, table


def random_action(pos, uint64_t seed=0):
    """A uniformly random legal move (action id) drawn from the seed."""
    cdef View v
    cdef State truth
    cdef bint cheat
    cdef Move buf[MAX_MOVES]
    cdef Rng r
    cdef int n
    _root_position(pos, &v, &truth, &cheat)
    n = gen_moves(&v.s, buf)
    acts = sorted(action_of(&buf[i]) for i in range(n))
    rng_seed(&r, seed)
    return acts[rng_below(&r, n)], len(acts)

# ---------------------------------------------------------------------------
# Expectimax with chance nodes (Star1 pruning), over sampled worlds
# ---------------------------------------------------------------------------
ctypedef struct XCtx:
    int P                       # the searching player
    long long nodes             # states generated (one per apply_move)
    long long node_limit        # -1: none
    double deadline             # < 0: none
    volatile int* stop
    int aborted
    int beam                    # moves tried at inner nodes (0 = all)
    int chance_samples          # sampled draws when 3+ cards are drawn
    int max_outcomes            # exact enumeration up to this many draw outcomes
    Rng rng


cdef inline double _eval(const State* s, int P, double* margin) noexcept nogil:
    """Leaf evaluation: (estimated win chance of P, estimated margin in points)."""
    cdef int t[2]
    cdef int g, O = 1 - P
    cdef double e, w
    if s.result != RESULT_NONE:
        w = _outcome(s, P, margin)
        return w
    round_totals(s, t)
    e = t[P] - t[O]
    for g in range(N_GOODS):
        if s.hand[P][g]:
            e += H.eval_hold * _hold(s, g, s.hand[P][g])
        if s.hand[O][g]:
            e -= H.eval_hold * _hold(s, g, s.hand[O][g])
    e += H.eval_camel * (<int>s.herd[P] - <int>s.herd[O])
    margin[0] = e
    return 1.0 / (1.0 + exp(-e / H.eval_scale))


cdef inline bint _x_check(XCtx* X) noexcept nogil:
    """Count a node; True when the search must stop."""
    if X.aborted:
        return True
    if X.node_limit >= 0 and X.nodes >= X.node_limit:
        X.aborted = 1
        return True
    X.nodes += 1
    if (X.nodes & 255) == 0:
        if X.stop[0] or (X.deadline >= 0.0 and _now() >= X.deadline):
            X.aborted = 1
            return True
    return False


cdef inline void _force_top(State* s, const uint8_t* types, int k) noexcept nogil:
    """Reorder the deck so that its top k cards are types[0..k-1] (drawn in that order)."""
    cdef int j, i, pos
    cdef uint8_t t
    for j in range(k):
        pos = s.deck_len - 1 - j
        i = pos
        while i >= 0 and s.deck[i] != types[j]:
            i -= 1
        if i >= 0 and i != pos:
            t = s.deck[i]
            s.deck[i] = s.deck[pos]
            s.deck[pos] = t


cdef double _x_child(XCtx* X, const State* s, const Move* m, const uint8_t* types, int k,
                     int depth, double alpha, double beta, double* margin,
                     int32_t* reply) noexcept nogil:
    cdef State c
    memcpy(&c, s, sizeof(State))
    if k > 0:
        _force_top(&c, types, k)
    apply_move(&c, m)
    return _x_node(X, &c, depth - 1, alpha, beta, margin, reply)


cdef double _x_chance(XCtx* X, const State* s, const Move* m, int depth, double alpha,
                      double beta, double* margin, int32_t* reply) noexcept nogil:
    """Value of move m: an average over the cards its refill can draw (Star1)."""
    cdef int gaps, L, c1, c2, no = 0, i, j, t, k
    cdef int cnt[N_TYPES]
    cdef uint8_t otypes[64][5]
    cdef double oprob[64]
    cdef uint8_t tmp[N_CARDS]
    cdef double q, acc = 0.0, macc = 0.0, rem = 1.0, ca, cb, v, mg, bestq
    cdef uint8_t swp[5]
    cdef int32_t rep
    reply[0] = -1
    gaps = 0
    if m.kind == MOVE_TAKE:
        gaps = 1
    elif m.kind == MOVE_CAMELS:
        gaps = s.market[CAMEL]
    L = s.deck_len
    if gaps == 0 or L < gaps:
        return _x_child(X, s, m, NULL, 0, depth, alpha, beta, margin, reply)
    memset(cnt, 0, sizeof(cnt))
    for i in range(L):
        cnt[s.deck[i]] += 1
    if gaps == 1:
        for c1 in range(N_TYPES):
            if cnt[c1]:
                otypes[no][0] = c1
                oprob[no] = <double>cnt[c1] / L
                no += 1
    elif gaps == 2:
        for c1 in range(N_TYPES):
            for c2 in range(c1, N_TYPES):
                if c1 == c2:
                    q = <double>cnt[c1] * (cnt[c1] - 1)
                else:
                    q = 2.0 * cnt[c1] * cnt[c2]
                if q > 0:
                    otypes[no][0] = c1
                    otypes[no][1] = c2
                    oprob[no] = q / (<double>L * (L - 1))
                    no += 1
    else:
        # sampled draws, each with the same weight
        k = X.chance_samples
        if k > 64:
            k = 64
        for j in range(k):
            for i in range(L):
                tmp[i] = s.deck[i]
            for i in range(gaps):
                t = i + rng_below(&X.rng, L - i)
                otypes[j][i] = tmp[t]
                tmp[t] = tmp[i]
            oprob[j] = 1.0 / k
        no = k
    # most likely outcomes first (selection order; stable for equal weights)
    for i in range(no):
        bestq = oprob[i]
        t = i
        for j in range(i + 1, no):
            if oprob[j] > bestq:
                bestq = oprob[j]
                t = j
        if t != i:
            q = oprob[i]
            oprob[i] = oprob[t]
            oprob[t] = q
            memcpy(swp, otypes[i], 5)
            memcpy(otypes[i], otypes[t], 5)
            memcpy(otypes[t], swp, 5)
    for i in range(no):
        q = oprob[i]
        rem -= q
        if rem < 1e-12:
            rem = 0.0
        ca = (alpha - acc - rem * 1.0) / q
        cb = (beta - acc - rem * 0.0) / q
        if ca < 0.0:
            ca = 0.0
        if cb > 1.0:
            cb = 1.0
        v = _x_child(X, s, m, otypes[i], gaps, depth, ca, cb, &mg, &rep)
        if X.aborted:
            return 0.0
        if i == 0:
            reply[0] = rep
        acc += q * v
        macc += q * mg
        if acc + rem <= alpha:
            margin[0] = macc
            return acc + rem
        if acc >= beta:
            margin[0] = macc
            return acc
    margin[0] = macc
    return acc


ctypedef struct _Ord:
    double sc
    int32_t act
    int idx


cdef int _ord_cmp(const void* a, const void* b) noexcept nogil:
    cdef const _Ord* x = <const _Ord*>a
    cdef const _Ord* y = <const _Ord*>b
    if x.sc > y.sc:
        return -1
    if x.sc < y.sc:
        return 1
    if x.act < y.act:
        return -1
    if x.act > y.act:
        return 1
    return 0


cdef int _ordered_moves(const State* s, Move* buf, _Ord* order) noexcept nogil:
    """Generate the moves, best heuristic score first (ties: lowest action id)."""
    cdef int n, i
    cdef bint endp
    cdef HoldTab T
    n = gen_moves(s, buf)
    endp = _any_end_possible(s)
    _hold_tab(s, &T)
    for i in range(n):
        order[i].act = action_of(&buf[i])
        order[i].idx = i
        if endp and _ends_round(s, &buf[i]):
            order[i].sc = _end_score(s, &buf[i])
        else:
            order[i].sc = _score(s, &T, &buf[i])
    qsort(order, n, sizeof(_Ord), _ord_cmp)
    return n


cdef double _x_node(XCtx* X, const State* s, int depth, double alpha, double beta,
                    double* margin, int32_t* best_act) noexcept nogil:
    cdef Move buf[MAX_MOVES]
    cdef _Ord order[MAX_MOVES]
    cdef int n, i, j, lim, bi
    cdef bint maxi
    cdef double best, v, mg, bm = 0.0
    cdef int32_t rep
    best_act[0] = -1
    if _x_check(X):
        margin[0] = 0.0
        return 0.0
    if s.result != RESULT_NONE or depth <= 0:
        return _eval(s, X.P, margin)
    n = _ordered_moves(s, buf, order)
    lim = n
    if X.beam > 0 and lim > X.beam:
        lim = X.beam
    maxi = s.to_move == X.P
    best = -1.0 if maxi else 2.0
    bi = -1
    for j in range(lim):
        i = order[j].idx
        v = _x_chance(X, s, &buf[i], depth, alpha, beta, &mg, &rep)
        if X.aborted:
            margin[0] = 0.0
            return 0.0
        if maxi:
            if v > best:
                best = v
                bm = mg
                bi = j
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                bm = mg
                bi = j
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    margin[0] = bm
    if bi >= 0:
        best_act[0] = order[bi].act
    return best


cdef class ExpectimaxSearcher(_RootSearch):
    """Depth-limited expectimax over `samples` sampled worlds of the observer's view.

    ``run_depth(d)`` searches every root move to d plies in every world (one C call);
    the Python driver deepens iteratively.  Values are win-chance estimates in [0, 1]
    from the mover's point of view; margins are points."""
    cdef readonly int samples
    cdef object _worlds_arr
    cdef uint8_t[::1] worlds      # samples * sizeof(State) bytes
    cdef readonly int n_moves
    cdef Move moves[MAX_MOVES]
    cdef int32_t root_acts[MAX_MOVES]
    cdef double[:, ::1] value
    cdef double[:, ::1] marg
    cdef int32_t[:, ::1] reply
    cdef readonly long long nodes
    cdef readonly double elapsed
    cdef readonly int depth_done
    cdef readonly int beam
    cdef readonly int chance_samples
    cdef object _last           # results of the deepest completed depth

    def __init__(self, pos, *, uint64_t seed=0, int samples=8, int beam=0,
                 int chance_samples=4, int decisive_samples=64):
        cdef Rng r
        cdef int j, bad = 0
        cdef State* w
        if samples < 1 or samples > 4096:
            raise ValueError("samples must be in 1..4096")
        self._set_root(pos, seed)
        if self.cheat:
            samples = 1
        self.samples = samples
        self.beam = beam
        self.chance_samples = chance_samples if chance_samples > 0 else 1
        self._worlds_arr = np.zeros(samples * sizeof(State), np.uint8)
        self.worlds = self._worlds_arr
        rng_seed(&r, seed)
        for j in range(samples):
            w = <State*>&self.worlds[j * sizeof(State)]
            if _sample(&self.view, &self.truth, self.cheat, w, &r) != 0:
                bad = 1
                break
        if bad:
            raise ValueError("the view is inconsistent: no full state matches it")
        self.n_moves = gen_moves(&self.view.s, self.moves)
        for j in range(self.n_moves):
            self.root_acts[j] = action_of(&self.moves[j])
        self.value = np.zeros((self.n_moves, samples), np.float64)
        self.marg = np.zeros((self.n_moves, samples), np.float64)
        self.reply = np.full((self.n_moves, samples), -1, np.int32)
        self.nodes = 0
        self.elapsed = 0.0
        self.depth_done = 0
        self._judge_decisive(decisive_samples)
        self._last = None

    def run_depth(self, int depth, node_limit=None, seconds=None):
        """Search every root move to `depth` plies in every world.  Stops early at
        `node_limit` more nodes, after `seconds`, or on the stop flag; returns True
        when the depth was completed (its results then replace the previous ones)."""
        cdef XCtx X
        cdef double t0
        cdef int i, j, ok
        cdef double mg, v
        cdef int32_t ba
        cdef State* w
        if depth < 1:
            raise ValueError("depth must be >= 1")
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("this searcher is already running")
        try:
            X.P = self.view.observer
            X.nodes = 0
            X.node_limit = -1 if node_limit is None else max(0, int(node_limit))
            t0 = _now()
            X.deadline = -1.0 if seconds is None else t0 + max(0.0, float(seconds))
            X.stop = &self.stop_flag
            X.aborted = 0
            X.beam = self.beam
            X.chance_samples = self.chance_samples
            with nogil:
                for j in range(self.samples):
                    if X.aborted:
                        break
                    w = <State*>&self.worlds[j * sizeof(State)]
                    for i in range(self.n_moves):
                        rng_seed(&X.rng, _mix(self.seed ^ _mix(<uint64_t>(
                            (depth * 4096 + j) * 2048 + i))))
                        v = self._root_move(&X, w, i, depth, &mg, &ba)
                        if X.aborted:
                            break
                        self.value[i, j] = v
                        self.marg[i, j] = mg
                        self.reply[i, j] = ba
            self.nodes += X.nodes
            self.elapsed += _now() - t0
            ok = not X.aborted
            if ok:
                self.depth_done = depth
                self._last = (np.asarray(self.value).copy(), np.asarray(self.marg).copy(),
                              np.asarray(self.reply).copy())
            return bool(ok)
        finally:
            self._lock.release()

    cdef double _root_move(self, XCtx* X, const State* w, int i, int depth, double* mg,
                           int32_t* reply) noexcept nogil:
        """Value of root move i in world w, with the opponent's best reply (in the
        most likely draw)."""
        if _x_check(X):
            return 0.0
        return _x_chance(X, w, &self.moves[i], depth, 0.0, 1.0, mg, reply)

    def root_actions(self):
        return [int(self.root_acts[i]) for i in range(self.n_moves)]

    def summary(self):
        """Root statistics of the deepest completed depth (plain Python data)."""
        children = []
        last = self._last
        for i in range(self.n_moves):
            a = int(self.root_acts[i])
            st = self.decisive.get(a)
            if last is None:
                val, mar, pv = 0.0, 0.0, [a]
            else:
                val = float(last[0][i].mean())
                mar = float(last[1][i].mean())
                reps = [int(x) for x in last[2][i] if x >= 0]
                pv = [a]
                if reps:
                    counts = {}
                    for x in reps:
                        counts[x] = counts.get(x, 0) + 1
                    pv.append(min(counts, key=lambda x: (-counts[x], x)))
            children.append({
                "action": a,
                "visits": self.samples if last is not None else 0,
                "value": val,
                "win": val,
                "margin": mar,
                "pv": pv,
                "decisive": _decisive_kind(st),
                "decisive_stats": st,
            })
        children.sort(key=lambda c: (
            0 if c["decisive"] == "win" else (2 if c["decisive"] == "loss" else 1),
            -c["value"], -c["margin"], c["action"]))
        return {
            "algorithm": "expectimax",
            "children": children,
            "iterations": int(self.nodes),
            "nodes": int(self.nodes),
            "determinizations": self.samples,
            "depth": self.depth_done,
            "elapsed": self.elapsed,
            "seed": int(self.seed),
            "perfect_information": bool(self.cheat),
            "stopped": bool(self.stop_flag),
            "root_moves": self.n_moves,
        }

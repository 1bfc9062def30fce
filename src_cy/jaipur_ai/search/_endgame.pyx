# cython: language_level=3
"""Exact endgames: the rest of the round solved by expectimax over its chance events.

The hidden cards are fixed by drawing worlds of the observer's view (by the belief's
weights when one is set).  In each world both players are assumed to see everything
(the usual determinized solve) and the chance events are exact: the cards a refill
draws are enumerated as multisets with their hypergeometric probabilities (the order
of the unseen draw pile is unknown to both), and the value of a bonus token taken is
enumerated among the values its stack still holds.  Values are the searching player's
chance of winning the round (a draw counts half).

Exchanges can go on for ever, so a solve is depth-bounded.  Each depth is solved
twice, with the positions left at the horizon worth 0 and then 1: the two values bound
the true one, and they are equal when no line reached the horizon.  The driver asks
whether one root move's lower bound beats every other move's upper bound (a proven
decision) and otherwise falls back to the tree search.  Alpha-beta with Star1 cutoffs
at the chance nodes, and a transposition table keyed by everything that decides the
rest of the round (not the order of the draw pile, not what each player saw), shared
by the worlds, the depths and both passes.
"""
from libc.string cimport memcpy, memset
from libc.stdlib cimport calloc, free
from libc.stdint cimport uint8_t, uint64_t, int32_t

import numpy as np

from jaipur_ai.rules._core cimport (State, Move, Rng, MAX_MOVES, N_TYPES, N_GOODS, N_BONUS_KINDS, CAMEL, MOVE_TAKE,
                                    MOVE_CAMELS, MOVE_SELL, RESULT_NONE, RESULT_DRAW,
                                    apply_move, action_of, rng_seed, round_totals)
from jaipur_ai.rules._movegen cimport gen_moves
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._root cimport now, deadline_of, count_node
from jaipur_ai.search._worlds cimport sample_world, mix
from jaipur_ai.search._chance cimport force_top
from jaipur_ai.search._expectimax cimport (MoveOrder, ordered_moves, star1_window,
                                           star1_cutoff)

DEF END_EXACT = 0
DEF END_LOWER = 1         # the value is a lower bound (the search failed high)
DEF END_UPPER = 2         # the value is an upper bound (the search failed low)
DEF MAX_OUTCOMES = 512    # multisets of up to 5 cards of 7 types: at most 462
DEF TABLE_BITS = 18       # 262,144 entries of 32 bytes


cdef inline bint _e_check(ECtx* E) noexcept nogil:
    """Count a position; True when the solve must stop."""
    return count_node(&E.nodes, E.node_limit, E.deadline, E.stop, &E.aborted, 1023)


cdef inline uint64_t _fnv(uint64_t h, uint64_t x) noexcept nogil:
    h ^= x
    return h * <uint64_t>0x100000001B3


cdef uint64_t position_key(const State* s, int depth, double leaf) noexcept nogil:
    """A hash of what decides the rest of the round from s, with the plies left and the
    leaf value: the market, the hands and herds, the draw pile as counts, the goods
    tokens left, the points and token counts, the bonus values still in each stack
    (as counts) and who is to move."""
    cdef uint64_t h = <uint64_t>0xCBF29CE484222325
    cdef int i, k, p
    cdef int cnt[N_TYPES]
    cdef int vals[11]
    for i in range(N_TYPES):
        h = _fnv(h, s.market[i])
    for p in range(2):
        for i in range(N_GOODS):
            h = _fnv(h, s.hand[p][i])
        h = _fnv(h, s.herd[p])
        h = _fnv(h, <uint64_t>(s.goods_pts[p] + 512))
        h = _fnv(h, <uint64_t>(s.bonus_pts[p] + 512))
        h = _fnv(h, s.n_goods_tok[p])
        h = _fnv(h, s.n_bonus_tok[p])
    memset(cnt, 0, sizeof(cnt))
    for i in range(s.deck_len):
        cnt[s.deck[i]] += 1
    for i in range(N_TYPES):
        h = _fnv(h, <uint64_t>cnt[i])
    for i in range(N_GOODS):
        h = _fnv(h, s.tok_pos[i])
    for k in range(N_BONUS_KINDS):
        memset(vals, 0, sizeof(vals))
        for i in range(s.bonus_pos[k], s.bonus_len[k]):
            if s.bonus[k][i] <= 10:
                vals[s.bonus[k][i]] += 1
        h = _fnv(h, s.bonus_pos[k])
        for i in range(11):
            h = _fnv(h, <uint64_t>vals[i])
    h = _fnv(h, s.to_move)
    h = _fnv(h, <uint64_t>(s.result + 2))
    h = _fnv(h, <uint64_t>depth)
    h = _fnv(h, <uint64_t>(leaf > 0.5))
    h ^= h >> 29
    return h if h != 0 else 1


cdef inline double _margin(const State* s, int P) noexcept nogil:
    cdef int t[2]
    round_totals(s, t)
    return <double>(t[P] - t[1 - P])


cdef int chance_outcomes(const State* s, const Move* m, uint8_t (*types)[5],
                         double* prob, int* kind) noexcept nogil:
    """The chance events of move m from s, with their probabilities.  kind: 0 none
    (one outcome), 1 refill draws (types[i][0..k-1] the cards drawn), 2 a bonus token
    (types[i][0] its value).  Returns the number of outcomes."""
    cdef int gaps = 0, L = s.deck_len, n = 0, i, t, k, pos, left, depth
    cdef int cnt[N_TYPES]
    cdef int take[N_TYPES]
    cdef int vals[11]
    cdef double q, total
    kind[0] = 0
    if m.kind == MOVE_TAKE:
        gaps = 1
    elif m.kind == MOVE_CAMELS:
        gaps = s.market[CAMEL]
    if gaps > 0 and L >= gaps:
        kind[0] = 1
        memset(cnt, 0, sizeof(cnt))
        for i in range(L):
            cnt[s.deck[i]] += 1
        # every multiset of `gaps` cards of the pile: an odometer over the types
        memset(take, 0, sizeof(take))
        total = 1.0            # C(L, gaps)
        for i in range(gaps):
            total = total * (L - i) / (i + 1)
        while True:
            k = 0
            for t in range(N_TYPES):
                k += take[t]
            if k == gaps:
                q = 1.0
                for t in range(N_TYPES):
                    for i in range(take[t]):
                        q = q * (cnt[t] - i) / (i + 1)      # C(cnt[t], take[t])
                if q > 0.0:
                    depth = 0
                    for t in range(N_TYPES):
                        for i in range(take[t]):
                            types[n][depth] = t
                            depth += 1
                    prob[n] = q / total
                    n += 1
            # next vector of counts in 0..gaps (sums other than gaps are skipped)
            t = 0
            while t < N_TYPES:
                take[t] += 1
                if take[t] <= gaps and take[t] <= cnt[t]:
                    break
                take[t] = 0
                t += 1
            if t == N_TYPES:
                break
        return n
    if m.kind == MOVE_SELL and m.count >= 3:
        k = (m.count if m.count < 5 else 5) - 3
        pos = s.bonus_pos[k]
        left = s.bonus_len[k] - pos
        if left > 0:
            kind[0] = 2
            memset(vals, 0, sizeof(vals))
            for i in range(pos, s.bonus_len[k]):
                vals[s.bonus[k][i] if s.bonus[k][i] <= 10 else 0] += 1
            for i in range(11):
                if vals[i]:
                    types[n][0] = i
                    prob[n] = <double>vals[i] / left
                    n += 1
            return n
    prob[0] = 1.0
    return 1


cdef void _force_bonus(State* s, const Move* m, int value) noexcept nogil:
    """Put a token of `value` on top of the bonus stack the sale m takes from."""
    cdef int k = (m.count if m.count < 5 else 5) - 3, i, pos = s.bonus_pos[k]
    cdef uint8_t x
    for i in range(pos, s.bonus_len[k]):
        if s.bonus[k][i] == value:
            x = s.bonus[k][pos]
            s.bonus[k][pos] = s.bonus[k][i]
            s.bonus[k][i] = x
            return


cdef double _e_move(ECtx* E, const State* s, const Move* m, int depth, double alpha,
                    double beta, double* margin) noexcept nogil:
    """The value of move m from s: the average over its chance events (Star1)."""
    cdef uint8_t types[MAX_OUTCOMES][5]
    cdef double prob[MAX_OUTCOMES]
    cdef int n, i, kind
    cdef double q, acc = 0.0, macc = 0.0, rem = 1.0, ca, cb, v, mg
    cdef State c
    n = chance_outcomes(s, m, types, prob, &kind)
    for i in range(n):
        q = prob[i]
        rem -= q
        if rem < 1e-12:
            rem = 0.0
        star1_window(alpha, beta, acc, rem, q, &ca, &cb)
        memcpy(&c, s, sizeof(State))
        if kind == 1:
            force_top(&c, types[i], 1 if m.kind == MOVE_TAKE else s.market[CAMEL])
        elif kind == 2:
            _force_bonus(&c, m, types[i][0])
        apply_move(&c, m)
        v = _e_node(E, &c, depth - 1, ca, cb, &mg)
        if E.aborted:
            margin[0] = 0.0
            return 0.0
        acc += q * v
        macc += q * mg
        if star1_cutoff(alpha, beta, acc, rem, &v):
            margin[0] = macc
            return v
    margin[0] = macc
    return acc


cdef double _e_node(ECtx* E, const State* s, int depth, double alpha, double beta,
                    double* margin) noexcept nogil:
    """The value of s for E.P with `depth` plies left (alpha-beta, fail-soft)."""
    cdef Move buf[MAX_MOVES]
    cdef MoveOrder order[MAX_MOVES]
    cdef int n, j
    cdef bint maxi
    cdef double best, v, mg, bm = 0.0, a0 = alpha, b0 = beta
    cdef uint64_t key
    cdef EndEntry* e
    cdef int outer
    if _e_check(E):
        margin[0] = 0.0
        return 0.0
    if s.result != RESULT_NONE:
        margin[0] = _margin(s, E.P)
        if s.result == RESULT_DRAW:
            return 0.5
        return 1.0 if s.result == E.P else 0.0
    if depth <= 0:
        E.horizon = 1
        margin[0] = _margin(s, E.P)
        return E.leaf
    key = position_key(s, depth, E.leaf)
    e = &E.table[key & E.mask]
    if e.key == key:
        if (e.flag == END_EXACT or (e.flag == END_LOWER and e.value >= beta)
                or (e.flag == END_UPPER and e.value <= alpha)):
            E.hits += 1
            if e.horizon:
                E.horizon = 1
            margin[0] = e.margin
            return e.value
    # whether this position's own lines reach the horizon, kept with its entry
    outer = E.horizon
    E.horizon = 0
    n = ordered_moves(s, buf, order)
    maxi = s.to_move == E.P
    best = -1.0 if maxi else 2.0
    for j in range(n):
        v = _e_move(E, s, &buf[order[j].idx], depth, alpha, beta, &mg)
        if E.aborted:
            E.horizon = 1
            margin[0] = 0.0
            return 0.0
        if maxi:
            if v > best:
                best = v
                bm = mg
            if best > alpha:
                alpha = best
        else:
            if v < best:
                best = v
                bm = mg
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    e.key = key
    e.value = best
    e.margin = bm
    e.flag = END_UPPER if best <= a0 else (END_LOWER if best >= b0 else END_EXACT)
    e.horizon = E.horizon
    E.horizon = E.horizon | outer
    margin[0] = bm
    return best


cdef class EndgameSolver(RootSearch):
    """The rest of the round solved exactly, move by move, over ``samples`` worlds of
    the observer's view (drawn by the belief's weights when ``set_hand_prior`` was
    called first).

    ``run_depth(d)`` solves every root move to ``d`` plies in every world, twice (the
    horizon worth 0, then 1); ``summary()`` gives each move's bounds averaged over the
    worlds.  ``exact`` is true once a depth was solved without any line stopping at the
    horizon: the bounds are then equal and deeper solves change nothing."""

    def __init__(self, pos, *, uint64_t seed=0, int samples=16, int table_bits=TABLE_BITS):
        cdef int j
        if samples < 1 or samples > 4096:
            raise ValueError("samples must be in 1..4096")
        if table_bits < 8 or table_bits > 26:
            raise ValueError("table_bits must be in 8..26")
        self._set_root(pos, seed)
        self._judge_decisive(0, False)
        self.samples = 1 if self.cheat else samples
        self._worlds_arr = np.zeros(self.samples * sizeof(State), np.uint8)
        self.worlds = self._worlds_arr
        self._dealt = False
        self.n_moves = gen_moves(&self.view.s, self.moves)
        for j in range(self.n_moves):
            self.root_acts[j] = action_of(&self.moves[j])
        self.table = <EndEntry*>calloc(<size_t>1 << table_bits, sizeof(EndEntry))
        if self.table == NULL:
            raise MemoryError()
        self.table_mask = (<uint64_t>1 << table_bits) - 1
        self.nodes = 0
        self.hits = 0
        self.elapsed = 0.0
        self.depth_done = 0
        self.exact = False
        self._last = None

    def __dealloc__(self):
        free(self.table)

    cdef int _deal(self) except -1:
        """Draw the worlds (once, after any prior was set)."""
        cdef Rng r
        cdef int j
        cdef State* w
        if self._dealt:
            return 0
        rng_seed(&r, mix(self.seed ^ <uint64_t>0x5EED0E4D))
        for j in range(self.samples):
            w = <State*>&self.worlds[j * sizeof(State)]
            if sample_world(&self.view, &self.truth, self.cheat, &self.prior, w, &r) != 0:
                raise ValueError("the view is inconsistent: no full state matches it")
        self._dealt = True
        return 0

    def world_states(self):
        """The worlds solved, as CoreStates (for tests)."""
        cdef CoreState c
        cdef int j
        self._deal()
        out = []
        for j in range(self.samples):
            c = CoreState.__new__(CoreState)
            memcpy(&c.s, &self.worlds[j * sizeof(State)], sizeof(State))
            out.append(c)
        return out

    def run_depth(self, int depth, node_limit=None, seconds=None, deadline=None):
        """Solve every root move to ``depth`` plies in every world, with the horizon
        worth 0 and then 1.  Stops early at ``node_limit`` more positions, after
        ``seconds``, at the clock reading ``deadline`` or on the stop flag; returns True
        when the depth was completed (its bounds then replace the previous ones)."""
        cdef ECtx E
        cdef double t0, v, mg
        cdef int i, j, pass_, reached = 0
        cdef State* w
        if depth < 1:
            raise ValueError("depth must be >= 1")
        self._deal()
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("this solver is already running")
        lower = np.zeros((self.n_moves, self.samples), np.float64)
        upper = np.zeros((self.n_moves, self.samples), np.float64)
        marg = np.zeros((self.n_moves, self.samples), np.float64)
        cdef double[:, ::1] lo = lower
        cdef double[:, ::1] hi = upper
        cdef double[:, ::1] mm = marg
        try:
            E.P = self.view.observer
            E.nodes = 0
            E.hits = 0
            E.node_limit = -1 if node_limit is None else max(0, int(node_limit))
            E.deadline = deadline_of(seconds, deadline)
            E.stop = &self.stop_flag
            E.aborted = 0
            E.table = self.table
            E.mask = self.table_mask
            t0 = now()
            with nogil:
                for pass_ in range(2):
                    E.leaf = <double>pass_
                    for j in range(self.samples):
                        w = <State*>&self.worlds[j * sizeof(State)]
                        for i in range(self.n_moves):
                            E.horizon = 0
                            v = _e_move(&E, w, &self.moves[i], depth, 0.0, 1.0, &mg)
                            if E.aborted:
                                break
                            reached = reached | E.horizon
                            if pass_ == 0:
                                lo[i, j] = v
                                mm[i, j] = mg
                            else:
                                hi[i, j] = v
                        if E.aborted:
                            break
                    if E.aborted:
                        break
            self.nodes += E.nodes
            self.hits += E.hits
            self.elapsed += now() - t0
            if E.aborted:
                return False
            self.depth_done = depth
            self.exact = not reached
            self._last = (lower, upper, marg)
            return True
        finally:
            self._lock.release()

    def root_actions(self):
        return [int(self.root_acts[i]) for i in range(self.n_moves)]

    def bounds(self):
        """(lower, upper, margin): [move, world] arrays of the deepest completed depth,
        or None before one."""
        return self._last

    def summary(self):
        """Each root move's bounds averaged over the worlds (plain Python data), best
        lower bound first, and whether the first is proven best: its lower bound at
        least every other move's upper bound."""
        children = []
        last = self._last
        if last is not None:
            for i in range(self.n_moves):
                children.append({"action": int(self.root_acts[i]),
                                 "lower": float(last[0][i].mean()),
                                 "upper": float(last[1][i].mean()),
                                 "margin": float(last[2][i].mean())})
        children.sort(key=lambda c: (-c["lower"], -c["upper"], -c["margin"], c["action"]))
        proven = bool(children) and (len(children) == 1 or children[0]["lower"] >= max(
            c["upper"] for c in children[1:]) - 1e-12)
        return {
            "algorithm": "endgame",
            "children": children,
            "proven": proven,
            "exact": bool(self.exact),
            "depth": self.depth_done,
            "nodes": int(self.nodes),
            "hits": int(self.hits),
            "determinizations": self.samples,
            "elapsed": self.elapsed,
            "seed": int(self.seed),
            "perfect_information": bool(self.cheat),
            "stopped": bool(self.stop_flag),
            "root_moves": self.n_moves,
        }

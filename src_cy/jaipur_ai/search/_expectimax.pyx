# cython: language_level=3
"""Depth-limited expectimax with chance nodes (Star1 pruning), over sampled worlds.

The hidden cards are fixed by sampling ``samples`` worlds of the observer's view; in
each world every root move is searched to the given depth, the cards a refill draws
being a chance node (exact for one or two cards, sampled for more).  Leaves are
scored by the leaf evaluation (_evaluation.pyx); moves are ordered by the move score,
or (``inner_policy``) inner nodes try the informed policy's candidates ordered by the
learned move policy.  The driver may search only some root moves at a depth (its root
filter): each move keeps the depth its values were searched to.
"""
from libc.string cimport memcpy, memset
from libc.stdlib cimport qsort
from libc.stdint cimport uint64_t

import numpy as np

from jaipur_ai.rules._core cimport (N_TYPES, N_CARDS, RESULT_NONE, apply_move, action_of,
                                    move_of, cards_to_draw, rng_seed, rng_below, rng_unit)
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.rules._movegen cimport gen_moves
from jaipur_ai.search._root cimport now, deadline_of, count_node
from jaipur_ai.search._worlds cimport sample_world, mix
from jaipur_ai.search._heuristic cimport HoldTab, hold_tab, score
from jaipur_ai.search._decisive cimport ends_round, end_score, any_end_possible
from jaipur_ai.search._decisive import decisive_kind
from jaipur_ai.search._evaluation cimport Evaluation, evaluate
from jaipur_ai.search._policy cimport MAX_CAND, candidates, prior_scores


cdef inline bint _x_check(XCtx* X) noexcept nogil:
    """Count a node; True when the search must stop."""
    return count_node(&X.nodes, X.node_limit, X.deadline, X.stop, &X.aborted, 255)


cdef void force_top(State* s, const uint8_t* types, int k) noexcept nogil:
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
        force_top(&c, types, k)
    apply_move(&c, m)
    return _x_node(X, &c, depth - 1, alpha, beta, margin, reply)


cdef int _multisets(const int* cnt, int type0, int left, uint8_t* cur, int depth,
                    double p, uint8_t (*mtypes)[5], double* mprob, int nm) noexcept nogil:
    """Every multiset of `left` more cards of types >= type0 drawable from the counts
    cnt, appended after the `depth` types in cur; p: the product of the binomials so
    far.  Returns the new number of multisets (their types and unnormalised weights)."""
    cdef int c, k, j
    cdef double b
    if left == 0:
        memcpy(mtypes[nm], cur, 5)
        mprob[nm] = p
        return nm + 1
    for c in range(type0, N_TYPES):
        b = 1.0
        for k in range(1, left + 1):
            if k > cnt[c]:
                break
            b = b * (cnt[c] - k + 1) / k           # C(cnt[c], k)
            for j in range(k):
                cur[depth + j] = c
            nm = _multisets(cnt, c + 1, left - k, cur, depth + k, p * b, mtypes, mprob, nm)
    return nm


cdef int draw_outcomes(const State* s, const Move* m, int n_samples, int n_top, Rng* rng,
                       uint8_t (*otypes)[5], double* oprob) noexcept nogil:
    """The cards move m's refill can draw in state s, most likely first: their types (in
    otypes, in draw order) and probabilities (oprob).  The unseen cards are s's draw
    pile: one card, every type with probability count / pile; two, every unordered pair
    with its hypergeometric probability; three or more (a camel take), with n_top = 0,
    n_samples draws (at most 64) sampled from the pile by rng, equally weighted; with
    n_top > 0, the n_top most likely multisets of types with their exact
    (hypergeometric) probabilities and the rest of the mass shared by n_samples
    multisets sampled from the others by their probabilities (all of them exactly when
    there are no more than n_top + n_samples).  Returns the number of outcomes, 0 when
    the move draws nothing (or the pile is too short to refill)."""
    cdef int gaps, L, c1, c2, no = 0, i, j, t, k
    cdef int cnt[N_TYPES]
    cdef uint8_t tmp[N_CARDS]
    cdef uint8_t swp[5]
    cdef double q, bestq
    gaps = cards_to_draw(s, m)
    L = s.deck_len
    if gaps == 0 or L < gaps:
        return 0
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
    elif n_top > 0:
        no = _top_mass(cnt, gaps, L, n_samples, n_top, rng, otypes, oprob)
    else:
        # sampled draws, each with the same weight
        k = n_samples
        if k > 64:
            k = 64
        for j in range(k):
            for i in range(L):
                tmp[i] = s.deck[i]
            for i in range(gaps):
                t = i + rng_below(rng, L - i)
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
    return no


cdef int _top_mass(const int* cnt, int gaps, int L, int n_samples, int n_top, Rng* rng,
                   uint8_t (*otypes)[5], double* oprob) noexcept nogil:
    """draw_outcomes for three or more cards with n_top > 0 (see there)."""
    cdef uint8_t mtypes[462][5]           # C(7 + 5 - 1, 5): multisets of 5 of 7 types
    cdef double mprob[462]
    cdef uint8_t cur[5]
    cdef int nm, i, j, t, no
    cdef double tot = 0.0, rest, u, q
    cdef uint8_t swp[5]
    nm = _multisets(cnt, 0, gaps, cur, 0, 1.0, mtypes, mprob, 0)
    for i in range(nm):
        tot += mprob[i]
    if n_top > 32:
        n_top = 32
    if n_samples > 64 - n_top:
        n_samples = 64 - n_top          # (otypes holds 64 outcomes)
    if n_samples < 1:
        n_samples = 1
    # the n_top most likely first (partial selection sort; ties: enumeration order)
    for i in range(min(n_top, nm)):
        t = i
        for j in range(i + 1, nm):
            if mprob[j] > mprob[t]:
                t = j
        if t != i:
            q = mprob[i]
            mprob[i] = mprob[t]
            mprob[t] = q
            memcpy(swp, mtypes[i], 5)
            memcpy(mtypes[i], mtypes[t], 5)
            memcpy(mtypes[t], swp, 5)
    no = 0
    if nm <= n_top + n_samples:
        for i in range(nm):
            memcpy(otypes[no], mtypes[i], 5)
            oprob[no] = mprob[i] / tot
            no += 1
        return no
    rest = tot
    for i in range(n_top):
        memcpy(otypes[no], mtypes[i], 5)
        oprob[no] = mprob[i] / tot
        rest -= mprob[i]
        no += 1
    for j in range(n_samples):
        # one multiset of the others, by its probability (inverse CDF)
        u = rng_unit(rng) * rest
        t = nm - 1
        for i in range(n_top, nm):
            u -= mprob[i]
            if u < 0.0:
                t = i
                break
        memcpy(otypes[no], mtypes[t], 5)
        oprob[no] = rest / tot / n_samples
        no += 1
    return no


cdef double _x_chance(XCtx* X, const State* s, const Move* m, int depth, double alpha,
                      double beta, double* margin, int32_t* reply) noexcept nogil:
    """Value of move m: an average over the cards its refill can draw (Star1)."""
    cdef int no, i, gaps
    cdef uint8_t otypes[64][5]
    cdef double oprob[64]
    cdef double q, acc = 0.0, macc = 0.0, rem = 1.0, ca, cb, v, mg
    cdef int32_t rep
    reply[0] = -1
    no = draw_outcomes(s, m, X.chance_samples, X.chance_top, &X.rng, otypes, oprob)
    if no == 0:
        return _x_child(X, s, m, NULL, 0, depth, alpha, beta, margin, reply)
    gaps = cards_to_draw(s, m)
    for i in range(no):
        q = oprob[i]
        rem -= q
        if rem < 1e-12:
            rem = 0.0
        star1_window(alpha, beta, acc, rem, q, &ca, &cb)
        v = _x_child(X, s, m, otypes[i], gaps, depth, ca, cb, &mg, &rep)
        if X.aborted:
            return 0.0
        if i == 0:
            reply[0] = rep
        acc += q * v
        macc += q * mg
        if star1_cutoff(alpha, beta, acc, rem, &v):
            margin[0] = macc
            return v
    margin[0] = macc
    return acc


def refill_outcomes(CoreState state not None, int32_t action, int samples=4, int top=0,
                    uint64_t seed=0):
    """The chance node of expectimax for a move in a full state: ``[(types, p), ...]``,
    the card types its refill draws (in draw order, type codes of the core) and their
    probabilities, most likely first; ``[]`` when the move draws nothing.  For tests and
    for the curious: the search enumerates exactly these."""
    cdef Move m
    cdef Rng r
    cdef uint8_t otypes[64][5]
    cdef double oprob[64]
    cdef int no, i, g
    if move_of(action, &m) != 0:
        raise ValueError(f"action {action} is not a move id")
    if not 0 <= top <= 32:
        raise ValueError("top must be in 0..32")
    if not 1 <= samples <= 64 - top:
        raise ValueError("samples must be in 1..64 - top")
    rng_seed(&r, seed)
    no = draw_outcomes(&state.s, &m, samples, top, &r, otypes, oprob)
    g = cards_to_draw(&state.s, &m)
    return [(tuple(int(otypes[i][j]) for j in range(g)), float(oprob[i])) for i in range(no)]


cdef int _ord_cmp(const void* a, const void* b) noexcept nogil:
    cdef const MoveOrder* x = <const MoveOrder*>a
    cdef const MoveOrder* y = <const MoveOrder*>b
    if x.sc > y.sc:
        return -1
    if x.sc < y.sc:
        return 1
    if x.act < y.act:
        return -1
    if x.act > y.act:
        return 1
    return 0


cdef int ordered_moves(const State* s, Move* buf, MoveOrder* order) noexcept nogil:
    """Generate the moves, best heuristic score first (ties: lowest action id)."""
    cdef int n, i
    cdef bint endp
    cdef HoldTab T
    n = gen_moves(s, buf)
    endp = any_end_possible(s)
    hold_tab(s, &T)
    for i in range(n):
        order[i].act = action_of(&buf[i])
        order[i].idx = i
        if endp and ends_round(s, &buf[i]):
            order[i].sc = end_score(s, &buf[i])
        else:
            order[i].sc = score(s, &T, &buf[i])
    qsort(order, n, sizeof(MoveOrder), _ord_cmp)
    return n


cdef int policy_ordered(const State* s, Move* buf, MoveOrder* order,
                        const Params* P) noexcept nogil:
    """The informed policy's candidates (every take, the camels, each whole-good sale, a
    few exchanges), best prior score first (ties: lowest action id): the moves the
    ISMCTS tree considers below its root, in the order of its priors."""
    cdef int n, i
    cdef double sc[MAX_CAND]
    cdef HoldTab T
    hold_tab(s, &T)
    n = candidates(s, &T, buf)
    if n == 0:
        return ordered_moves(s, buf, order)
    prior_scores(s, &T, buf, n, sc, P)
    for i in range(n):
        order[i].act = action_of(&buf[i])
        order[i].idx = i
        order[i].sc = sc[i]
    qsort(order, n, sizeof(MoveOrder), _ord_cmp)
    return n


cdef double _x_node(XCtx* X, const State* s, int depth, double alpha, double beta,
                    double* margin, int32_t* best_act) noexcept nogil:
    cdef Move buf[MAX_MOVES]
    cdef MoveOrder order[MAX_MOVES]
    cdef int n, i, j, lim, bi
    cdef bint maxi
    cdef double best, v, mg, bm = 0.0
    cdef int32_t rep
    best_act[0] = -1
    if _x_check(X):
        margin[0] = 0.0
        return 0.0
    if s.result != RESULT_NONE or depth <= 0:
        return evaluate(s, X.P, margin, X.model)
    if X.inner_policy:
        n = policy_ordered(s, buf, order, &X.prm)
    else:
        n = ordered_moves(s, buf, order)
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


cdef class ExpectimaxSearcher(RootSearch):
    """Depth-limited expectimax over `samples` sampled worlds of the observer's view.

    ``run_depth(d)`` searches every root move (or those the driver's root filter
    keeps) to d plies in every world (one C call); the Python driver deepens
    iteratively (jaipur_ai.search.expectimax).  Values are win-chance estimates in [0, 1]
    from the mover's point of view; margins are points."""

    def __init__(self, pos, *, uint64_t seed=0, int samples=8, int beam=0,
                 int chance_samples=4, int chance_top=0, int decisive_samples=64,
                 Evaluation evaluation=None, bint judge=True, bint inner_policy=False,
                 double prior_temp=1.0, bint policy=True):
        cdef Rng r
        cdef int j, bad = 0
        cdef State* w
        if samples < 1 or samples > 4096:
            raise ValueError("samples must be in 1..4096")
        self._set_root(pos, seed)
        self.evaluation = evaluation
        if self.cheat:
            samples = 1
        self.samples = samples
        self.beam = beam
        self.chance_samples = chance_samples if chance_samples > 0 else 1
        if not 0 <= chance_top <= 32:
            raise ValueError("chance_top must be in 0..32")
        self.chance_top = chance_top
        self.inner_policy = inner_policy
        if not (prior_temp > 0.0):
            raise ValueError("prior_temp must be > 0")
        memset(&self.prm, 0, sizeof(Params))
        self.prm.prior_temp = prior_temp
        self.prm.model = NULL if evaluation is None else &evaluation.m
        self.prm.learned_priors = evaluation is not None
        self.prm.use_policy = policy
        self._worlds_arr = np.zeros(samples * sizeof(State), np.uint8)
        self.worlds = self._worlds_arr
        rng_seed(&r, seed)
        for j in range(samples):
            w = <State*>&self.worlds[j * sizeof(State)]
            if sample_world(&self.view, &self.truth, self.cheat, NULL, w, &r) != 0:
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
        memset(self.mdepth, 0, sizeof(self.mdepth))
        self._judge_decisive(decisive_samples, judge)
        self._last = None
        self._done = {}

    def run_depth(self, int depth, node_limit=None, seconds=None, deadline=None,
                  moves=None):
        """Search every root move (or the root moves of index in `moves`, the others
        keeping their values) to `depth` plies in every world.  Stops early at
        `node_limit` more nodes, after `seconds`, at the clock reading `deadline`
        (``time.monotonic()``), or on the stop flag; returns True when the depth was
        completed (its results then replace the previous ones)."""
        cdef XCtx X
        cdef double t0
        cdef int i, j, ok
        cdef double mg, v
        cdef int32_t ba
        cdef State* w
        cdef uint8_t active[MAX_MOVES]
        if depth < 1:
            raise ValueError("depth must be >= 1")
        memset(active, 1 if moves is None else 0, sizeof(active))
        if moves is not None:
            if self._last is None:
                raise ValueError("searching some root moves needs a completed depth "
                                 "(the others keep its values)")
            for i in moves:
                if not 0 <= i < self.n_moves:
                    raise ValueError(f"root move index {i} out of range")
                active[i] = 1
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("this searcher is already running")
        try:
            X.P = self.view.observer
            X.nodes = 0
            X.node_limit = -1 if node_limit is None else max(0, int(node_limit))
            t0 = now()
            X.deadline = deadline_of(seconds, deadline)
            X.stop = &self.stop_flag
            X.aborted = 0
            X.beam = self.beam
            X.chance_samples = self.chance_samples
            X.chance_top = self.chance_top
            X.model = NULL if self.evaluation is None else &self.evaluation.m
            X.inner_policy = self.inner_policy
            X.prm = self.prm
            if moves is not None:
                # the moves left out keep the values of their deepest completed depth
                np.asarray(self.value)[...] = self._last[0]
                np.asarray(self.marg)[...] = self._last[1]
                np.asarray(self.reply)[...] = self._last[2]
            with nogil:
                for j in range(self.samples):
                    if X.aborted:
                        break
                    w = <State*>&self.worlds[j * sizeof(State)]
                    for i in range(self.n_moves):
                        if not active[i]:
                            continue
                        rng_seed(&X.rng, mix(self.seed ^ mix(<uint64_t>(
                            (depth * 4096 + j) * 2048 + i))))
                        v = self._root_move(&X, w, i, depth, &mg, &ba)
                        if X.aborted:
                            break
                        self.value[i, j] = v
                        self.marg[i, j] = mg
                        self.reply[i, j] = ba
            self.nodes += X.nodes
            self.elapsed += now() - t0
            ok = not X.aborted
            if ok:
                self.depth_done = depth
                for i in range(self.n_moves):
                    if active[i]:
                        self.mdepth[i] = depth
                self._last = (np.asarray(self.value).copy(), np.asarray(self.marg).copy(),
                              np.asarray(self.reply).copy(),
                              np.array([self.mdepth[i] for i in range(self.n_moves)]))
                self._done[depth] = self._last
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

    def summary(self, depth=None):
        """Root statistics of the deepest completed depth, or of the completed `depth`
        (plain Python data; each move's ``depth`` is the one its values were searched
        to)."""
        children = []
        last = self._last if depth is None else self._done.get(depth)
        if depth is not None and last is None:
            raise ValueError(f"depth {depth} was not completed")
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
                "depth": 0 if last is None else int(last[3][i]),
                "margin": mar,
                "pv": pv,
                "decisive": decisive_kind(st),
                "decisive_stats": st,
            })
        children.sort(key=lambda c: (
            0 if c["decisive"] == "win" else (2 if c["decisive"] == "loss" else 1),
            -c["depth"], -c["value"], -c["margin"], c["action"]))
        return {
            "algorithm": "expectimax",
            "children": children,
            "iterations": int(self.nodes),
            "nodes": int(self.nodes),
            "determinizations": self.samples,
            "depth": self.depth_done if depth is None else depth,
            "elapsed": self.elapsed,
            "seed": int(self.seed),
            "perfect_information": bool(self.cheat),
            "stopped": bool(self.stop_flag),
            "root_moves": self.n_moves,
        }

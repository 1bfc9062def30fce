# cython: language_level=3
"""Depth-limited expectimax with chance nodes (Star1 pruning), over sampled worlds.

The hidden cards are fixed by sampling ``samples`` worlds of the observer's view; in
each world every root move is searched to the given depth, the cards a refill draws
being a chance node (_chance.pyx: exact for one or two cards; for more, sampled, or
the likeliest exactly and the rest sampled).  Leaves are
scored by the leaf evaluation (_evaluation.pyx); moves are ordered by the move score,
or (``inner_policy``) inner nodes try the informed policy's candidates ordered by the
learned move policy.  The driver may search only some root moves at a depth (its root
filter): each move keeps the depth its values were searched to.
"""
from libc.string cimport memcpy, memset
from libc.stdlib cimport qsort
from libc.stdint cimport uint64_t

import numpy as np

from jaipur_ai.rules._core cimport RESULT_NONE, apply_move, action_of, cards_to_draw, rng_seed
from jaipur_ai.rules._movegen cimport gen_moves
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._chance cimport draw_outcomes, force_top
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


cdef double _x_child(XCtx* X, const State* s, const Move* m, const uint8_t* types, int k,
                     int depth, double alpha, double beta, double* margin,
                     int32_t* reply) noexcept nogil:
    cdef State c
    memcpy(&c, s, sizeof(State))
    if k > 0:
        force_top(&c, types, k)
    apply_move(&c, m)
    return _x_node(X, &c, depth - 1, alpha, beta, margin, reply)


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
        return 0             # (buf holds MAX_CAND moves: the caller falls back)
    prior_scores(s, &T, buf, n, sc, P, NULL)
    for i in range(n):
        order[i].act = action_of(&buf[i])
        order[i].idx = i
        order[i].sc = sc[i]
    qsort(order, n, sizeof(MoveOrder), _ord_cmp)
    return n


cdef double _x_node(XCtx* X, const State* s, int depth, double alpha, double beta,
                    double* margin, int32_t* best_act) noexcept nogil:
    best_act[0] = -1
    if _x_check(X):
        margin[0] = 0.0
        return 0.0
    if s.result != RESULT_NONE or depth <= 0:
        return evaluate(s, X.P, margin, X.model)
    if X.inner_policy:
        return _x_node_cand(X, s, depth, alpha, beta, margin, best_act)
    return _x_node_all(X, s, depth, alpha, beta, margin, best_act)


# Two frames for the two move lists: every legal move needs MAX_MOVES entries (about
# 32 KB of stack a ply), the policy's candidates MAX_CAND (about 1.5 KB), so that a deep
# search of the candidates fits a small thread stack.

cdef double _x_node_all(XCtx* X, const State* s, int depth, double alpha, double beta,
                        double* margin, int32_t* best_act) noexcept nogil:
    cdef Move buf[MAX_MOVES]
    cdef MoveOrder order[MAX_MOVES]
    cdef int n = ordered_moves(s, buf, order)
    return _x_moves(X, s, buf, order, n, depth, alpha, beta, margin, best_act)


cdef double _x_node_cand(XCtx* X, const State* s, int depth, double alpha, double beta,
                         double* margin, int32_t* best_act) noexcept nogil:
    cdef Move buf[MAX_CAND]
    cdef MoveOrder order[MAX_CAND]
    cdef int n = policy_ordered(s, buf, order, &X.prm)
    if n == 0:
        return _x_node_all(X, s, depth, alpha, beta, margin, best_act)
    return _x_moves(X, s, buf, order, n, depth, alpha, beta, margin, best_act)


cdef double _x_moves(XCtx* X, const State* s, const Move* buf, const MoveOrder* order,
                     int n, int depth, double alpha, double beta, double* margin,
                     int32_t* best_act) noexcept nogil:
    """Max (the searcher to move) or min over the ordered moves (the first `beam`),
    alpha-beta; each move's value an average over its draws."""
    cdef int i, j, lim, bi
    cdef bint maxi
    cdef double best, v, mg, bm = 0.0
    cdef int32_t rep
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
                # each move's depth: this one where searched, else the one it kept
                depths = (np.zeros(self.n_moves, np.int32) if self._last is None
                          else self._last[3].copy())
                depths[np.asarray(<uint8_t[:self.n_moves]>active, dtype=bool)] = depth
                self._last = (np.asarray(self.value).copy(), np.asarray(self.marg).copy(),
                              np.asarray(self.reply).copy(), depths)
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

    def world(self, int j):
        """World j of the search: the full state (a CoreState) its values were searched
        in (for tests and the curious: the opponent's hand and the draw pile dealt)."""
        cdef CoreState c
        if not 0 <= j < self.samples:
            raise IndexError(f"world {j} out of range (the search has {self.samples})")
        c = CoreState.__new__(CoreState)
        memcpy(&c.s, &self.worlds[j * sizeof(State)], sizeof(State))
        return c

    def world_values(self):
        """Each root move's value in each world at the deepest completed depth: float64
        (n_moves, samples), the rows in ``root_actions()`` order (a move's value in
        ``summary`` is its row's mean)."""
        if self._last is None:
            raise ValueError("no depth was completed")
        return self._last[0].copy()

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

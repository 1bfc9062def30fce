# cython: language_level=3
"""Single-observer ISMCTS on one tree (docs/search.md, "ISMCTS").

Each iteration samples a world of the observer's view, descends the tree choosing
among the moves legal in that world (UCB with availability counts at the root, PUCT
over the informed policy's candidates below it), expands one node, plays out (cut
after ``cutoff`` plies and scored by the leaf evaluation) and backs the reward up.
Below a take, the tree branches on the cards drawn (public information).  The
opponent's moves are pooled over its possible hands: the search never reads the
real hidden state; with ``opp_stats="hand"`` its choices read statistics kept apart by
the hand it holds in the sampled world (_infostats.pyx), and the nodes stay shared.
"""
from libc.math cimport sqrt, log, exp
from libc.stdint cimport int32_t, uint64_t

import numpy as np

from jaipur_ai.rules._core cimport (MAX_MOVES, N_ACTIONS, N_GOODS, RESULT_NONE, apply_move,
                                    action_of, rng_seed, rng_below, rng_unit)
from jaipur_ai.rules._movegen cimport gen_moves
from jaipur_ai.search._params cimport (PLAYOUT_INFORMED, PLAYOUT_RANDOM, REWARD_WIN,
                                REWARD_MARGIN, EXPAND_ORDERED, EXPAND_RANDOM, reward_of)
from jaipur_ai.search._nodepool cimport NO_NODE
from jaipur_ai.search._root cimport now, deadline_of
from jaipur_ai.search._worlds cimport sample_world, opponent_world, force_draw, chooser_world
from jaipur_ai.search._heuristic cimport HoldTab, hold_tab, score
from jaipur_ai.search._policy cimport (MAX_CAND, candidates, prior_scores,
                                playout as run_playout)
from jaipur_ai.search._decisive cimport ends_round, end_score, any_end_possible, outcome
from jaipur_ai.search._decisive import decisive_kind, rank_children
from jaipur_ai.search._evaluation cimport Evaluation, evaluate
from jaipur_ai.search._infostats cimport InfoStats, node_key, select_by_info

NO_NODE_PY = NO_NODE
OUTCOME_PY = OUTCOME

cdef enum:
    TREE_MOVES = MAX_CAND + MAX_MOVES   # room for the candidates and every other legal move

# The prior mass that the legal moves outside the policy's candidates share at a node
# with all_moves_after visits, as a fraction of the candidates' (docs/search.md).
cdef double OTHER_MOVES_PRIOR = 0.1


def _check_choice(name, value, a, b):
    """ValueError unless value is a or b (the searcher's string settings)."""
    if value not in (a, b):
        raise ValueError(f"{name} must be {a!r} or {b!r}, not {value!r}")


cdef inline uint64_t _hand_code(const State* s, int p) noexcept nogil:
    """Player p's hand in world s as 3 bits per good (a hand holds at most 7 cards)."""
    cdef uint64_t k = 0
    cdef int g
    for g in range(N_GOODS):
        k = (k << 3) | s.hand[p][g]
    return k


cdef class IsmctsSearcher(RootSearch):
    """SO-ISMCTS on one tree, continuable: ``run`` several times, then ``summary``."""

    def __init__(self, pos, *, uint64_t seed=0, double exploration=0.7,
                 playout="informed", reward="win",
                 double margin_scale=40.0, double epsilon=0.1, double noise=1.0,
                 int max_playout=400, int max_nodes=4000000, int initial_nodes=1024,
                 int decisive_samples=64, expand="ordered", int cutoff=0,
                 double widen=0.0, int tree_depth=0, bint chance_nodes=False,
                 double chance_width=0.0, double puct=0.0,
                 double prior_temp=1.0, int all_moves_after=0, Evaluation evaluation=None,
                 bint learned_priors=False, bint opp_view=False, bint own_view=False,
                 opp_stats="pooled",
                 opp_values="world", bint judge=True, bint policy=True):
        cdef State probe
        cdef Rng r
        cdef Move buf[MAX_MOVES]
        self._set_root(pos, seed)
        self.root = pos
        self.observer = self.view.observer
        # the leaf evaluation: learned weights, or the hand-set one (None)
        self.evaluation = evaluation
        self.P.model = NULL if evaluation is None else &evaluation.m
        self.P.learned_priors = learned_priors and evaluation is not None
        self.P.use_policy = policy and evaluation is not None
        _check_choice("playout", playout, "informed", "random")
        _check_choice("reward", reward, "win", "margin")
        if not (exploration >= 0.0):
            raise ValueError("exploration must be >= 0")
        if margin_scale <= 0:
            raise ValueError("margin_scale must be > 0")
        self.P.c_uct = exploration
        self.P.playout = {"informed": PLAYOUT_INFORMED, "random": PLAYOUT_RANDOM}[playout]
        self.P.reward = REWARD_WIN if reward == "win" else REWARD_MARGIN
        self.P.margin_scale = margin_scale
        self.P.epsilon = epsilon
        self.P.noise = noise
        self.P.max_playout = max_playout
        _check_choice("expand", expand, "random", "ordered")
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
        if not (chance_width >= 0.0):
            raise ValueError("chance_width must be >= 0")
        self.P.chance_width = chance_width
        if not (puct >= 0.0):
            raise ValueError("puct must be >= 0")
        self.P.puct = puct
        if not (prior_temp > 0.0):
            raise ValueError("prior_temp must be > 0")
        self.P.prior_temp = prior_temp
        if all_moves_after < 0:
            raise ValueError("all_moves_after must be >= 0")
        self.P.all_moves_after = all_moves_after
        self.P.opp_view = opp_view
        self.P.own_view = own_view
        _check_choice("opp_stats", opp_stats, "pooled", "hand")
        self.opp_stats = InfoStats(4096, max_nodes) if opp_stats == "hand" else None
        _check_choice("opp_values", opp_values, "world", "redealt")
        self.P.opp_values_redealt = opp_values == "redealt"
        self.n_opp_keys = 0
        self.P.observer = self.observer
        rng_seed(&self.rng, seed)
        # the view must have at least one consistent world
        rng_seed(&r, seed)
        if sample_world(&self.view, &self.truth, self.cheat, NULL, &probe, &r) != 0:
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
        self.raw.valid = 0
        self._judge_decisive(decisive_samples, judge)

    # -- control ---------------------------------------------------------
    @property
    def decisive_win(self):
        """Action id of a round-ending move that won in every sampled world, or None."""
        best = None
        for a, st in sorted(self.decisive.items()):
            if decisive_kind(st) == "win":
                if best is None or st[4] > self.decisive[best][4]:
                    best = a
        return best

    def run(self, iterations=None, seconds=None, deadline=None):
        """Run until `iterations` more iterations, `seconds` more seconds, the clock
        reading `deadline` (``time.monotonic()``), or the stop flag (whichever comes
        first); returns the iterations done by this call."""
        cdef long long limit = -1
        cdef double dl
        cdef long long done
        if iterations is None and seconds is None and deadline is None:
            raise ValueError("give iterations, seconds, a deadline or several")
        if iterations is not None:
            limit = int(iterations)
            if limit < 0:
                raise ValueError("iterations must be >= 0")
        if seconds is not None and float(seconds) < 0:
            raise ValueError("seconds must be >= 0")
        dl = deadline_of(seconds, deadline)
        if not self._lock.acquire(blocking=False):
            raise RuntimeError("this searcher is already running")
        try:
            with nogil:
                done = self._run(limit, dl)
        finally:
            self._lock.release()
        return done

    cdef long long _run(self, long long limit, double deadline) noexcept nogil:
        cdef double t0 = now(), t
        cdef long long done = 0
        while limit < 0 or done < limit:
            if self.stop_flag:
                break
            # the clock is read every 8 iterations, and only after the first one,
            # so that every run makes progress
            if deadline >= 0.0 and (done & 7) == 0 and done > 0:
                if now() >= deadline:
                    break
            self._iterate()
            done += 1
        t = now()
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

    cdef int _outcome_child(self, int node, State* s, int dl) noexcept nogil:
        """The child of action node `node` for the cards just drawn into the market
        (s.deck[s.deck_len:dl]): the draw is public, so the next decisions are taken
        knowing it.  Outcome nodes carry player OUTCOME and the drawn counts as action.
        With chance_width, a draw past the children the node's visits allow is made the
        draw of a child picked by its arrivals (sparse sampling of the draws)."""
        cdef int32_t code = 0
        cdef int i, c, n = 0
        for i in range(s.deck_len, dl):
            code += <int32_t>1 << (3 * s.deck[i])
        c = self.pool.first_child[node]
        while c != NO_NODE:
            if self.pool.action[c] == code:
                self.pool.avail[c] += 1
                return c
            n += 1
            c = self.pool.next_sibling[c]
        if self.P.chance_width > 0.0 and n >= 1 + <int>(
                self.P.chance_width * sqrt(<double>self.pool.visits[node])):
            c = self.pool.draw_child(node, rng_unit(&self.rng))
            if force_draw(s, dl, self.pool.action[c]):
                self.pool.avail[c] += 1
                return c
        return self.pool.new_node(node, code, OUTCOME)

    cdef int _puct_step(self, int node, State* s, int* path, int* depth) noexcept nogil:
        """One tree step below the root; returns the node reached, or -1 after an
        expansion (the iteration then plays out from s)."""
        cdef Move cand[TREE_MOVES]
        cdef double sc[MAX_CAND]
        cdef double pr[TREE_MOVES]
        cdef int child[TREE_MOVES]
        cdef HoldTab T
        cdef State ow
        cdef const State* sv = s
        cdef int n, i, c, best = -1, pp
        cdef int32_t a
        cdef uint32_t g
        cdef double mx = -1e300, tot = 0.0, sq, u, bu = -1e300, fpu, v
        cdef bint by_hand = self.opp_stats is not None and s.to_move != self.observer
        cdef uint64_t hand = _hand_code(s, s.to_move) if by_hand else 0
        # the mover's priors from the world as it sees it (opponent_view, own_view;
        # the candidates are the same in both: they read its hand, herd and the market)
        sv = chooser_world(s, self.observer, self.P.opp_view, self.P.own_view, &ow,
                           &self.rng)
        hold_tab(sv, &T)
        n = candidates(sv, &T, cand)
        if n == 0:
            return -1
        prior_scores(sv, &T, cand, n, sc, &self.P, &self.raw)
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
        if self.P.all_moves_after > 0 and self.pool.visits[node] >= self.P.all_moves_after:
            n = self._add_other_moves(s, cand, pr, child, n, g, &tot)
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
        if by_hand:
            best = select_by_info(self.opp_stats, self.pool, hand, child, pr, tot, n, fpu,
                                  self.P.puct)
        else:
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
        if best < 0:
            best = 0        # no score above the floor (NaN): never index out of range
        c = child[best]
        if c == NO_NODE:
            c = self.pool.new_node(node, action_of(&cand[best]), s.to_move)
            if by_hand and c != NO_NODE:
                self._note_hand(c, hand)
            self._descend(c, s, &cand[best], path, depth)
            return -1
        if by_hand:
            self._note_hand(c, hand)
        return self._descend(c, s, &cand[best], path, depth)

    cdef void _note_hand(self, int c, uint64_t hand) noexcept nogil:
        """Remember (node c, the mover's hand) for this iteration's back-up."""
        self.opp_keys[self.n_opp_keys] = node_key(c, hand)
        self.n_opp_keys += 1

    cdef int _add_other_moves(self, const State* s, Move* cand, double* pr, int* child,
                              int n, uint32_t g, double* tot) noexcept nogil:
        """Append the legal moves of s that are not among the n candidates (stamped g),
        sharing OTHER_MOVES_PRIOR times the candidates' prior mass equally; returns the
        new count.  Widening by visits: the policy's few candidates are what a rarely
        visited node needs, and what a much visited one must look past."""
        cdef Move buf[MAX_MOVES]
        cdef int m = gen_moves(s, buf), i, k = n
        cdef int32_t a
        cdef double share
        for i in range(m):
            a = action_of(&buf[i])
            if self.stamp[a] != g:
                self.stamp[a] = g
                self.slot[a] = k
                cand[k] = buf[i]
                child[k] = NO_NODE
                k += 1
        if k > n:
            share = OTHER_MOVES_PRIOR * tot[0] / (k - n)
            for i in range(n, k):
                pr[i] = share
            tot[0] += OTHER_MOVES_PRIOR * tot[0]
        return k

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

    # -- one iteration: select (expanding one node), value the leaf, back up ----------
    cdef void _iterate(self) noexcept nogil:
        cdef State s
        cdef int path[MAX_TREE_DEPTH]
        cdef int depth = 0
        cdef double win, mg, r0, r1
        if sample_world(&self.view, &self.truth, self.cheat, &self.prior, &s, &self.rng) != 0:
            return
        self.determinizations += 1
        if self.determinizations % RAW_REFRESH == 0:
            self.raw.valid = 0          # summed afresh at the next priors that read them
        self.n_opp_keys = 0
        path[0] = 0
        self._select(&s, path, &depth)
        if depth > self.max_depth:
            self.max_depth = depth
        r0 = self._leaf_reward(&s, &win, &mg, &r1)
        self._back_up(path, depth, r0, r1, win, mg)

    cdef void _select(self, State* s, int* path, int* depth) noexcept nogil:
        """Descend from the root, playing each chosen move in world s, until a node is
        expanded, the round ends, the tree is full or tree_depth decisions are made;
        path[0..depth] holds the nodes passed (a decision adds up to two: its move's
        node and the outcome node of the cards it drew)."""
        cdef int node = 0, decisions = 0
        while s.result == RESULT_NONE and depth[0] < MAX_TREE_DEPTH - 2:
            if self.P.tree_depth > 0 and decisions >= self.P.tree_depth:
                break
            decisions += 1
            if node != 0 and self.P.puct > 0.0:
                # below the root: PUCT over the informed policy's candidates, with
                # the policy's preferences as priors (rarely visited nodes then play
                # like the playouts instead of trying every poor exchange)
                node = self._puct_step(node, s, path, depth)
            else:
                node = self._ucb_step(node, s, path, depth)
            if node < 0:
                break

    cdef int _ucb_step(self, int node, State* s, int* path, int* depth) noexcept nogil:
        """One tree step by UCB over every legal move of world s, counting each child's
        availability (the root's step; every step with puct=0); returns the node
        reached, or -1 after an expansion or when the tree is full."""
        cdef Move buf[MAX_MOVES]
        cdef int32_t acts[MAX_MOVES]
        cdef int n, i, c, best, nlegal, untried, k, pick
        cdef int32_t a
        cdef uint32_t g
        cdef double u, bu
        cdef HoldTab T
        n = gen_moves(s, buf)
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
                if u > bu or best == NO_NODE:    # (a NaN score never selects -1)
                    bu = u
                    best = c
            c = self.pool.next_sibling[c]
        untried = n - nlegal
        if untried > 0:
            pick = -1
            # a round-ending move that wins for the mover in this world comes first
            if any_end_possible(s):
                for i in range(n):
                    if self.stamp[acts[i]] == g and ends_round(s, &buf[i]):
                        if end_score(s, &buf[i]) > 500.0:
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
                hold_tab(s, &T)
                for i in range(n):
                    if self.stamp[acts[i]] == g:
                        u = score(s, &T, &buf[i]) + self.P.noise * rng_unit(&self.rng)
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
            self._descend(c, s, &buf[pick], path, depth)
            return -1
        return self._descend(best, s, &buf[self.slot[self.pool.action[best]]], path, depth)

    cdef double _leaf_reward(self, State* s, double* win, double* mg,
                             double* r1) noexcept nogil:
        """Play world s out (cut after cutoff plies) and score it: returns player 0's
        reward, with its win result and margin in win and mg, and in r1 the reward that
        the opponent's statistics read (opp_values)."""
        cdef double r0
        if s.result == RESULT_NONE:
            self.playout_plies += <long long>run_playout(s, &self.rng, &self.P)
        if s.result == RESULT_NONE and self.P.cutoff > 0:
            win[0] = evaluate(s, 0, mg, self.P.model)
        else:
            win[0] = outcome(s, 0, mg)
        r0 = reward_of(&self.P, win[0], mg[0])
        r1[0] = r0
        if self.P.opp_values_redealt and s.result == RESULT_NONE and self.P.cutoff > 0:
            r1[0] = self._redealt_reward(s)
        return r0

    cdef void _back_up(self, const int* path, int depth, double r0, double r1,
                       double win, double mg) noexcept nogil:
        """Add a visit and the leaf's result to every node of the path, each from the
        view of the player who made its move (r1 for the opponent's moves below the
        root), and r1 to the opponent's statistics by hand."""
        cdef int i, c
        cdef double rc
        for i in range(depth + 1):
            c = path[i]
            self.pool.visits[c] += 1
            rc = r1 if i > 0 and self.pool.player[c] == 1 - self.observer else r0
            if self.pool.player[c] == 0:
                self.pool.value_sum[c] += rc
                self.pool.win_sum[c] += win
                self.pool.margin_sum[c] += mg
            else:
                self.pool.value_sum[c] += 1.0 - rc
                self.pool.win_sum[c] += 1.0 - win
                self.pool.margin_sum[c] -= mg
        if self.n_opp_keys:
            self._back_up_by_hand(r1 if self.observer == 1 else 1.0 - r1)

    cdef double _redealt_reward(self, const State* s) noexcept nogil:
        """Player 0's reward for the unfinished leaf s scored as the opponent sees it
        (re-dealt): what its choices read must not know the searcher's real hand."""
        cdef State ow
        cdef double mg
        opponent_world(s, self.observer, &ow, &self.rng)
        return reward_of(&self.P, evaluate(&ow, 0, &mg, self.P.model), mg)

    cdef void _back_up_by_hand(self, double r) noexcept nogil:
        """Add reward r (the opponent's view) to this iteration's opp_stats entries."""
        cdef int j
        for j in range(self.n_opp_keys):
            self.opp_stats.add(self.opp_keys[j], r)

    # -- results -----------------------------------------------------------
    def _pv(self, int node, int max_len=12):
        pv = []
        while node != NO_NODE and len(pv) < max_len:
            if self.pool.player[node] != OUTCOME:
                pv.append(int(self.pool.action[node]))
            node = self.pool.most_visited(node)
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
                "decisive": decisive_kind(st),
                "decisive_stats": st,
            })
            c = pool.next_sibling[c]
        # round-ending moves never expanded still carry their decisive statistics
        for a, st in self.decisive.items():
            if a not in seen:
                w = (st[1] + 0.5 * st[2]) / st[0] if st[0] else 0.0
                children.append({"action": a, "visits": 0, "avail": 0, "value": w,
                                 "win": w, "margin": st[4] / st[0] if st[0] else 0.0,
                                 "pv": [a], "decisive": decisive_kind(st),
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

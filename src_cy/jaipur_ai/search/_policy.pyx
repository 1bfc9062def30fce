# cython: language_level=3
"""The informed playout policy.

Per ply it builds a few candidate moves (each take, the camels, whole-good sales, a
few exchanges), scores them with the move score (_heuristic.pyx) and a look-ahead at
the end of the round, and plays the best (epsilon-greedy, with noise); docs/search.md,
"Playout policies".
"""
from libc.string cimport memset, memcpy
from libc.stdint cimport uint8_t, uint64_t

from jaipur_ai.rules._core cimport (N_GOODS, CAMEL, HAND_LIMIT, MOVE_TAKE, MOVE_CAMELS, MOVE_SELL,
                                    MOVE_SWAP, RESULT_NONE, apply_move, action_of, rng_seed,
                                    rng_below, rng_unit)
from jaipur_ai.rules._movegen cimport is_legal, random_playout, random_move
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._params cimport PLAYOUT_RANDOM, PLAYOUT_INFORMED
from jaipur_ai.search._evaluation cimport (learned_logit, prior_logit, child_logit,
                                          raw_sync, RawSums, Evaluation)
from jaipur_ai.search._movefeatures cimport move_dot
from jaipur_ai.search._figures cimport Figures, figures, hand_count, n_empty
from jaipur_ai.search._heuristic cimport HoldTab, hold_tab, score
from jaipur_ai.search._decisive cimport ends_round, empties_stack, end_score, gives_opp_win
from jaipur_ai.search._worlds cimport opponent_world, chooser_world

cdef const Figures* F = figures()

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


cdef void rescore_learned(const State* s, const Move* cand, int n, double* sc,
                          const Model* model, bint priors, RawSums* R) noexcept nogil:
    """Replace the move scores of candidates that do not end the round by the learned
    value of the position they lead to (LEARNED_POINTS per unit of win logit; for the
    tree's priors, the model's prior_lin where it has one), keeping the look-ahead's
    penalty on moves that let the opponent end the round and win.  A raw network's
    sums are updated from the parent's (child_logit), not summed afresh."""
    cdef State t
    cdef RawSums own
    cdef double pen, mg
    cdef int i
    cdef bint endp = s.deck_len < 5 or n_empty(F, s) >= 2
    cdef bint lin = priors and model.has_prior_lin
    cdef bint upd = not lin and model.n_raw_hidden > 0 and (n > 1 or R != NULL)
    if upd:
        if R == NULL:
            R = &own
            own.valid = 0
        raw_sync(model, s, R)
    for i in range(n):
        if endp and ends_round(s, &cand[i]):
            continue                    # scored exactly already
        pen = -800.0 if sc[i] < -500.0 else 0.0
        memcpy(&t, s, sizeof(State))
        apply_move(&t, &cand[i])
        if lin:
            sc[i] = prior_logit(model, &t, s.to_move)
        elif upd:
            sc[i] = child_logit(model, R, &t, s.to_move, &mg)
        else:
            sc[i] = learned_logit(model, &t, s.to_move, &mg)
        sc[i] = LEARNED_POINTS * sc[i] + pen


cdef void prior_scores(const State* s, const HoldTab* T, const Move* cand, int n,
                       double* sc, const Params* P, RawSums* R) noexcept nogil:
    cdef int i
    score_candidates(s, T, cand, n, sc)
    if P.learned_priors and P.model != NULL:
        rescore_learned(s, cand, n, sc, P.model, True, R)
    if P.use_policy and P.model != NULL and P.model.has_prior:
        # the learned move policy: a scaled prior score plus the move's features (the
        # latter in logit units, so times the temperature the softmax divides by)
        for i in range(n):
            sc[i] = (P.model.prior_scale * sc[i]
                     + P.prior_temp * move_dot(s, &cand[i], P.model.prior_w))


cdef int policy_move(const State* s, Rng* r, const Params* P, Move* out) noexcept nogil:
    """Choose a move by the informed policy; returns 0, or -1 when there is none."""
    cdef Move cand[MAX_CAND]
    cdef double sc[MAX_CAND]
    cdef int n, i, best, pick, nok, ne
    cdef bint endp, danger
    cdef double bv
    cdef HoldTab T
    hold_tab(s, &T)
    n = candidates(s, &T, cand)
    if n == 0:
        # (never happens in a running round: some take, sale or camel take is
        # always among the candidates)
        return 0 if random_move(s, r, out) > 0 else -1
    nok = score_candidates(s, &T, cand, n, sc)
    if P.use_policy and P.model != NULL and P.model.has_playout:
        # the learned move policy's correction to the move scores, in points
        for i in range(n):
            sc[i] += move_dot(s, &cand[i], P.model.playout_w)
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
    cdef State t
    cdef int plies = 0, limit = P.max_playout
    if P.cutoff > 0 and P.cutoff < limit:
        limit = P.cutoff
    if P.playout == PLAYOUT_RANDOM:
        return random_playout(s, r, limit)
    while s.result == RESULT_NONE and plies < limit:
        # each player chooses in the world as it sees it (opp_view, own_view)
        if policy_move(chooser_world(s, P.observer, P.opp_view, P.own_view, &t, r),
                       r, P, &m) != 0:
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
    memset(&P, 0, sizeof(Params))
    P.playout = PLAYOUT_INFORMED
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




def opponent_world_of(CoreState st, int observer, uint64_t seed):
    """World st re-dealt as observer's opponent sees it (the searcher's opp_view), for
    tests: a new CoreState."""
    cdef Rng r
    cdef CoreState out = CoreState.__new__(CoreState)
    if observer not in (0, 1):
        raise ValueError("observer must be 0 or 1")
    rng_seed(&r, seed)
    opponent_world(&st.s, observer, &out.s, &r)
    return out


def candidate_actions(CoreState st):
    """The action ids of the informed policy's candidates in st (those the tree's PUCT
    steps choose among), in the policy's order: for tests and inspection."""
    cdef Move cand[MAX_CAND]
    cdef HoldTab T
    cdef int i, n
    hold_tab(&st.s, &T)
    n = candidates(&st.s, &T, cand)
    return [action_of(&cand[i]) for i in range(n)]


def prior_logits(CoreState st, Evaluation evaluation=None, double prior_temp=1.0,
                 bint policy=True):
    """[(action, logit)] of the informed policy's candidates in st, the logits the
    tree's PUCT priors are a softmax of (prior score over prior_temp), as the search
    computes them with these weights: for tests and inspection."""
    cdef Move cand[MAX_CAND]
    cdef double sc[MAX_CAND]
    cdef HoldTab T
    cdef Params P
    cdef int i, n
    memset(&P, 0, sizeof(Params))
    P.prior_temp = prior_temp
    P.model = NULL if evaluation is None else &evaluation.m
    P.learned_priors = evaluation is not None
    P.use_policy = policy and evaluation is not None
    hold_tab(&st.s, &T)
    n = candidates(&st.s, &T, cand)
    prior_scores(&st.s, &T, cand, n, sc, &P, NULL)
    return [(action_of(&cand[i]), sc[i] / prior_temp) for i in range(n)]


def time_policy(CoreState st, int n, Evaluation evaluation, bint policy=True):
    """(seconds per prior computation, candidates) of st's tree priors with these
    weights (the learned values after each candidate and, with ``policy``, the move
    policy), timed over n calls in C: the cost figures of docs/performance.md."""
    from time import perf_counter
    cdef Move cand[MAX_CAND]
    cdef double sc[MAX_CAND]
    cdef HoldTab T
    cdef Params P
    cdef int i, k = 0
    cdef double acc = 0.0
    if n < 1:
        raise ValueError("n must be >= 1")
    memset(&P, 0, sizeof(Params))
    P.prior_temp = 1.0
    P.model = &evaluation.m
    P.learned_priors = 1
    P.use_policy = policy
    t = perf_counter()
    with nogil:
        for i in range(n):
            hold_tab(&st.s, &T)
            k = candidates(&st.s, &T, cand)
            prior_scores(&st.s, &T, cand, k, sc, &P, NULL)
            acc += sc[0]
    t = perf_counter() - t
    if acc != acc:      # (keeps the loop from being optimised away)
        raise AssertionError
    return t / n, k

# cython: language_level=3
"""Sampled worlds of the searched view and the seeds that draw them (inline helpers,
no module of their own)."""
from libc.string cimport memcpy
from libc.stdint cimport uint64_t, uint8_t
from jaipur_ai.rules._core cimport (State, View, Rng, rng_below, rng_unit, N_GOODS, N_TYPES,
                                    CAMEL, N_CARDS)
from jaipur_ai.rules._dealing cimport sample_view, sample_view_hand


ctypedef struct HandPrior:
    int n                      # hypotheses; 0: none (the unknown goods are dealt uniformly)
    const uint8_t* hands       # n rows of N_GOODS counts: the opponent's unknown goods
    const double* cum          # n cumulative weights, increasing; cum[n - 1] their total


cdef inline int sample_world(const View* v, const State* truth, bint cheat,
                             const HandPrior* prior, State* out, Rng* r) noexcept nogil:
    """A full state consistent with v (the truth itself when searching with perfect
    information); with a prior, the opponent's unknown goods are one of its
    hypotheses, drawn by weight, and the rest of the unseen cards are dealt uniformly.
    0, or -1 when no state matches v."""
    cdef int lo, hi, mid
    cdef double x
    if cheat:
        memcpy(out, truth, sizeof(State))
        return 0
    if prior == NULL or prior.n == 0:
        return sample_view(v, out, r)
    # the first hypothesis whose cumulative weight exceeds a uniform draw
    x = rng_unit(r) * prior.cum[prior.n - 1]
    lo = 0
    hi = prior.n - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if prior.cum[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return sample_view_hand(v, &prior.hands[lo * N_GOODS], out, r)


cdef inline uint64_t mix(uint64_t z) noexcept nogil:
    """splitmix64 finaliser: derived seeds of sub-searches and side samplers."""
    z = z + <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef inline void opponent_world(const State* s, int obs, State* out, Rng* r) noexcept nogil:
    """A copy of world s re-dealt as the opponent of `obs` sees it: the goods of obs's
    hand that the opponent never saw taken are shuffled with the goods of the draw
    pile (camels stay where they are), so a choice made in `out` for the opponent
    reads only what the opponent knows of obs's hand (its size and the known cards)."""
    cdef uint8_t pool[N_CARDS]
    cdef uint8_t slot[N_CARDS]
    cdef int g, i, j, k, n = 0, nu = 0, ns = 0
    cdef uint8_t x
    memcpy(out, s, sizeof(State))
    for g in range(N_GOODS):
        k = <int>s.hand[obs][g] - <int>s.known[obs][g]
        if k > 0:
            out.hand[obs][g] = s.known[obs][g]
            for i in range(k):
                pool[n] = g
                n += 1
    nu = n
    if nu == 0:
        return
    for i in range(s.deck_len):
        if s.deck[i] != CAMEL:
            pool[n] = s.deck[i]
            slot[ns] = i
            n += 1
            ns += 1
    # Fisher-Yates: the first nu cards go to the hand, the rest refill the pile's slots
    for i in range(n - 1, 0, -1):
        j = rng_below(r, i + 1)
        x = pool[i]
        pool[i] = pool[j]
        pool[j] = x
    for i in range(nu):
        out.hand[obs][pool[i]] += 1
    for i in range(ns):
        out.deck[slot[i]] = pool[nu + i]


cdef inline const State* chooser_world(const State* s, int observer, bint opp_view,
                                       bint own_view, State* buf, Rng* r) noexcept nogil:
    """The world the player to move in s chooses its move in: s itself, or s re-dealt
    as that player sees it (written to buf): the opponent's, with opp_view (the
    observer's cards it never saw taken shuffled with the pile's goods), the observer's
    own, with own_view (the opponent's cards it never saw, likewise)."""
    if opp_view and s.to_move != observer:
        opponent_world(s, observer, buf, r)
        return buf
    if own_view and s.to_move == observer:
        opponent_world(s, 1 - observer, buf, r)
        return buf
    return s


cdef inline bint force_draw(State* s, int dl, int code) noexcept nogil:
    """Make the cards just drawn into the market, s.deck[s.deck_len:dl], those of `code`
    (3 bits a card type, as the tree's outcome nodes count them) by swapping them with
    cards further down the draw pile; False, with s unchanged, when the pile cannot."""
    cdef int need[N_TYPES]
    cdef int have[N_TYPES]
    cdef int rest[N_TYPES]
    cdef int t, u, i, j, n = 0
    for t in range(N_TYPES):
        need[t] = (code >> (3 * t)) & 7
        n += need[t]
        have[t] = 0
        rest[t] = 0
    if n != dl - s.deck_len:
        return False
    for i in range(s.deck_len, dl):
        have[s.deck[i]] += 1
    for i in range(s.deck_len):
        rest[s.deck[i]] += 1
    for t in range(N_TYPES):
        if need[t] > have[t] + rest[t]:
            return False
    for j in range(s.deck_len, dl):
        t = s.deck[j]
        if have[t] <= need[t]:
            continue
        for i in range(s.deck_len):         # a card of a type still short, down the pile
            u = s.deck[i]
            if have[u] < need[u]:
                s.deck[i] = t
                s.deck[j] = u
                have[t] -= 1
                have[u] += 1
                s.market[t] -= 1
                s.market[u] += 1
                break
    return True

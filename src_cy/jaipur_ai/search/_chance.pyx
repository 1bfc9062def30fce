# cython: language_level=3
"""The cards a move's refill draws into the market: its outcomes and their
probabilities, for the chance nodes of expectimax and the exact endgame (docs/search.md,
"Expectimax").  In a full state the unseen cards are the draw pile: one card drawn is
each type by its share of the pile, two cards each unordered pair by its hypergeometric
probability, three or more (a camel take) sampled draws or the likeliest multisets
exactly with the rest of the mass sampled.  An outcome is forced on a copy of the state
by moving its cards to the top of the pile (force_top).
"""
from libc.string cimport memcpy, memset
from libc.stdint cimport uint8_t, uint64_t, int32_t

from jaipur_ai.rules._core cimport (N_TYPES, N_CARDS, Move, State, Rng, move_of,
                                    cards_to_draw, rng_seed, rng_below, rng_unit)
from jaipur_ai.rules._bridge cimport CoreState


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
    cdef double q
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
    _likeliest_first(otypes, oprob, no, no)
    return no


cdef void _likeliest_first(uint8_t (*types)[5], double* prob, int n, int k) noexcept nogil:
    """Put the k likeliest of the n outcomes first, most likely first (a partial
    selection sort: ties keep their order)."""
    cdef int i, j, t
    cdef double q
    cdef uint8_t swp[5]
    for i in range(min(k, n)):
        t = i
        for j in range(i + 1, n):
            if prob[j] > prob[t]:
                t = j
        if t != i:
            q = prob[i]
            prob[i] = prob[t]
            prob[t] = q
            memcpy(swp, types[i], 5)
            memcpy(types[i], types[t], 5)
            memcpy(types[t], swp, 5)


cdef int _top_mass(const int* cnt, int gaps, int L, int n_samples, int n_top, Rng* rng,
                   uint8_t (*otypes)[5], double* oprob) noexcept nogil:
    """draw_outcomes for three or more cards with n_top > 0 (see there)."""
    cdef uint8_t mtypes[462][5]           # C(7 + 5 - 1, 5): multisets of 5 of 7 types
    cdef double mprob[462]
    cdef uint8_t cur[5]
    cdef int nm, i, j, t, no
    cdef double tot = 0.0, rest, u
    nm = _multisets(cnt, 0, gaps, cur, 0, 1.0, mtypes, mprob, 0)
    for i in range(nm):
        tot += mprob[i]
    if n_top > 32:
        n_top = 32
    if n_samples > 64 - n_top:
        n_samples = 64 - n_top          # (otypes holds 64 outcomes)
    if n_samples < 1:
        n_samples = 1
    _likeliest_first(mtypes, mprob, nm, n_top)
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

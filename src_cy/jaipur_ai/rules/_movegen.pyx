# cython: language_level=3
"""The legal moves of a position: all of them in their fixed order (``gen_moves``), or
counted with only the j-th built (``count_moves``, ``nth_move``: a uniformly random move
for random playouts and VectorEnv's random opponent), and whether a move is legal.
See _movegen.pxd."""
from libc.string cimport memset, memcpy
from libc.stdint cimport uint8_t, uint16_t, int16_t, int32_t, uint32_t, uint64_t

from jaipur_ai.rules._core cimport (BONUS_STANDARD, CAMEL, HAND_LIMIT, MARKET_SIZE, MAX_MOVES,
                                    MOVE_CAMELS, MOVE_SELL, MOVE_SWAP, MOVE_TAKE, N_GOODS,
                                    N_TYPES, POW6_6, RESULT_NONE, action_of, apply_move, fast_below,
                                    hand_size, rng_below, rng_seed)
from jaipur_ai.rules._dealing cimport new_match


# ---------------------------------------------------------------------------
# Move generation
# ---------------------------------------------------------------------------
# The order of the legal moves is part of the contract (the k-th move of a position
# is always the same move: seeded searches and playouts depend on it): takes by good,
# the camels, sales by good then count, then the exchanges: take vectors in odometer
# order over the market's goods (the first good counting fastest), and for each the
# give vectors in descending lexicographic order over (goods..., camels).
#
# A Move is 16 bytes, written as two 64-bit words: lo = kind, good, count, take[0..4];
# hi = take[5], give[0..6].  Several writers below store a few slots past the moves
# they keep (no branch per slot): at most 8, far inside MAX_MOVES (the most legal moves
# of any position is 167).

ctypedef struct Take:
    uint64_t lo          # bytes 0..7 of the Move
    uint8_t t5           # take[5]
    uint8_t k            # cards taken
    uint8_t tm           # goods taken, one bit each

cdef Take _TAKES[8192]
cdef uint16_t _TAKE_FIRST[POW6_6]   # by market_key: the market's take vectors (k >= 2),
cdef uint8_t _TAKE_N[POW6_6]        # in the exchange order
cdef Move _SELLS[N_GOODS][8]        # the sales of each good, from 2 (or 1) cards up
cdef Move _TAKE1[N_TYPES]           # take one good; [CAMEL]: take the camels


cdef inline int _market_key(const uint8_t* m) noexcept nogil:
    return m[0] + 6 * (m[1] + 6 * (m[2] + 6 * (m[3] + 6 * (m[4] + 6 * m[5]))))


cdef void _init_moves():
    cdef int key, c, g, i, k, nm, total = 0
    cdef uint8_t mk[N_GOODS]
    cdef uint8_t t[N_GOODS]
    cdef int mt[N_GOODS]
    cdef Take* e
    memset(_SELLS, 0, sizeof(_SELLS))
    memset(_TAKE1, 0, sizeof(_TAKE1))
    for g in range(N_GOODS):
        _TAKE1[g].kind = MOVE_TAKE
        _TAKE1[g].good = g
        _TAKE1[g].count = 1
    _TAKE1[CAMEL].kind = MOVE_CAMELS
    for g in range(N_GOODS):
        for i in range(8):
            _SELLS[g][i].kind = MOVE_SELL
            _SELLS[g][i].good = g
            _SELLS[g][i].count = (2 if g < 3 else 1) + i
    for key in range(POW6_6):
        c = key
        k = 0
        nm = 0
        for g in range(N_GOODS):
            mk[g] = c % 6
            c //= 6
            k += mk[g]
            t[g] = 0
        _TAKE_FIRST[key] = total
        _TAKE_N[key] = 0
        if k > MARKET_SIZE:
            continue
        for g in range(N_GOODS):
            if mk[g]:
                mt[nm] = g
                nm += 1
        while True:
            i = 0
            while i < nm:
                if t[mt[i]] < mk[mt[i]]:
                    t[mt[i]] += 1
                    break
                t[mt[i]] = 0
                i += 1
            if i == nm:
                break
            k = t[0] + t[1] + t[2] + t[3] + t[4] + t[5]
            if k < 2:
                continue
            e = &_TAKES[total]
            total += 1
            e.lo = MOVE_SWAP | (<uint64_t>k << 16)
            for g in range(5):
                e.lo |= <uint64_t>t[g] << (8 * (3 + g))
            e.t5 = t[5]
            e.k = k
            e.tm = 0
            for g in range(N_GOODS):
                if t[g]:
                    e.tm |= 1 << g
            _TAKE_N[key] += 1
    assert total <= 8192


_init_moves()


ctypedef struct _Walk:
    uint8_t act[N_GOODS]       # the goods that can be given, ascending, and how many
    uint8_t cap[N_GOODS]
    int suf[N_GOODS + 1]       # suffix sums of cap; suf[na] = the camels that can be given
    int na
    uint64_t lo
    Move* out
    int n


cdef void _walk(_Walk* w, int i, int left, uint64_t hi) noexcept nogil:
    """Every way to give `left` more cards from the goods act[i:] and then camels, in
    descending lexicographic order, appended to w.out (the goods' counts go into hi)."""
    cdef int c, j, sh = 8 * (1 + w.act[i])
    cdef int hc = w.cap[i] if w.cap[i] < left else left
    cdef int lc = left - w.suf[i + 1]          # what the later goods and camels cannot absorb
    cdef uint64_t v[2]
    if lc < 0:
        lc = 0
    if i == w.na - 1:
        # last good: the camels take the rest; six slots written, hc - lc + 1 kept
        v[0] = w.lo
        for j in range(6):
            c = hc - j
            v[1] = hi | (<uint64_t>(<uint8_t>c) << sh) | (<uint64_t>(<uint8_t>(left - c)) << 56)
            memcpy(&w.out[w.n + j], v, 16)
        w.n += hc - lc + 1
        return
    c = hc
    while c >= lc:
        _walk(w, i + 1, left - c, hi | (<uint64_t>c << sh))
        c -= 1


cdef inline int _camel_cap(const State* s, int p, int hsize) noexcept nogil:
    """Camels the player may give in an exchange (the hand stays within the limit)."""
    cdef int c = HAND_LIMIT - hsize
    return c if c < s.herd[p] else s.herd[p]


cdef int gen_moves(const State* s, Move* out) noexcept nogil:
    """Write every legal move of the player to move into out; return how many.

    The give vectors of an exchange depend on the take only through its size k and
    which of the hand's goods it takes (A), so each (A, k) list is built once, by a
    depth-first walk over the goods not taken straight into out, and copied for every
    later take with the same (A, k), that take's counts put in."""
    cdef int n = 0, p = s.to_move, g, c, e, j, k, L, hsize, camel_cap, key, nt
    cdef const uint8_t* hand = s.hand[p]
    cdef const uint8_t* mk = &s.market[0]
    cdef uint32_t hm = 0, A
    cdef int16_t first[MARKET_SIZE + 1][64]
    cdef int16_t length[MARKET_SIZE + 1][64]
    cdef uint64_t seen[MARKET_SIZE + 1]        # bit A of seen[k]: (A, k) listed
    cdef uint64_t v[2]
    cdef const Take* tk
    cdef const Move* src
    cdef _Walk w
    if s.result != RESULT_NONE:
        return 0
    hsize = hand_size(s, p)
    if hsize < HAND_LIMIT:
        for g in range(N_GOODS):
            out[n] = _TAKE1[g]
            n += mk[g] != 0
    out[n] = _TAKE1[CAMEL]
    n += mk[CAMEL] != 0
    for g in range(N_GOODS):
        # sales: 8 slots written, hand[g] - lo + 1 kept
        memcpy(&out[n], _SELLS[g], sizeof(_SELLS[g]))
        c = hand[g] - (1 if g < 3 else 0)
        n += c if c > 0 else 0
        hm |= <uint32_t>(hand[g] != 0) << g
    camel_cap = _camel_cap(s, p, hsize)
    key = _market_key(mk)
    nt = _TAKE_N[key]
    tk = &_TAKES[_TAKE_FIRST[key]]
    for k in range(MARKET_SIZE + 1):
        seen[k] = 0
    for e in range(nt):
        k = tk[e].k
        A = tk[e].tm & hm
        if (seen[k] >> A) & 1:
            src = &out[first[k][A]]
            L = length[k][A]
            for j in range(L):
                memcpy(v, &src[j], 16)
                v[0] = tk[e].lo
                v[1] = (v[1] & ~(<uint64_t>0xFF)) | tk[e].t5
                memcpy(&out[n + j], v, 16)
            n += L
            continue
        w.na = 0
        for g in range(N_GOODS):
            w.act[w.na] = g
            w.cap[w.na] = hand[g] if hand[g] < MARKET_SIZE else MARKET_SIZE
            w.na += ((hm & ~A) >> g) & 1
        w.suf[w.na] = camel_cap
        for j in range(w.na - 1, -1, -1):
            w.suf[j] = w.suf[j + 1] + w.cap[j]
        seen[k] |= (<uint64_t>1) << A
        first[k][A] = n
        if w.suf[0] >= k:
            if w.na == 0:
                v[0] = tk[e].lo
                v[1] = tk[e].t5 | (<uint64_t>k << 56)
                memcpy(&out[n], v, 16)
                n += 1
            else:
                w.lo = tk[e].lo
                w.out = out
                w.n = n
                _walk(&w, 0, k, tk[e].t5)
                n = w.n
        length[k][A] = n - first[k][A]
    return n

# ---------------------------------------------------------------------------
# Counting the legal moves, and building only the j-th: what a uniformly random move
# needs (random playouts, VectorEnv's random opponent).  The exchanges giving k cards
# while taking the hand's goods A number the coefficient of x^k in
# C(x) * prod over the hand's goods g not in A of (1 + x + ... + x^min(hand[g], 5)),
# C(x) = 1 + x + ... + x^camel_cap; the products are kept per A.
# ---------------------------------------------------------------------------
cdef inline void _times_run(int* a, int cap) noexcept nogil:
    """a *= 1 + x + ... + x^cap (coefficients up to x^5, 0 <= cap <= 5): a[i] becomes
    a[i - cap] + ... + a[i], a difference of prefix sums (pre[6 + x]: the sum below x,
    zero for x <= 0, so no branch)."""
    cdef int pre[2 * MARKET_SIZE + 3]
    cdef int i
    for i in range(MARKET_SIZE + 2):
        pre[i] = 0
    for i in range(MARKET_SIZE + 1):
        pre[MARKET_SIZE + 2 + i] = pre[MARKET_SIZE + 1 + i] + a[i]
    for i in range(MARKET_SIZE + 1):
        a[i] = pre[MARKET_SIZE + 2 + i] - pre[MARKET_SIZE + 1 + i - cap]


cdef inline void _camel_poly(int camel_cap, int* a) noexcept nogil:
    cdef int i
    for i in range(MARKET_SIZE + 1):
        a[i] = i <= camel_cap


cdef inline int _gives(const State* s, MoveCount* q, uint32_t A, int k) noexcept nogil:
    cdef int g, c, i, na = 0
    cdef int* a
    cdef int cap[N_GOODS]
    cdef const uint8_t* hand
    if not (q.have >> A) & 1:
        hand = s.hand[s.to_move]
        for g in range(N_GOODS):
            c = hand[g]
            cap[na] = c if c < MARKET_SIZE else MARKET_SIZE
            na += ((q.hm & ~A) >> g) & 1
        a = q.poly[A]
        _camel_poly(q.camel_cap, a)
        for i in range(na):
            _times_run(a, cap[i])
        q.have |= (<uint64_t>1) << A
    return q.poly[A][k]


cdef int count_moves(const State* s, MoveCount* q) noexcept nogil:
    """How many legal moves gen_moves would write (q is filled for nth_move)."""
    cdef int p = s.to_move, n = 0, g, c, e
    cdef const uint8_t* hand = s.hand[p]
    cdef const uint8_t* mk = &s.market[0]
    cdef const Take* tk
    cdef bint room
    q.have = 0
    q.hm = 0
    if s.result != RESULT_NONE:
        q.n = 0
        return 0
    q.hsize = hand_size(s, p)
    q.camel_cap = _camel_cap(s, p, q.hsize)
    room = q.hsize < HAND_LIMIT
    for g in range(N_GOODS):
        c = hand[g] - (1 if g < 3 else 0)
        n += c if c > 0 else 0
        n += room & (mk[g] != 0)
        q.hm |= <uint32_t>(hand[g] != 0) << g
    n += mk[CAMEL] != 0
    q.key = _market_key(mk)
    tk = &_TAKES[_TAKE_FIRST[q.key]]
    for e in range(_TAKE_N[q.key]):
        n += _gives(s, q, tk[e].tm & q.hm, tk[e].k)
    q.n = n
    return n


cdef void nth_move(const State* s, MoveCount* q, int j, Move* m) noexcept nogil:
    """The j-th move gen_moves would write (0 <= j < count_moves(s, q), q from it)."""
    cdef const uint8_t* hand = s.hand[s.to_move]
    cdef const Take* e
    cdef uint32_t A
    cdef int g, c, i, na = 0, nm = 0, left, ways
    cdef int act[N_GOODS]
    cdef int cap[N_GOODS]
    cdef int suf[N_GOODS + 1][MARKET_SIZE + 1]
    memset(m, 0, sizeof(Move))
    if q.hsize < HAND_LIMIT:
        for g in range(N_GOODS):
            act[nm] = g
            nm += s.market[g] != 0
        if j < nm:
            m[0] = _TAKE1[act[j]]
            return
        j -= nm
    if s.market[CAMEL]:
        if j == 0:
            m.kind = MOVE_CAMELS
            return
        j -= 1
    for g in range(N_GOODS):
        c = hand[g] - (1 if g < 3 else 0)
        if c > 0:
            if j < c:
                m.kind = MOVE_SELL
                m.good = g
                m.count = (2 if g < 3 else 1) + j
                return
            j -= c
    e = &_TAKES[_TAKE_FIRST[q.key]]
    while True:
        A = e.tm & q.hm
        c = _gives(s, q, A, e.k)
        if j < c:
            break
        j -= c
        e += 1
    memcpy(m, &e.lo, 8)
    m.take[5] = e.t5
    # the j-th give vector, by the counts of completions after each choice
    for g in range(N_GOODS):
        act[na] = g
        cap[na] = hand[g] if hand[g] < MARKET_SIZE else MARKET_SIZE
        na += ((q.hm & ~A) >> g) & 1
    _camel_poly(q.camel_cap, suf[na])
    for i in range(na - 1, -1, -1):
        memcpy(suf[i], suf[i + 1], sizeof(suf[i]))
        _times_run(suf[i], cap[i])
    left = e.k
    for i in range(na):
        c = cap[i] if cap[i] < left else left
        while True:
            ways = suf[i + 1][left - c]
            if j < ways:
                m.give[act[i]] = c
                left -= c
                break
            j -= ways
            c -= 1
    m.give[CAMEL] = left


cdef int random_move(const State* s, Rng* r, Move* out) noexcept nogil:
    """A uniformly random legal move: the same move, from the same draw, as
    ``gen_moves(s, buf); out = buf[rng_below(r, n)]``; returns n (0: none, no draw)."""
    cdef MoveCount q
    cdef int n = count_moves(s, &q)
    if n > 0:
        nth_move(s, &q, fast_below(r, n), out)
    return n


cdef bint is_legal(const State* s, const Move* m) noexcept nogil:
    cdef Move buf[MAX_MOVES]
    cdef int n = gen_moves(s, buf), i
    cdef int32_t a = action_of(m)
    for i in range(n):
        if action_of(&buf[i]) == a:
            return True
    return False


cdef int random_playout(State* s, Rng* r, int max_plies) noexcept nogil:
    """Uniformly random legal moves until the round ends; return plies played."""
    cdef Move m
    cdef int plies = 0
    while s.result == RESULT_NONE and plies < max_plies:
        random_move(s, r, &m)
        apply_move(s, &m)
        plies += 1
    return plies


# ---------------------------------------------------------------------------
# Python hook for the benchmarks
# ---------------------------------------------------------------------------
def bench_random_rounds(int n_rounds, uint64_t seed, bint counted=False):
    """Deal and play n uniformly random rounds in C; return (plies, legal moves seen).

    Round i is dealt exactly as ``GameState.new(seed + i, starter=i % 2)``; its
    moves are then drawn from the same random stream.  With ``counted`` the legal
    moves are counted and only the chosen one is built (``random_move``, as random
    playouts do); otherwise all are generated (``gen_moves``).  Both play the same
    rounds."""
    cdef State s
    cdef Rng r
    cdef Move buf[MAX_MOVES]
    cdef Move m
    cdef MoveCount q
    cdef long plies = 0, moves = 0
    cdef int i, n
    with nogil:
        for i in range(n_rounds):
            rng_seed(&r, seed + <uint64_t>i)
            new_match(&s, &r, i & 1, BONUS_STANDARD)
            while s.result == RESULT_NONE:
                if counted:
                    n = count_moves(&s, &q)
                    nth_move(&s, &q, fast_below(&r, n), &m)
                    apply_move(&s, &m)
                else:
                    n = gen_moves(&s, buf)
                    apply_move(&s, &buf[fast_below(&r, n)])
                moves += n
                plies += 1
    return plies, moves


cdef int _max_over_hands(State* s, const int* tot, int* best_hand, int* best_herd) noexcept nogil:
    """The most legal moves over every hand (at most 7 goods) and herd (0 to 5) of the
    player to move, with s's market, within the card totals."""
    cdef MoveCount q
    cdef int h0, h1, h2, h3, h4, h5, c, n, best = -1, cmax
    cdef int lim[6]
    cdef int g
    for g in range(6):
        lim[g] = tot[g] - s.market[g]
        if lim[g] > HAND_LIMIT:
            lim[g] = HAND_LIMIT
    cmax = tot[6] - s.market[CAMEL]
    if cmax > 5:
        cmax = 5
    for h0 in range(lim[0] + 1):
        for h1 in range(min(lim[1], HAND_LIMIT - h0) + 1):
            for h2 in range(min(lim[2], HAND_LIMIT - h0 - h1) + 1):
                for h3 in range(min(lim[3], HAND_LIMIT - h0 - h1 - h2) + 1):
                    for h4 in range(min(lim[4], HAND_LIMIT - h0 - h1 - h2 - h3) + 1):
                        for h5 in range(min(lim[5], HAND_LIMIT - h0 - h1 - h2 - h3 - h4) + 1):
                            s.hand[0][0] = h0
                            s.hand[0][1] = h1
                            s.hand[0][2] = h2
                            s.hand[0][3] = h3
                            s.hand[0][4] = h4
                            s.hand[0][5] = h5
                            for c in range(cmax + 1):
                                s.herd[0] = c
                                n = count_moves(s, &q)
                                if n > best:
                                    best = n
                                    for g in range(6):
                                        best_hand[g] = s.hand[0][g]
                                    best_herd[0] = c
    return best


def max_legal_moves(totals):
    """The largest number of legal moves of any position, by exhaustion: every market
    (5 cards of the 7 types), every hand of the player to move (at most 7 goods) and
    herd (0 to 5 camels: a larger herd allows no other exchange, at most 5 cards change
    hands), within the card totals ``totals`` (7 numbers, camels last).  Nothing else a
    position holds changes what is legal.  Returns (the largest count, and the market,
    hand and herd of a position that has it)."""
    cdef State s
    cdef int tot[7]
    cdef int bh[6]
    cdef int bh_best[6]
    cdef int herd = 0, herd_best = 0, n, best = -1, g
    cdef int m0, m1, m2, m3, m4, m5
    cdef int mk_best[7]
    for g in range(7):
        tot[g] = int(totals[g])
    memset(&s, 0, sizeof(State))
    s.to_move = 0
    s.result = RESULT_NONE
    with nogil:
        for m0 in range(min(tot[0], MARKET_SIZE) + 1):
            for m1 in range(min(tot[1], MARKET_SIZE - m0) + 1):
                for m2 in range(min(tot[2], MARKET_SIZE - m0 - m1) + 1):
                    for m3 in range(min(tot[3], MARKET_SIZE - m0 - m1 - m2) + 1):
                        for m4 in range(min(tot[4], MARKET_SIZE - m0 - m1 - m2 - m3) + 1):
                            for m5 in range(min(tot[5], MARKET_SIZE - m0 - m1 - m2 - m3 - m4) + 1):
                                s.market[0] = m0
                                s.market[1] = m1
                                s.market[2] = m2
                                s.market[3] = m3
                                s.market[4] = m4
                                s.market[5] = m5
                                s.market[CAMEL] = MARKET_SIZE - m0 - m1 - m2 - m3 - m4 - m5
                                if s.market[CAMEL] > tot[6]:
                                    continue
                                n = _max_over_hands(&s, tot, bh, &herd)
                                if n > best:
                                    best = n
                                    for g in range(7):
                                        mk_best[g] = s.market[g]
                                    for g in range(6):
                                        bh_best[g] = bh[g]
                                    herd_best = herd
    return best, ([mk_best[g] for g in range(7)], [bh_best[g] for g in range(6)], herd_best)

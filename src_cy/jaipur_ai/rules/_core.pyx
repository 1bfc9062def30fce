# cython: language_level=3
"""The compiled rules core: state, moves, end of round, scoring, playouts and the
sampling of an information set.  See _core.pxd for the C-level interface.

Nothing in the functions marked ``nogil`` touches a Python object; the two
classes at the end are the only bridge to Python.
"""
from libc.string cimport memset, memcpy
from libc.stdint cimport uint8_t, uint16_t, int16_t, int32_t, uint32_t, uint64_t

# ---------------------------------------------------------------------------
# Figures (docs/rules.md, section 1 "Components").  Filled once at import.
# ---------------------------------------------------------------------------
cdef uint8_t _TOKENS[N_GOODS][MAX_TOKENS]
cdef uint8_t _TOKEN_LEN[N_GOODS]
cdef uint8_t _CARDS[N_TYPES]
cdef uint8_t _BONUS[2][N_BONUS_KINDS][MAX_BONUS]
cdef uint8_t _BONUS_LEN[2][N_BONUS_KINDS]

_PY_TOKENS = ((7, 7, 5, 5, 5), (6, 6, 5, 5, 5), (5, 5, 5, 5, 5),
              (5, 3, 3, 2, 2, 1, 1), (5, 3, 3, 2, 2, 1, 1),
              (4, 3, 2, 1, 1, 1, 1, 1, 1))
_PY_CARDS = (6, 6, 6, 8, 8, 10, 11)
_PY_BONUS = (((1, 1, 2, 2, 2, 3, 3), (4, 4, 5, 5, 6, 6), (8, 8, 9, 10, 10)),
             ((1, 1, 2, 2, 3, 3), (4, 4, 5, 5, 6, 6), (8, 8, 9, 9, 10, 10)))


cdef void _init_figures():
    cdef int g, i, b, k
    memset(_TOKENS, 0, sizeof(_TOKENS))
    for g in range(N_GOODS):
        _TOKEN_LEN[g] = len(_PY_TOKENS[g])
        for i in range(_TOKEN_LEN[g]):
            _TOKENS[g][i] = _PY_TOKENS[g][i]
    for g in range(N_TYPES):
        _CARDS[g] = _PY_CARDS[g]
    memset(_BONUS, 0, sizeof(_BONUS))
    for b in range(2):
        for k in range(N_BONUS_KINDS):
            _BONUS_LEN[b][k] = len(_PY_BONUS[b][k])
            for i in range(_BONUS_LEN[b][k]):
                _BONUS[b][k][i] = _PY_BONUS[b][k][i]


cdef int token_value(int good, int i) noexcept nogil:
    return _TOKENS[good][i]


cdef int token_len(int good) noexcept nogil:
    return _TOKEN_LEN[good]


cdef int card_total(int card) noexcept nogil:
    return _CARDS[card]


cdef void bonus_values(int bonus_set, int kind, uint8_t* out, uint8_t* n) noexcept nogil:
    cdef int i
    n[0] = _BONUS_LEN[bonus_set][kind]
    for i in range(n[0]):
        out[i] = _BONUS[bonus_set][kind][i]

# ---------------------------------------------------------------------------
# Action ids: ranks of count vectors (docs/notation.md, "Action ids").
# A taken vector (6 counts) or given vector (7 counts) is keyed by its base-6
# code, first type most significant; ascending code order is lexicographic order.
# ---------------------------------------------------------------------------
DEF POW6_6 = 46656
DEF POW6_7 = 279936

cdef uint16_t _RANK6[POW6_6]
cdef uint16_t _RANK7[POW6_7]
cdef int32_t _UNRANK6[6][252]
cdef int32_t _UNRANK7[6][462]
cdef int32_t _NT[6]
cdef int32_t _NG[6]
cdef int32_t _OFF[7]


cdef void _init_ranks():
    cdef int32_t code, c, s, k, i
    cdef int32_t cnt6[6]
    cdef int32_t cnt7[6]
    for k in range(6):
        cnt6[k] = 0
        cnt7[k] = 0
    for code in range(POW6_6):
        s = 0
        c = code
        for i in range(6):
            s += c % 6
            c //= 6
        _RANK6[code] = 0xFFFF
        if 2 <= s <= 5:
            _RANK6[code] = cnt6[s]
            _UNRANK6[s][cnt6[s]] = code
            cnt6[s] += 1
    for code in range(POW6_7):
        s = 0
        c = code
        for i in range(7):
            s += c % 6
            c //= 6
        _RANK7[code] = 0xFFFF
        if 2 <= s <= 5:
            _RANK7[code] = cnt7[s]
            _UNRANK7[s][cnt7[s]] = code
            cnt7[s] += 1
    _OFF[2] = 0
    for k in range(2, 6):
        _NT[k] = cnt6[k]
        _NG[k] = cnt7[k]
        _OFF[k + 1] = _OFF[k] + _NT[k] * _NG[k]
    assert ACTION_SWAP0 + _OFF[6] == N_ACTIONS


_init_figures()
_init_ranks()

# ---------------------------------------------------------------------------
# Random numbers: xorshift64* seeded through splitmix64.
# ---------------------------------------------------------------------------
cdef void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    cdef uint64_t z = seed + <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    z = z ^ (z >> 31)
    if z == 0:
        z = <uint64_t>0x9E3779B97F4A7C15
    r.s = z


cdef inline uint64_t _next(Rng* r) noexcept nogil:
    cdef uint64_t x = r.s
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    r.s = x
    return x * <uint64_t>0x2545F4914F6CDD1D


cdef uint64_t rng_next(Rng* r) noexcept nogil:
    return _next(r)


cdef inline uint32_t _below(Rng* r, uint32_t n) noexcept nogil:
    # Lemire's multiply-shift; the bias for n < 2**16 is below 2**-16.
    return <uint32_t>(((_next(r) >> 32) * <uint64_t>n) >> 32)


cdef uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    return _below(r, n)


cdef double rng_unit(Rng* r) noexcept nogil:
    return (_next(r) >> 11) * (1.0 / 9007199254740992.0)


cdef inline void _shuffle(uint8_t* a, int n, Rng* r) noexcept nogil:
    cdef int i, j
    cdef uint8_t t
    i = n - 1
    while i > 0:
        j = _below(r, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
        i -= 1

# ---------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------
cdef void deal_round(State* s, Rng* r, int starter) noexcept nogil:
    """Deal a fresh round, keeping round_no, seals and bonus_set."""
    cdef int g, i, k, p, c
    cdef uint8_t n
    memset(s.market, 0, sizeof(s.market))
    memset(s.hand, 0, sizeof(s.hand))
    memset(s.herd, 0, sizeof(s.herd))
    memset(s.known, 0, sizeof(s.known))
    memset(s.discard, 0, sizeof(s.discard))
    memset(s.tok_pos, 0, sizeof(s.tok_pos))
    memset(s.tok_owner, 0, sizeof(s.tok_owner))
    memset(s.bonus, 0, sizeof(s.bonus))
    memset(s.bonus_pos, 0, sizeof(s.bonus_pos))
    memset(s.bonus_owner, 0, sizeof(s.bonus_owner))
    s.goods_pts[0] = s.goods_pts[1] = 0
    s.bonus_pts[0] = s.bonus_pts[1] = 0
    s.n_goods_tok[0] = s.n_goods_tok[1] = 0
    s.n_bonus_tok[0] = s.n_bonus_tok[1] = 0
    # Three camels face up, the other 52 cards shuffled.
    s.market[CAMEL] = 3
    s.deck_len = 0
    for c in range(N_TYPES):
        n = _CARDS[c] - (3 if c == CAMEL else 0)
        for i in range(n):
            s.deck[s.deck_len] = c
            s.deck_len += 1
    _shuffle(s.deck, s.deck_len, r)
    # Five cards each (camels to the herd), then two to the market.
    for p in range(2):
        for i in range(5):
            s.deck_len -= 1
            c = s.deck[s.deck_len]
            if c == CAMEL:
                s.herd[p] += 1
            else:
                s.hand[p][c] += 1
    for i in range(2):
        s.deck_len -= 1
        s.market[s.deck[s.deck_len]] += 1
    for k in range(N_BONUS_KINDS):
        bonus_values(s.bonus_set, k, s.bonus[k], &n)
        s.bonus_len[k] = n
        _shuffle(s.bonus[k], n, r)
    s.starter = starter
    s.to_move = starter
    s.result = RESULT_NONE


cdef void new_match(State* s, Rng* r, int starter, int bonus_set) noexcept nogil:
    memset(s, 0, sizeof(State))
    s.round_no = 1
    s.bonus_set = bonus_set
    deal_round(s, r, starter)

# ---------------------------------------------------------------------------
# Move generation
# ---------------------------------------------------------------------------
cdef inline int hand_size(const State* s, int p) noexcept nogil:
    cdef const uint8_t* h = s.hand[p]
    return h[0] + h[1] + h[2] + h[3] + h[4] + h[5]


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
        nth_move(s, &q, _below(r, n), out)
    return n


cdef int32_t action_of(const Move* m) noexcept nogil:
    cdef int32_t ct = 0, cg = 0
    cdef int i
    if m.kind == MOVE_TAKE:
        return ACTION_TAKE0 + m.good
    if m.kind == MOVE_CAMELS:
        return ACTION_CAMELS
    if m.kind == MOVE_SELL:
        return ACTION_SELL0 + m.good * 7 + m.count - 1
    for i in range(N_GOODS):
        ct = ct * 6 + m.take[i]
    for i in range(N_TYPES):
        cg = cg * 6 + m.give[i]
    return ACTION_SWAP0 + _OFF[m.count] + <int32_t>_RANK6[ct] * _NG[m.count] + _RANK7[cg]


cdef int move_of(int32_t a, Move* m) noexcept nogil:
    cdef int32_t k, r, rt, rg, code, i
    memset(m, 0, sizeof(Move))
    if a < 0 or a >= N_ACTIONS:
        return -1
    if a < ACTION_CAMELS:
        m.kind = MOVE_TAKE
        m.good = a
        m.count = 1
        return 0
    if a == ACTION_CAMELS:
        m.kind = MOVE_CAMELS
        return 0
    if a < ACTION_SWAP0:
        m.kind = MOVE_SELL
        m.good = (a - ACTION_SELL0) // 7
        m.count = (a - ACTION_SELL0) % 7 + 1
        return -1 if (m.good < 3 and m.count < 2) else 0
    r = a - ACTION_SWAP0
    k = 2
    while r >= _OFF[k + 1]:
        k += 1
    r -= _OFF[k]
    rt = r // _NG[k]
    rg = r % _NG[k]
    m.kind = MOVE_SWAP
    m.count = k
    code = _UNRANK6[k][rt]
    for i in range(N_GOODS - 1, -1, -1):
        m.take[i] = code % 6
        code //= 6
    code = _UNRANK7[k][rg]
    for i in range(N_TYPES - 1, -1, -1):
        m.give[i] = code % 6
        code //= 6
    for i in range(N_GOODS):
        if m.take[i] and m.give[i]:
            return -1
    return 0


cdef bint is_legal(const State* s, const Move* m) noexcept nogil:
    cdef Move buf[MAX_MOVES]
    cdef int n = gen_moves(s, buf), i
    cdef int32_t a = action_of(m)
    for i in range(n):
        if action_of(&buf[i]) == a:
            return True
    return False


cdef int cards_to_draw(const State* s, const Move* m) noexcept nogil:
    if m.kind == MOVE_TAKE:
        return 1
    if m.kind == MOVE_CAMELS:
        return s.market[CAMEL]
    return 0

# ---------------------------------------------------------------------------
# Applying a move; end of round
# ---------------------------------------------------------------------------
cdef int tokens_left(const State* s, int good) noexcept nogil:
    return _TOKEN_LEN[good] - s.tok_pos[good]


cdef int empty_stacks(const State* s) noexcept nogil:
    cdef int g, n = 0
    for g in range(N_GOODS):
        if s.tok_pos[g] >= _TOKEN_LEN[g]:
            n += 1
    return n


cdef void round_totals(const State* s, int* totals) noexcept nogil:
    totals[0] = s.goods_pts[0] + s.bonus_pts[0]
    totals[1] = s.goods_pts[1] + s.bonus_pts[1]
    if s.herd[0] > s.herd[1]:
        totals[0] += CAMEL_TOKEN
    elif s.herd[1] > s.herd[0]:
        totals[1] += CAMEL_TOKEN


cdef int round_winner(const State* s) noexcept nogil:
    cdef int t[2]
    round_totals(s, t)
    if t[0] != t[1]:
        return 0 if t[0] > t[1] else 1
    if s.n_bonus_tok[0] != s.n_bonus_tok[1]:
        return 0 if s.n_bonus_tok[0] > s.n_bonus_tok[1] else 1
    if s.n_goods_tok[0] != s.n_goods_tok[1]:
        return 0 if s.n_goods_tok[0] > s.n_goods_tok[1] else 1
    return RESULT_DRAW


cdef inline void _end_round(State* s) noexcept nogil:
    cdef int w = round_winner(s)
    s.result = w
    if w != RESULT_DRAW:
        s.seals[w] += 1


cdef inline void _refill(State* s, int gaps) noexcept nogil:
    cdef int i
    if s.deck_len < gaps:
        _end_round(s)
        return
    for i in range(gaps):
        s.deck_len -= 1
        s.market[s.deck[s.deck_len]] += 1


cdef void apply_move(State* s, const Move* m) noexcept nogil:
    """Apply a legal move of the player to move (legality is the caller's job)."""
    cdef int p = s.to_move, g, n, i, k, v
    cdef uint8_t kn
    if m.kind == MOVE_TAKE:
        g = m.good
        s.market[g] -= 1
        s.hand[p][g] += 1
        s.known[p][g] += 1
        _refill(s, 1)
    elif m.kind == MOVE_CAMELS:
        n = s.market[CAMEL]
        s.herd[p] += n
        s.market[CAMEL] = 0
        _refill(s, n)
    elif m.kind == MOVE_SELL:
        g = m.good
        n = m.count
        s.hand[p][g] -= n
        s.discard[g] += n
        kn = s.known[p][g]
        s.known[p][g] = kn - n if kn > n else 0
        for i in range(n):
            if s.tok_pos[g] >= _TOKEN_LEN[g]:
                break
            v = _TOKENS[g][s.tok_pos[g]]
            if p:
                s.tok_owner[g] |= <uint16_t>(1 << s.tok_pos[g])
            s.tok_pos[g] += 1
            s.goods_pts[p] += v
            s.n_goods_tok[p] += 1
        if n >= 3:
            k = (n if n < 5 else 5) - 3
            if s.bonus_pos[k] < s.bonus_len[k]:
                v = s.bonus[k][s.bonus_pos[k]]
                if p:
                    s.bonus_owner[k] |= <uint8_t>(1 << s.bonus_pos[k])
                s.bonus_pos[k] += 1
                s.bonus_pts[p] += v
                s.n_bonus_tok[p] += 1
        if empty_stacks(s) >= 3:
            _end_round(s)
    else:
        for g in range(N_GOODS):
            s.market[g] += m.give[g]
            s.market[g] -= m.take[g]
            s.hand[p][g] += m.take[g]
            s.hand[p][g] -= m.give[g]
            kn = s.known[p][g] + m.take[g]
            s.known[p][g] = kn - m.give[g] if kn > m.give[g] else 0
        s.market[CAMEL] += m.give[CAMEL]
        s.herd[p] -= m.give[CAMEL]
    s.to_move = 1 - p


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
# Information sets
# ---------------------------------------------------------------------------
cdef void make_view(const State* s, int observer, View* v) noexcept nogil:
    """Mask everything `observer` cannot see (docs/rules.md, section 7, R8)."""
    cdef int opp = 1 - observer, k, i, owner
    memcpy(&v.s, s, sizeof(State))
    v.observer = observer
    v.opp_hand_n = hand_size(s, opp)
    memcpy(v.s.hand[opp], s.known[opp], N_GOODS)
    memset(v.s.deck, 0, sizeof(v.s.deck))
    for k in range(N_BONUS_KINDS):
        for i in range(v.s.bonus_len[k]):
            owner = (s.bonus_owner[k] >> i) & 1
            if i >= s.bonus_pos[k] or owner == opp:
                v.s.bonus[k][i] = 0
    v.s.bonus_pts[opp] = 0


cdef int sample_view(const View* v, State* out, Rng* r) noexcept nogil:
    """A full state drawn uniformly among those consistent with the view.

    Unseen cards: the unknown slots of the opponent's hand take a uniform subset
    of the unseen goods, the deck the rest (camels included) in uniform order.
    Unseen bonus values fill the opponent's bonus tokens and the stacks.
    Returns -1 (and leaves out undefined) when the view is inconsistent.
    """
    return sample_view_hand(v, NULL, out, r)


cdef int sample_view_hand(const View* v, const uint8_t* unknown_goods, State* out,
                          Rng* r) noexcept nogil:
    """sample_view, with the unknown slots of the opponent's hand holding exactly
    ``unknown_goods`` (N_GOODS counts) when it is not NULL: the deck is then the
    rest of the unseen cards in uniform order.  -1 when those goods do not fit the
    view (not as many as the unknown slots, or more of a good than is unseen)."""
    cdef int obs = v.observer, opp = 1 - v.observer
    cdef int pool[N_TYPES]
    cdef uint8_t goods[N_CARDS]
    cdef uint8_t vals[MAX_BONUS]
    cdef uint8_t full[MAX_BONUS]
    cdef uint8_t nfull
    cdef int g, i, j, n_goods = 0, unknown, nvals, k, owner, need
    memcpy(out, &v.s, sizeof(State))
    for g in range(N_TYPES):
        pool[g] = _CARDS[g] - v.s.market[g]
    for g in range(N_GOODS):
        pool[g] -= v.s.hand[0][g] + v.s.hand[1][g] + v.s.discard[g]
    pool[CAMEL] -= v.s.herd[0] + v.s.herd[1]
    for g in range(N_TYPES):
        if pool[g] < 0:
            return -1
    unknown = v.opp_hand_n - hand_size(&v.s, opp)
    if unknown < 0:
        return -1
    for g in range(N_GOODS):
        for i in range(pool[g]):
            goods[n_goods] = g
            n_goods += 1
    if n_goods < unknown or n_goods - unknown + pool[CAMEL] != v.s.deck_len:
        return -1
    if unknown_goods != NULL:
        # the given hand: those goods leave the unseen list, which keeps its order
        need = 0
        for g in range(N_GOODS):
            need += unknown_goods[g]
            if unknown_goods[g] > pool[g]:
                return -1
            out.hand[opp][g] += unknown_goods[g]
        if need != unknown:
            return -1
        n_goods = unknown              # the deck is read from goods[unknown:]
        for g in range(N_GOODS):
            for i in range(pool[g] - unknown_goods[g]):
                goods[n_goods] = g
                n_goods += 1
    else:
        # A partial Fisher-Yates picks the hand cards uniformly ...
        for i in range(unknown):
            j = i + _below(r, n_goods - i)
            g = goods[i]
            goods[i] = goods[j]
            goods[j] = g
            out.hand[opp][goods[i]] += 1
    # ... and the deck is the rest, camels included, in uniform order.
    j = 0
    for i in range(unknown, n_goods):
        out.deck[j] = goods[i]
        j += 1
    for i in range(pool[CAMEL]):
        out.deck[j] = CAMEL
        j += 1
    _shuffle(out.deck, j, r)
    # Bonus values: the full set less those the observer holds.
    out.bonus_pts[opp] = 0
    for k in range(N_BONUS_KINDS):
        bonus_values(v.s.bonus_set, k, full, &nfull)
        nvals = 0
        for i in range(nfull):
            vals[i] = full[i]
        nvals = nfull
        for i in range(v.s.bonus_pos[k]):
            owner = (v.s.bonus_owner[k] >> i) & 1
            if owner == obs:
                for j in range(nvals):
                    if vals[j] == v.s.bonus[k][i]:
                        vals[j] = vals[nvals - 1]
                        nvals -= 1
                        break
                else:
                    return -1
        _shuffle(vals, nvals, r)
        j = 0
        for i in range(v.s.bonus_len[k]):
            owner = (v.s.bonus_owner[k] >> i) & 1
            if i >= v.s.bonus_pos[k] or owner == opp:
                if j >= nvals:
                    return -1
                out.bonus[k][i] = vals[j]
                j += 1
                if i < v.s.bonus_pos[k]:
                    out.bonus_pts[opp] += vals[j - 1]
    return 0

# ---------------------------------------------------------------------------
# Python hooks for tests and benchmarks (the Python objects over the C state,
# CoreState and CoreView, are in _bridge.pyx).
# ---------------------------------------------------------------------------
N_ACTIONS_PY = N_ACTIONS


def move_to_action(int kind, int good, int count, take, give):
    """Action id of a move given by its fields (no legality check)."""
    cdef Move m
    cdef int i
    memset(&m, 0, sizeof(Move))
    m.kind = kind
    m.good = good
    m.count = count
    if kind == MOVE_SWAP:
        for i in range(N_GOODS):
            m.take[i] = take[i]
        for i in range(N_TYPES):
            m.give[i] = give[i]
    return action_of(&m)


def action_to_move(int32_t action):
    """(kind, good, count, take, give) of an action id, or None if it is no move."""
    cdef Move m
    if move_of(action, &m) != 0:
        return None
    return (m.kind, m.good, m.count, tuple(m.take[i] for i in range(N_GOODS)),
            tuple(m.give[i] for i in range(N_TYPES)))


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
                    nth_move(&s, &q, _below(&r, n), &m)
                    apply_move(&s, &m)
                else:
                    n = gen_moves(&s, buf)
                    apply_move(&s, &buf[_below(&r, n)])
                moves += n
                plies += 1
    return plies, moves

# cython: language_level=3
"""The compiled rules core: the figures, action ids, random numbers, applying a move,
the end of the round and scoring.  See _core.pxd for the C-level interface (with the
inline helpers every rules module shares); the legal moves are in _movegen.pyx, the
deal and the information sets in _dealing.pyx.

Nothing in the functions marked ``nogil`` touches a Python object; the Python objects
over the C state, CoreState and CoreView, are in _bridge.pyx.
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


cdef uint64_t rng_next(Rng* r) noexcept nogil:
    return xorshift_next(r)


cdef uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    return fast_below(r, n)


cdef double rng_unit(Rng* r) noexcept nogil:
    return (xorshift_next(r) >> 11) * (1.0 / 9007199254740992.0)


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

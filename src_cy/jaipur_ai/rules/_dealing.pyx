# cython: language_level=3
"""Dealing: the cards of a new round (and match), and what one player sees of a
position: its view (``make_view``) and the full states consistent with that view
(``sample_view``, ``sample_view_hand``).  See _dealing.pxd."""
from libc.string cimport memset, memcpy
from libc.stdint cimport uint8_t, uint16_t, int16_t, int32_t, uint32_t, uint64_t

from jaipur_ai.rules._core cimport (CAMEL, MAX_BONUS, N_BONUS_KINDS, N_CARDS, N_GOODS, N_TYPES,
                                    RESULT_NONE, bonus_values, card_total, fast_below,
                                    hand_size, rng_seed, shuffle_cards)


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
        n = card_total(c) - (3 if c == CAMEL else 0)
        for i in range(n):
            s.deck[s.deck_len] = c
            s.deck_len += 1
    shuffle_cards(s.deck, s.deck_len, r)
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
        shuffle_cards(s.bonus[k], n, r)
    s.starter = starter
    s.to_move = starter
    s.result = RESULT_NONE


cdef void new_match(State* s, Rng* r, int starter, int bonus_set) noexcept nogil:
    memset(s, 0, sizeof(State))
    s.round_no = 1
    s.bonus_set = bonus_set
    deal_round(s, r, starter)


cdef void deal_match(State* s, Rng* r, uint64_t seed, int starter, int bonus_set) noexcept nogil:
    rng_seed(r, seed)
    new_match(s, r, starter, bonus_set)


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
        pool[g] = card_total(g) - v.s.market[g]
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
            j = i + fast_below(r, n_goods - i)
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
    shuffle_cards(out.deck, j, r)
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
        shuffle_cards(vals, nvals, r)
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

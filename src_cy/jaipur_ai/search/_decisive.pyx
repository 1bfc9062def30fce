# cython: language_level=3
"""Moves that end the round at once.

In one full state (a sampled world) a round-ending move is scored exactly, and a move
that lets the opponent end the round and win is found by trying the opponent's
round-ending replies.  At the root, where the hidden cards are unknown, the same
checks run over sampled worlds of the observer's view: ``decisive_table`` for the
moves that end the round, ``danger_rates`` for the others.  docs/search.md,
"Round-ending moves", describes how the searchers use them.
"""
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from jaipur_ai.rules._core cimport (Rng, N_GOODS, CAMEL, HAND_LIMIT, MAX_MOVES, MOVE_TAKE,
                                    MOVE_CAMELS, MOVE_SELL, RESULT_NONE, RESULT_DRAW, apply_move,
                                    action_of, round_totals, round_winner, rng_seed)
from jaipur_ai.rules._movegen cimport gen_moves
from jaipur_ai.search._figures cimport Figures, figures, hand_count, n_empty
from jaipur_ai.search._worlds cimport HandPrior, sample_world, mix

cdef const Figures* F = figures()


cdef bint out_of_time(int j, double deadline, volatile int* stop) noexcept nogil:
    """Before sample j: has the stop flag been set, or the deadline passed?  (The clock
    is read every 16 samples, never before the first.)"""
    cdef timespec ts
    if j == 0 or (j & 15) != 0:
        return False
    if stop != NULL and stop[0]:
        return True
    if deadline >= 0.0:
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return <double>ts.tv_sec + <double>ts.tv_nsec * 1e-9 >= deadline
    return False


cdef bint ends_round(const State* s, const Move* m) noexcept nogil:
    """Does the move end the round at once?  Uses public facts only."""
    cdef int g
    if m.kind == MOVE_TAKE:
        return s.deck_len < 1
    if m.kind == MOVE_CAMELS:
        return s.deck_len < s.market[CAMEL]
    if m.kind == MOVE_SELL:
        g = m.good
        return (s.tok_pos[g] < F.toklen[g] and s.tok_pos[g] + m.count >= F.toklen[g]
                and n_empty(F, s) == 2)
    return False


cdef bint empties_stack(const State* s, const Move* m) noexcept nogil:
    """Is m a sale that takes the last goods token of its stack?"""
    return (m.kind == MOVE_SELL and s.tok_pos[m.good] < F.toklen[m.good]
            and s.tok_pos[m.good] + m.count >= F.toklen[m.good])


cdef bint any_end_possible(const State* s) noexcept nogil:
    return s.deck_len < 5 or n_empty(F, s) >= 2


cdef double outcome(const State* s, int p, double* margin) noexcept nogil:
    """1 / 0.5 / 0 for player p, with the totals' margin (round scored as it stands)."""
    cdef int t[2]
    cdef int w
    w = s.result if s.result != RESULT_NONE else round_winner(s)
    round_totals(s, t)
    margin[0] = t[p] - t[1 - p]
    if w == p:
        return 1.0
    if w == RESULT_DRAW:
        return 0.5
    return 0.0


cdef double end_score(const State* s, const Move* m) noexcept nogil:
    """Exact value of a round-ending move in a full state: +1000 win, -1000 loss, 0 draw."""
    cdef State t
    cdef double mg
    cdef double w
    memcpy(&t, s, sizeof(State))
    apply_move(&t, m)
    w = outcome(&t, s.to_move, &mg)
    return (w - 0.5) * 2000.0 + mg


cdef bint opp_wins_now(const State* t) noexcept nogil:
    """In a full state, can the player to move end the round at once and win it?

    Checks only round-ending moves: a take when the deck is empty (it changes no
    score), taking camels that cannot be refilled, and a sale emptying the third
    goods-token stack (all cards of that good, for the biggest bonus)."""
    cdef int q = t.to_move, g, left
    cdef Move m
    if t.result != RESULT_NONE:
        return False
    if t.deck_len == 0 and hand_count(t, q) < HAND_LIMIT:
        for g in range(N_GOODS):
            if t.market[g]:
                return round_winner(t) == q
    if t.market[CAMEL] and t.deck_len < t.market[CAMEL]:
        memset(&m, 0, sizeof(Move))
        m.kind = MOVE_CAMELS
        if end_score(t, &m) > 500.0:
            return True
    if n_empty(F, t) == 2:
        for g in range(N_GOODS):
            left = F.toklen[g] - t.tok_pos[g]
            if left > 0 and t.hand[q][g] >= left and t.hand[q][g] >= F.minsale[g]:
                memset(&m, 0, sizeof(Move))
                m.kind = MOVE_SELL
                m.good = g
                m.count = t.hand[q][g]
                if end_score(t, &m) > 500.0:
                    return True
    return False


cdef bint gives_opp_win(const State* s, const Move* m) noexcept nogil:
    """After move m (which does not end the round), can the opponent end it and win?"""
    cdef State t
    memcpy(&t, s, sizeof(State))
    apply_move(&t, m)
    if not any_end_possible(&t):
        return False
    return opp_wins_now(&t)


# ---------------------------------------------------------------------------
# Over sampled worlds of the root
# ---------------------------------------------------------------------------
cdef dict decisive_table(const View* v, const State* truth, bint cheat, int samples,
                         uint64_t seed, double deadline=-1.0, volatile int* stop=NULL,
                         const HandPrior* prior=NULL):
    """For each root move that ends the round: [samples, wins, draws, losses, margin sum]
    over `samples` determinizations (one, the truth, with perfect information), drawn
    with the opponent's hand prior when one is given."""
    cdef Move buf[MAX_MOVES]
    cdef int ends[MAX_MOVES]
    cdef int stats[MAX_MOVES][4]
    cdef double msum[MAX_MOVES]
    cdef int n, i, j, any_end = 0, obs = v.observer, bad = 0
    cdef State d, t
    cdef Rng r
    cdef double w, mg
    n = gen_moves(&v.s, buf)
    for i in range(n):
        ends[i] = ends_round(&v.s, &buf[i])
        any_end |= ends[i]
        stats[i][0] = stats[i][1] = stats[i][2] = stats[i][3] = 0
        msum[i] = 0.0
    if not any_end:
        return {}
    if cheat:
        samples = 1
    rng_seed(&r, mix(seed ^ <uint64_t>0x5DEECE66D))
    with nogil:
        for j in range(samples):
            if out_of_time(j, deadline, stop):
                break
            if sample_world(v, truth, cheat, prior, &d, &r) != 0:
                bad = 1
                break
            for i in range(n):
                if ends[i]:
                    memcpy(&t, &d, sizeof(State))
                    apply_move(&t, &buf[i])
                    w = outcome(&t, obs, &mg)
                    stats[i][0] += 1
                    if w == 1.0:
                        stats[i][1] += 1
                    elif w == 0.5:
                        stats[i][2] += 1
                    else:
                        stats[i][3] += 1
                    msum[i] += mg
    if bad:
        raise ValueError("the view is inconsistent: no full state matches it")
    return {action_of(&buf[i]): [stats[i][0], stats[i][1], stats[i][2], stats[i][3], msum[i]]
            for i in range(n) if ends[i]}


cdef list danger_rates(const View* v, const State* truth, bint cheat, int samples,
                       uint64_t seed, Move* buf, int n, double deadline=-1.0,
                       volatile int* stop=NULL):
    """For each root move that does not end the round: the share of `samples` sampled
    worlds in which the opponent can answer it by ending the round and winning."""
    cdef int i, j, ne, bad = 0, done = 0
    cdef int hits[MAX_MOVES]
    cdef int check[MAX_MOVES]
    cdef bint any_check = False
    cdef State d
    cdef Rng r
    ne = n_empty(F, &v.s)
    for i in range(n):
        hits[i] = 0
        check[i] = (not ends_round(&v.s, &buf[i]) and
                    (v.s.deck_len < 10 or ne >= 2 or (ne == 1 and empties_stack(&v.s, &buf[i]))))
        if check[i]:
            any_check = True
    if not any_check:
        return [0.0] * n
    if cheat:
        samples = 1
    if samples < 1:
        samples = 1
    rng_seed(&r, mix(seed ^ <uint64_t>0xA5A5A5A5A5A5A5A5))
    with nogil:
        for j in range(samples):
            if out_of_time(j, deadline, stop):
                break
            if sample_world(v, truth, cheat, NULL, &d, &r) != 0:
                bad = 1
                break
            for i in range(n):
                if check[i] and gives_opp_win(&d, &buf[i]):
                    hits[i] += 1
            done += 1
    if bad:
        raise ValueError("the view is inconsistent: no full state matches it")
    if done < 1:
        done = 1
    return [hits[i] / <double>done for i in range(n)]


def decisive_kind(st):
    """'win' when a round-ending move won in every sample, 'loss' when it lost in every one."""
    if st is None or st[0] == 0:
        return None
    if st[1] == st[0]:
        return "win"
    if st[3] == st[0]:
        return "loss"
    return "mixed"


def rank_children(children):
    """Sort root-child dicts best first (in place and returned).

    Order: round-ending moves that won in every sampled world first, round-ending
    moves that lost in every one last (unless nothing else is legal); otherwise by
    visits, then mean value, then lowest action id."""
    def key(c):
        d = c.get("decisive")
        cls = 0 if d == "win" else (2 if d == "loss" else 1)
        return (cls, -c["visits"], -c["value"], c["action"])
    children.sort(key=key)
    return children

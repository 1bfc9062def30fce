/* The speed limit of the rules core's random-round benchmark, in plain C.

   Usage:  limit enumerate|count ROUNDS SEED
   Prints: plies moves seconds      (one line; seconds of the rounds only)

   Same workload as jaipur_ai._core.bench_random_rounds: round i is dealt from seed + i
   with starter i % 2, then at every ply every legal move is enumerated, one is picked
   uniformly (one draw of the same xorshift64* stream) and applied, until the round
   ends.  The deal, the random numbers and the ORDER of the legal moves are the core's,
   so both programs play the very same rounds: bench/bench_core.py checks that the
   plies and the legal moves summed over all plies agree before it compares speeds.

   Only the rules that decide which moves are legal and when a round ends are here
   (market, hands, herds, deck, goods-token stacks); scores, bonus values, seals and
   the known cards are left out (the bonus stacks are still shuffled so that the random
   stream stays the core's).

   "enumerate" writes every legal move into a buffer and applies the chosen one;
   "count" counts the legal moves, draws the index, and builds only that move.
   bench/bench_core.py compiles this file with the system C compiler (cc -O3). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N_GOODS = 6, CAMEL = 6, HAND_LIMIT = 7, MAX_MOVES = 1024, MAX_K = 5 };
enum { TAKE = 0, CAMELS = 1, SELL = 2, SWAP = 3 };

static const uint8_t CARDS[7] = {6, 6, 6, 8, 8, 10, 11};
static const uint8_t TOKENS[6] = {5, 5, 5, 7, 7, 9};   /* goods tokens per stack */
static const uint8_t BONUS_LEN[3] = {7, 6, 5};

/* One move, 16 bytes: the core's Move struct. */
typedef struct {
    uint8_t kind, good, count, take[6], give[7];
} Move;

typedef struct {
    uint8_t market[7], hand[2][6], herd[2], deck[55], deck_len, tok_pos[6], to_move, over;
} S;

/* ---- random numbers: splitmix64 seeding, xorshift64*, Lemire's multiply-shift ---- */
static uint64_t rng;

static void seed(uint64_t x) {
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    rng = z ? z : 0x9E3779B97F4A7C15ull;
}

static inline uint32_t below(uint32_t n) {
    uint64_t x = rng;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng = x;
    return (uint32_t)((((x * 0x2545F4914F6CDD1Dull) >> 32) * n) >> 32);
}

static void shuffle(uint8_t* a, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = below(i + 1);
        uint8_t t = a[i]; a[i] = a[j]; a[j] = t;
    }
}

static void deal(S* s, int starter) {
    uint8_t bonus[7] = {0};
    memset(s, 0, sizeof *s);
    s->market[CAMEL] = 3;
    for (int c = 0; c < 7; c++)
        for (int i = 0; i < CARDS[c] - (c == CAMEL ? 3 : 0); i++) s->deck[s->deck_len++] = c;
    shuffle(s->deck, s->deck_len);
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 5; i++) {
            int c = s->deck[--s->deck_len];
            if (c == CAMEL) s->herd[p]++; else s->hand[p][c]++;
        }
    for (int i = 0; i < 2; i++) s->market[s->deck[--s->deck_len]]++;
    for (int k = 0; k < 3; k++) shuffle(bonus, BONUS_LEN[k]);   /* values do not matter */
    s->to_move = starter;
}

/* ---- applying a move ---- */
static void refill(S* s, int gaps) {
    if (s->deck_len < gaps) { s->over = 1; return; }
    while (gaps--) s->market[s->deck[--s->deck_len]]++;
}

static void apply(S* s, const Move* m) {
    int p = s->to_move;
    if (m->kind == TAKE) {
        s->market[m->good]--; s->hand[p][m->good]++;
        refill(s, 1);
    } else if (m->kind == CAMELS) {
        int n = s->market[CAMEL];
        s->herd[p] += n; s->market[CAMEL] = 0;
        refill(s, n);
    } else if (m->kind == SELL) {
        int g = m->good, left = TOKENS[g] - s->tok_pos[g], empty = 0;
        s->hand[p][g] -= m->count;
        s->tok_pos[g] += m->count < left ? m->count : left;
        for (int i = 0; i < N_GOODS; i++) empty += s->tok_pos[i] >= TOKENS[i];
        if (empty >= 3) s->over = 1;
    } else {
        for (int g = 0; g < N_GOODS; g++) {
            s->market[g] += m->give[g] - m->take[g];
            s->hand[p][g] += m->take[g] - m->give[g];
        }
        s->market[CAMEL] += m->give[CAMEL];
        s->herd[p] -= m->give[CAMEL];
    }
    s->to_move ^= 1;
}

/* ---- what both modes share: the take vectors ----
   An exchange takes k >= 2 goods of the market (a take vector) and gives back k cards:
   goods of the hand the player does not take, and camels of the herd (at most as many
   as keep the hand within 7).  The core's order: take vectors in odometer order over
   the market's goods (the first good counting fastest); for each, the give vectors in
   descending lexicographic order over (goods..., camels).  The take vectors of each
   market (its goods: 462 kinds, at most 5 cards) are listed once, at start-up. */
typedef struct {
    uint64_t lo;            /* bytes 0..7 of the Move: kind, good, count, take[0..4] */
    uint8_t t5, k, tm;      /* take[5]; cards taken; goods taken, one bit each */
} Take;

static Take* takes;
static uint16_t take_first[46656];
static uint8_t take_n[46656];

static inline int market_key(const uint8_t* m) {
    return m[0] + 6 * (m[1] + 6 * (m[2] + 6 * (m[3] + 6 * (m[4] + 6 * m[5]))));
}

static void init_takes(void) {
    int total = 0;
    takes = malloc(16384 * sizeof(Take));
    for (int key = 0; key < 46656; key++) {
        uint8_t m[6], t[6] = {0};
        int c = key, sum = 0, nm = 0, mt[6];
        for (int g = 0; g < 6; g++) { m[g] = c % 6; c /= 6; sum += m[g]; }
        take_first[key] = (uint16_t)total;
        take_n[key] = 0;
        if (sum > 5) continue;
        for (int g = 0; g < 6; g++) if (m[g]) mt[nm++] = g;
        for (;;) {
            int i;
            for (i = 0; i < nm; i++) {
                if (t[mt[i]] < m[mt[i]]) { t[mt[i]]++; break; }
                t[mt[i]] = 0;
            }
            if (i == nm) break;
            int k = t[0] + t[1] + t[2] + t[3] + t[4] + t[5];
            if (k < 2) continue;
            Take* e = &takes[total++];
            e->lo = SWAP | (uint64_t)k << 16;
            for (int g = 0; g < 5; g++) e->lo |= (uint64_t)t[g] << (8 * (3 + g));
            e->t5 = t[5];
            e->k = (uint8_t)k;
            e->tm = 0;
            for (int g = 0; g < 6; g++) e->tm |= (uint8_t)((t[g] != 0) << g);
            take_n[key]++;
        }
    }
}

/* ---- enumerate ----
   The give vectors depend on the take only through its size k and which of the hand's
   goods it takes (A), so each (A, k) list is built once, by a depth-first walk over the
   goods not taken straight into the output, and copied for the next take with the same
   (A, k), with that take's counts put in.  A move is two 64-bit words: lo holds kind,
   good, count and take[0..4], hi take[5] and give[0..6]. */
typedef struct {
    uint8_t act[6], cap[6];     /* goods that can be given and how many */
    int suf[7];                 /* suffix sums of cap, camels included */
    int na;
    uint64_t lo, hi0;
    Move* out;
    int n;
} Walk;

static void walk(Walk* w, int i, int left, uint64_t hi) {
    int hi_c = w->cap[i] < left ? w->cap[i] : left;
    int lo_c = left - w->suf[i + 1];
    if (lo_c < 0) lo_c = 0;
    int sh = 8 * (1 + w->act[i]);
    if (i == w->na - 1) {
        /* last good: the camels take the rest; six slots written, the ones in range kept */
        for (int j = 0; j < 6; j++) {
            int c = hi_c - j;
            uint64_t v[2] = {w->lo, hi | (uint64_t)(uint8_t)c << sh | (uint64_t)(uint8_t)(left - c) << 56};
            memcpy(&w->out[w->n + j], v, 16);
        }
        w->n += hi_c - lo_c + 1;
        return;
    }
    for (int c = hi_c; c >= lo_c; c--)
        walk(w, i + 1, left - c, hi | (uint64_t)c << sh);
}

static Move SELLS[6][8];         /* the sales of each good, 2 (or 1) cards upwards */

static void init_sells(void) {
    for (int g = 0; g < N_GOODS; g++)
        for (int j = 0; j < 8; j++) {
            Move m = {SELL, (uint8_t)g, (uint8_t)((g < 3 ? 2 : 1) + j), {0}, {0}};
            SELLS[g][j] = m;
        }
}

static int gen(const S* s, Move* out) {
    int p = s->to_move, n = 0;
    const uint8_t* h = s->hand[p];
    const uint8_t* m = s->market;
    int hs = h[0] + h[1] + h[2] + h[3] + h[4] + h[5];
    int camel_cap = HAND_LIMIT - hs < s->herd[p] ? HAND_LIMIT - hs : s->herd[p];
    uint32_t hm = 0;
    if (hs < HAND_LIMIT)
        for (int g = 0; g < N_GOODS; g++) {
            Move t = {TAKE, (uint8_t)g, 1, {0}, {0}};
            out[n] = t; n += m[g] != 0;
        }
    { Move c = {CAMELS, 0, 0, {0}, {0}}; out[n] = c; n += m[CAMEL] != 0; }
    for (int g = 0; g < N_GOODS; g++) {     /* sales: 8 slots written, h - lo + 1 kept */
        int c = h[g] - (g < 3 ? 1 : 0);
        memcpy(&out[n], SELLS[g], sizeof SELLS[g]);
        n += c > 0 ? c : 0;
        hm |= (uint32_t)(h[g] != 0) << g;
    }
    int key = market_key(m), nt = take_n[key];
    const Take* tk = &takes[take_first[key]];
    int16_t first[MAX_K + 1][64], len[MAX_K + 1][64];
    uint64_t seen[MAX_K + 1] = {0};          /* bit A of seen[k]: (A, k) built */
    for (int e = 0; e < nt; e++) {
        int k = tk[e].k;
        uint32_t A = tk[e].tm & hm;
        if ((seen[k] >> A) & 1) {
            const Move* src = &out[first[k][A]];
            int L = len[k][A];
            for (int j = 0; j < L; j++) {
                uint64_t v[2];
                memcpy(v, &src[j], 16);
                v[0] = tk[e].lo;
                v[1] = (v[1] & ~(uint64_t)0xFF) | tk[e].t5;
                memcpy(&out[n + j], v, 16);
            }
            n += L;
            continue;
        }
        Walk w;
        w.na = 0;
        for (int g = 0; g < N_GOODS; g++) {
            w.act[w.na] = (uint8_t)g; w.cap[w.na] = h[g] < MAX_K ? h[g] : MAX_K;
            w.na += ((hm & ~A) >> g) & 1;
        }
        w.suf[w.na] = camel_cap;            /* camels take what the goods leave */
        for (int i = w.na - 1; i >= 0; i--) w.suf[i] = w.suf[i + 1] + w.cap[i];
        seen[k] |= (uint64_t)1 << A;
        first[k][A] = (int16_t)n;
        if (w.suf[0] >= k) {
            if (w.na == 0) {
                uint64_t v[2] = {tk[e].lo, tk[e].t5 | (uint64_t)k << 56};
                memcpy(&out[n++], v, 16);
            } else {
                w.lo = tk[e].lo; w.hi0 = tk[e].t5; w.out = out; w.n = n;
                walk(&w, 0, k, w.hi0);
                n = w.n;
            }
        }
        len[k][A] = (int16_t)(n - first[k][A]);
    }
    return n;
}

/* ---- count, then build only the chosen move ----
   The number of give vectors of size k avoiding the goods taken is the coefficient of
   x^k in C(x) * prod over the hand goods g not taken of (1 + x + ... + x^cap_g),
   C(x) = 1 + x + ... + x^camel_cap; the products are kept per set of goods taken. */
typedef struct { int c[MAX_K + 1]; } Poly;

/* a *= 1 + x + ... + x^cap: a[i] becomes a[i - cap] + ... + a[i], a difference of
   prefix sums (pre[6 + x]: the sum below x, zero for x <= 0) */
static inline void times_run(Poly* a, int cap) {
    int pre[2 * MAX_K + 3];
    for (int i = 0; i < MAX_K + 2; i++) pre[i] = 0;
    for (int i = 0; i <= MAX_K; i++) pre[MAX_K + 2 + i] = pre[MAX_K + 1 + i] + a->c[i];
    for (int i = 0; i <= MAX_K; i++) a->c[i] = pre[MAX_K + 2 + i] - pre[MAX_K + 1 + i - cap];
}

typedef struct {
    const uint8_t* h;
    int hs, camel_cap, key;
    uint32_t hm;
    uint64_t have;           /* bit A: by_mask[A] computed */
    Poly by_mask[64];
} Counter;

static inline void camel_poly(int camel_cap, Poly* a) {
    for (int i = 0; i <= MAX_K; i++) a->c[i] = i <= camel_cap;
}

static inline int gives(Counter* q, uint32_t A, int size) {
    if (!((q->have >> A) & 1)) {
        Poly* a = &q->by_mask[A];
        int cap[6], na = 0;
        for (int g = 0; g < N_GOODS; g++) {
            cap[na] = q->h[g] < MAX_K ? q->h[g] : MAX_K;
            na += ((q->hm & ~A) >> g) & 1;
        }
        camel_poly(q->camel_cap, a);
        for (int i = 0; i < na; i++) times_run(a, cap[i]);
        q->have |= (uint64_t)1 << A;
    }
    return q->by_mask[A].c[size];
}

static int count(const S* s, Counter* q) {
    int p = s->to_move, n = 0;
    const uint8_t* h = q->h = s->hand[p];
    const uint8_t* m = s->market;
    q->hs = h[0] + h[1] + h[2] + h[3] + h[4] + h[5];
    q->camel_cap = HAND_LIMIT - q->hs < s->herd[p] ? HAND_LIMIT - q->hs : s->herd[p];
    q->hm = 0;
    q->have = 0;
    for (int g = 0; g < N_GOODS; g++) {
        int c = h[g] - (g < 3 ? 1 : 0);
        n += c > 0 ? c : 0;
        n += (q->hs < HAND_LIMIT) & (m[g] != 0);
        q->hm |= (uint32_t)(h[g] != 0) << g;
    }
    n += m[CAMEL] != 0;
    q->key = market_key(m);
    const Take* tk = &takes[take_first[q->key]];
    for (int e = 0; e < take_n[q->key]; e++) n += gives(q, tk[e].tm & q->hm, tk[e].k);
    return n;
}

/* The j-th legal move (after count() on the same position). */
static void nth(const S* s, Counter* q, int j, Move* m) {
    const uint8_t* h = q->h;
    memset(m, 0, sizeof *m);
    int act[6], cap[6], na = 0, nm = 0;
    if (q->hs < HAND_LIMIT) {
        for (int g = 0; g < N_GOODS; g++) { act[nm] = g; nm += s->market[g] != 0; }
        if (j < nm) { m->kind = TAKE; m->good = act[j]; m->count = 1; return; }
        j -= nm;
    }
    if (s->market[CAMEL] && j-- == 0) { m->kind = CAMELS; return; }
    for (int g = 0; g < N_GOODS; g++) {
        int c = h[g] - (g < 3 ? 1 : 0);
        if (c > 0) {
            if (j < c) { m->kind = SELL; m->good = g; m->count = (g < 3 ? 2 : 1) + j; return; }
            j -= c;
        }
    }
    const Take* e = &takes[take_first[q->key]];
    uint32_t A;
    for (;; e++) {
        A = e->tm & q->hm;
        int c = gives(q, A, e->k);
        if (j < c) break;
        j -= c;
    }
    memcpy(m, &e->lo, 8);
    m->take[5] = e->t5;
    /* the j-th give vector: suffix products over the goods not taken */
    Poly suf[7];
    for (int g = 0; g < N_GOODS; g++) {
        act[na] = g; cap[na] = h[g] < MAX_K ? h[g] : MAX_K;
        na += ((q->hm & ~A) >> g) & 1;
    }
    camel_poly(q->camel_cap, &suf[na]);
    for (int i = na - 1; i >= 0; i--) { suf[i] = suf[i + 1]; times_run(&suf[i], cap[i]); }
    int left = e->k;
    for (int i = 0; i < na; i++)
        for (int c = cap[i] < left ? cap[i] : left; ; c--) {
            int ways = suf[i + 1].c[left - c];
            if (j < ways) { m->give[act[i]] = c; left -= c; break; }
            j -= ways;
        }
    m->give[CAMEL] = left;
}

/* The timed part (a function of its own, so that callgrind can count it alone). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void play(int by_count, long rounds, uint64_t seed0, long* plies, long* moves) {
    static Move buf[MAX_MOVES + 8];
    static Counter k;
    S s;
    for (long r = 0; r < rounds; r++) {
        seed(seed0 + (uint64_t)r);
        deal(&s, (int)(r & 1));
        while (!s.over) {
            int n;
            if (by_count) {
                Move m;
                n = count(&s, &k);
                nth(&s, &k, below(n), &m);
                apply(&s, &m);
            } else {
                n = gen(&s, buf);
                apply(&s, &buf[below(n)]);
            }
            *moves += n;
            ++*plies;
        }
    }
}

int main(int argc, char** argv) {
    if (argc != 4 || (strcmp(argv[1], "enumerate") && strcmp(argv[1], "count"))) {
        fprintf(stderr, "usage: %s enumerate|count ROUNDS SEED\n", argv[0]);
        return 2;
    }
    long rounds = atol(argv[2]), plies = 0, moves = 0;
    uint64_t seed0 = strtoull(argv[3], NULL, 10);
    struct timespec t0, t1;
    init_takes();
    init_sells();
    clock_gettime(CLOCK_MONOTONIC, &t0);
    play(!strcmp(argv[1], "count"), rounds, seed0, &plies, &moves);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%ld %ld %.9f\n", plies, moves,
           (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
    return 0;
}

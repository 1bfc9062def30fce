# cython: language_level=3
"""C-level interface of the Jaipur rules core.

Card types are small integers: 0 diamond, 1 gold, 2 silver, 3 cloth, 4 spice,
5 leather (the six goods) and 6 camel.  Everything here is plain C data so that
search code can run without the GIL; the Python objects over it, ``CoreState`` and
``CoreView``, are in _bridge.
"""
from libc.stdint cimport int8_t, uint8_t, uint16_t, int16_t, int32_t, uint32_t, uint64_t

cdef enum:
    N_GOODS = 6
    N_TYPES = 7
    CAMEL = 6
    N_CARDS = 55
    HAND_LIMIT = 7
    MARKET_SIZE = 5
    N_BONUS_KINDS = 3          # bonus stacks for sales of 3, 4, 5+
    MAX_BONUS = 7              # largest bonus stack
    MAX_TOKENS = 9             # largest goods-token stack (leather)
    MAX_MOVES = 1024           # upper bound on legal moves in any position
    CAMEL_TOKEN = 5
    SEALS_TO_WIN = 2

    # Move kinds
    MOVE_TAKE = 0              # one good from the market
    MOVE_CAMELS = 1            # all camels from the market
    MOVE_SELL = 2              # n cards of one good
    MOVE_SWAP = 3              # exchange k>=2 market goods for k hand goods/herd camels

    # Fixed action space: see action_of()
    ACTION_TAKE0 = 0
    ACTION_CAMELS = 6
    ACTION_SELL0 = 7           # + good*7 + (n-1)
    ACTION_SWAP0 = 49
    N_ACTIONS = 148225
    POW6_6 = 46656             # 6**6: base-6 codes of 6 counts (goods taken)
    POW6_7 = 279936            # 6**7: base-6 codes of 7 counts (cards given)

    # Round status
    RESULT_NONE = -1           # round still running
    RESULT_DRAW = 2            # round over, nobody got the seal

    BONUS_STANDARD = 0         # 1 1 2 2 2 3 3 / 4 4 5 5 6 6 / 8 8 9 10 10
    BONUS_PAIRS = 1            # 1 1 2 2 3 3 / 4 4 5 5 6 6 / 8 8 9 9 10 10

ctypedef struct Rng:
    uint64_t s

ctypedef struct Move:
    uint8_t kind
    uint8_t good               # MOVE_TAKE / MOVE_SELL: the good
    uint8_t count              # MOVE_SELL: cards sold; MOVE_SWAP: cards taken (=given)
    uint8_t take[N_GOODS]      # MOVE_SWAP: goods taken from the market, by type
    uint8_t give[N_TYPES]      # MOVE_SWAP: cards given back (goods and camels), by type

ctypedef struct MoveCount:
    # count_moves' working state, for nth_move on the same position
    int n, hsize, camel_cap, key
    uint32_t hm                       # goods in hand, one bit each
    uint64_t have                     # bit A: poly[A] computed
    int poly[64][6]                   # exchanges by cards given, when the hand's goods A are taken

ctypedef struct State:
    uint8_t market[N_TYPES]           # counts, camels included
    uint8_t hand[2][N_GOODS]          # goods in hand
    uint8_t herd[2]                   # camels
    uint8_t known[2][N_GOODS]         # cards of hand[p] the other player saw p take
    uint8_t discard[N_GOODS]          # sold goods
    uint8_t deck[N_CARDS]             # draw pile, deck[deck_len-1] is drawn next
    uint8_t deck_len
    uint8_t tok_pos[N_GOODS]          # goods tokens already taken from each stack
    uint16_t tok_owner[N_GOODS]       # bit i set: token i of that stack went to player 1
    uint8_t bonus[N_BONUS_KINDS][MAX_BONUS]   # bonus stacks in drawing order (0 = unknown)
    uint8_t bonus_len[N_BONUS_KINDS]  # size of each stack at the start of the round
    uint8_t bonus_pos[N_BONUS_KINDS]  # bonus tokens already taken from each stack
    uint8_t bonus_owner[N_BONUS_KINDS]  # bit i set: bonus i of that stack went to player 1
    int16_t goods_pts[2]              # value of goods tokens held
    int16_t bonus_pts[2]              # value of bonus tokens held
    uint8_t n_goods_tok[2]
    uint8_t n_bonus_tok[2]
    uint8_t to_move
    uint8_t starter                   # who started this round
    uint8_t round_no                  # 1-based
    uint8_t seals[2]
    uint8_t bonus_set                 # BONUS_STANDARD or BONUS_PAIRS
    int8_t result                     # RESULT_NONE, 0 or 1 (seal winner), RESULT_DRAW

ctypedef struct View:
    State s            # hidden parts zeroed: opponent hand holds only known cards,
                       # deck contents, unseen bonus values (0)
    uint8_t observer
    uint8_t opp_hand_n # goods in the opponent's hand

# --- figures ---
cdef int token_value(int good, int i) noexcept nogil    # i-th token from the top
cdef int token_len(int good) noexcept nogil
cdef int card_total(int card) noexcept nogil

# --- random numbers (xorshift64*) ---
cdef void rng_seed(Rng* r, uint64_t seed) noexcept nogil
cdef uint64_t rng_next(Rng* r) noexcept nogil
cdef uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil
cdef double rng_unit(Rng* r) noexcept nogil

# --- set-up ---
cdef void bonus_values(int bonus_set, int kind, uint8_t* out, uint8_t* n) noexcept nogil

# --- moves (the legal moves are in _movegen.pxd) ---
cdef void apply_move(State* s, const Move* m) noexcept nogil
cdef int32_t action_of(const Move* m) noexcept nogil
cdef int move_of(int32_t action, Move* m) noexcept nogil   # 0 ok, -1 not a move id
cdef int cards_to_draw(const State* s, const Move* m) noexcept nogil

# --- round end and scoring ---
cdef int tokens_left(const State* s, int good) noexcept nogil
cdef int empty_stacks(const State* s) noexcept nogil
cdef void round_totals(const State* s, int* totals) noexcept nogil   # camel token included
cdef int round_winner(const State* s) noexcept nogil    # 0, 1 or RESULT_DRAW

# --- shared inline helpers: compiled into every module that cimports this header, so
# the rules modules (_movegen, _dealing) and the core draw the same random numbers ---
cdef inline uint64_t xorshift_next(Rng* r) noexcept nogil:
    cdef uint64_t x = r.s
    x ^= x >> 12
    x ^= x << 25
    x ^= x >> 27
    r.s = x
    return x * <uint64_t>0x2545F4914F6CDD1D


cdef inline uint32_t fast_below(Rng* r, uint32_t n) noexcept nogil:
    # Lemire's multiply-shift; the bias for n < 2**16 is below 2**-16.
    return <uint32_t>(((xorshift_next(r) >> 32) * <uint64_t>n) >> 32)


cdef inline void shuffle_cards(uint8_t* a, int n, Rng* r) noexcept nogil:
    cdef int i, j
    cdef uint8_t t
    i = n - 1
    while i > 0:
        j = fast_below(r, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t
        i -= 1


cdef inline int hand_size(const State* s, int p) noexcept nogil:
    cdef const uint8_t* h = s.hand[p]
    return h[0] + h[1] + h[2] + h[3] + h[4] + h[5]

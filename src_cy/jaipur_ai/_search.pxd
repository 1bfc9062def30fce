# cython: language_level=3
"""C-level interface of the compiled search (see _search.pyx and docs/search.md)."""
from libc.stdint cimport int8_t, uint8_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t
from jaipur_ai._core cimport State, View, Move, Rng

cdef enum:
    OUTCOME = 2                # player of a chance-outcome node (cards drawn)
    NO_NODE = -1               # "no node" in first_child / next_sibling / parent
    MAX_TREE_DEPTH = 256       # deepest path an ISMCTS iteration descends
    MAX_CAND = 48              # candidate moves the informed policy scores
    PLAYOUT_RANDOM = 0
    PLAYOUT_INFORMED = 1
    REWARD_WIN = 0
    REWARD_MARGIN = 1
    EXPAND_RANDOM = 0          # expand an untried move drawn uniformly
    EXPAND_ORDERED = 1         # expand the untried move with the best move score (+ noise)

ctypedef struct Params:
    double c_uct               # UCB exploration constant
    int playout                # PLAYOUT_RANDOM or PLAYOUT_INFORMED
    int reward                 # REWARD_WIN or REWARD_MARGIN
    double margin_weight       # weight of the margin tie-break in REWARD_WIN
    double margin_scale        # points that map to a full reward swing
    double epsilon             # informed policy: chance of a uniformly random candidate
    double noise               # informed policy: uniform noise added to scores
    int max_playout            # plies before a playout is scored as it stands
    int expand                 # EXPAND_RANDOM or EXPAND_ORDERED
    int cutoff                 # playout plies before the leaf evaluation scores it (0: none)
    int tree_depth             # deepest tree node an iteration descends to (0: no limit)
    double widen               # progressive widening: children <= 1 + widen*sqrt(visits) (0: off)
    double puct                # PUCT constant below the root (0: UCB over all moves)
    double prior_temp          # temperature (points) of the PUCT priors from move scores
    int chance_nodes           # tree nodes branch on the cards drawn into the market


cdef class NodePool:
    cdef readonly int capacity
    cdef readonly int size
    cdef readonly int max_nodes
    cdef int32_t[::1] visits
    cdef int32_t[::1] avail
    cdef double[::1] value_sum
    cdef double[::1] win_sum
    cdef double[::1] margin_sum
    cdef int32_t[::1] action
    cdef int8_t[::1] player
    cdef int32_t[::1] first_child
    cdef int32_t[::1] next_sibling
    cdef int32_t[::1] parent
    cdef object _arrays

    cdef int _grow(self) noexcept nogil
    cdef int new_node(self, int parent, int32_t action, int player) noexcept nogil


cdef double score_move(const State* s, const Move* m) noexcept nogil
cdef int policy_move(const State* s, Rng* r, const Params* P, Move* out) noexcept nogil
cdef double playout(State* s, Rng* r, const Params* P) noexcept nogil

# cython: language_level=3
"""Single-observer ISMCTS (see _ismcts.pyx and docs/search.md, "ISMCTS")."""
from libc.stdint cimport uint16_t, uint32_t, uint64_t
from jaipur_ai.rules._core cimport State, Move, Rng
from jaipur_ai.search._params cimport Params
from jaipur_ai.search._nodepool cimport NodePool
from jaipur_ai.search._root cimport RootSearch
from jaipur_ai.search._evaluation cimport Evaluation, Model, RawSums
from jaipur_ai.search._infostats cimport InfoStats

cdef enum:
    OUTCOME = 2                # player of a chance-outcome node (cards drawn)
    MAX_TREE_DEPTH = 256       # deepest path an ISMCTS iteration descends
    RAW_REFRESH = 256          # worlds between fresh sums of a raw network in the priors


cdef class IsmctsSearcher(RootSearch):
    cdef int observer                  # the player searching (to move at the root)
    cdef Params P                      # the search settings
    cdef Rng rng                       # draws the worlds, expansions and playouts
    cdef readonly NodePool pool        # the tree
    cdef uint32_t[::1] stamp           # stamp[a] == gen: action a is legal in this step
    cdef uint16_t[::1] slot            # slot[a]: index of action a in this step's move list
    cdef uint32_t gen                  # generation of the stamps (bumped per step)
    cdef readonly long long iterations # iterations run so far
    cdef readonly long long determinizations  # worlds sampled so far
    cdef readonly double elapsed       # seconds spent in run()
    cdef readonly long long playout_plies     # plies played in playouts
    cdef readonly int max_depth        # longest path from the root so far (nodes)
    cdef int n_root_moves              # legal moves at the root
    cdef readonly object root          # the CoreView (or CoreState) searched
    cdef readonly Evaluation evaluation  # learned leaf evaluation, or None (hand-set)
    cdef readonly InfoStats opp_stats  # the opponent's move statistics by its hand, or None
                                       # (pooled over its possible hands, in the nodes)
    cdef uint64_t opp_keys[MAX_TREE_DEPTH]  # this iteration's opp_stats keys to back up
    cdef int n_opp_keys                # how many
    cdef RawSums raw                   # a raw network's sums for the last position whose
                                       # priors read them, moved from one to the next;
                                       # made not valid (summed afresh) at the search's
                                       # start and every RAW_REFRESH worlds, so that the
                                       # rounding of the updates never adds up

    cdef long long _run(self, long long limit, double deadline) noexcept nogil
    cdef uint32_t _next_gen(self) noexcept nogil
    cdef int _outcome_child(self, int node, State* s, int dl) noexcept nogil
    cdef int _puct_step(self, int node, State* s, int* path, int* depth) noexcept nogil
    cdef int _add_other_moves(self, const State* s, Move* cand, double* pr, int* child,
                              int n, uint32_t g, double* tot) noexcept nogil
    cdef void _note_hand(self, int c, uint64_t hand) noexcept nogil
    cdef void _back_up_by_hand(self, double r) noexcept nogil
    cdef double _redealt_reward(self, const State* s) noexcept nogil
    cdef int _descend(self, int c, State* s, const Move* m, int* path,
                      int* depth) noexcept nogil
    cdef void _iterate(self) noexcept nogil
    cdef void _select(self, State* s, int* path, int* depth) noexcept nogil
    cdef int _ucb_step(self, int node, State* s, int* path, int* depth) noexcept nogil
    cdef double _leaf_reward(self, State* s, double* win, double* mg,
                             double* r1) noexcept nogil
    cdef void _back_up(self, const int* path, int depth, double r0, double r1,
                       double win, double mg) noexcept nogil

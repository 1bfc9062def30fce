# cython: language_level=3
"""Single-observer ISMCTS (see _ismcts.pyx and docs/search.md, "ISMCTS")."""
from libc.stdint cimport uint16_t, uint32_t
from jaipur_ai._core cimport State, Move, Rng
from jaipur_ai._params cimport Params
from jaipur_ai._nodepool cimport NodePool
from jaipur_ai._root cimport RootSearch
from jaipur_ai._evaluation cimport Evaluation, Model

cdef enum:
    OUTCOME = 2                # player of a chance-outcome node (cards drawn)
    MAX_TREE_DEPTH = 256       # deepest path an ISMCTS iteration descends


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

    cdef long long _run(self, long long limit, double deadline) noexcept nogil
    cdef uint32_t _next_gen(self) noexcept nogil
    cdef int _outcome_child(self, int node, const State* s, int dl) noexcept nogil
    cdef int _puct_step(self, int node, State* s, int* path, int* depth) noexcept nogil
    cdef int _descend(self, int c, State* s, const Move* m, int* path,
                      int* depth) noexcept nogil
    cdef void _iterate(self) noexcept nogil
    cdef int _best_child(self, int node)

# cython: language_level=3
"""The tree of an ISMCTS search as parallel arrays (like mctx): a preallocated pool
that grows by doubling up to a limit; node i's statistics and links are entry i of
each array (see _nodepool.pyx)."""
from libc.stdint cimport int8_t, int32_t

cdef enum:
    NO_NODE = -1               # "no node" in first_child / next_sibling / parent
    ROOT = 0                   # the root is always node 0

cdef class NodePool:
    cdef readonly int capacity         # nodes the arrays hold now
    cdef readonly int size             # nodes in use (0..size-1)
    cdef readonly int max_nodes        # the pool never grows past this
    cdef int32_t[::1] visits           # iterations that passed through the node
    cdef int32_t[::1] avail            # iterations in which the node's move was available
    cdef double[::1] value_sum         # sum of rewards, from the view of the node's player
    cdef double[::1] win_sum           # sum of win results (1/0.5/0 or win chance), same view
    cdef double[::1] margin_sum        # sum of margins in points, same view
    cdef int32_t[::1] action           # move into the node (action id), or drawn-cards code
    cdef int8_t[::1] player            # who made that move (0, 1) or OUTCOME for a draw
    cdef int32_t[::1] first_child      # newest child, or NO_NODE
    cdef int32_t[::1] next_sibling     # next older sibling, or NO_NODE
    cdef int32_t[::1] parent           # parent node, or NO_NODE for the root
    cdef object _arrays                # the numpy arrays behind the views, by name

    cdef int _grow(self) noexcept nogil
    cdef int new_node(self, int parent, int32_t action, int player) noexcept nogil
    cdef int most_visited(self, int node) noexcept nogil
    cdef int draw_child(self, int node, double u) noexcept nogil

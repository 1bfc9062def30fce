# cython: language_level=3
"""Selection statistics of tree moves kept apart by the mover's private information
(see _infostats.pyx): an open-addressing hash table of parallel C arrays, and the
PUCT choice that reads it."""
from libc.stdint cimport int32_t, uint64_t
from jaipur_ai.search._nodepool cimport NodePool

cdef enum:
    NO_ENTRY = -1              # "no entry" from find() / insert()
    INFO_BITS = 18             # bits of the mover's information code in a key (a hand:
                               # 3 bits for each of the six goods)


cdef inline uint64_t node_key(int node, uint64_t info) noexcept nogil:
    """The key of (tree node, the mover's information code, below 2 ** INFO_BITS)."""
    return (<uint64_t>node << INFO_BITS) | info

cdef class InfoStats:
    cdef uint64_t* keys                # key + 1 of the entry in each slot (0: empty slot)
    cdef int32_t* visits               # iterations that chose the move with that information
    cdef double* value_sum             # sum of their rewards, from the mover's view
    cdef readonly long long capacity   # slots (a power of two)
    cdef readonly long long size       # slots in use
    cdef readonly long long max_size   # the table takes no entry past this many

    cdef long long find(self, uint64_t key) noexcept nogil
    cdef long long insert(self, uint64_t key) noexcept nogil
    cdef void add(self, uint64_t key, double reward) noexcept nogil
    cdef int _grow(self) noexcept nogil


# PUCT over a node's n moves (child[i]: the move's tree node or NO_NODE; pr[i]/tot: its
# prior) by the statistics kept for the mover's information `info`
cdef int select_by_info(InfoStats st, NodePool pool, uint64_t info, const int* child,
                        const double* pr, double tot, int n, double fpu,
                        double puct) noexcept nogil

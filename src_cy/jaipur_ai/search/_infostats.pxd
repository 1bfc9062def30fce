# cython: language_level=3
"""Selection statistics of tree moves kept apart by the mover's private information
(see _infostats.pyx): an open-addressing hash table of parallel C arrays."""
from libc.stdint cimport int32_t, uint64_t

cdef enum:
    NO_ENTRY = -1              # "no entry" from find() / insert()

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

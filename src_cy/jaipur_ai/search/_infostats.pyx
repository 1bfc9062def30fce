# cython: language_level=3
"""Selection statistics keyed by (tree node, the mover's private information).

The ISMCTS tree pools the statistics of a move over every world that passes through
its node.  That is right for the searching player, whose information the tree
follows, but it makes the opponent's choices blind to its own hand once their
statistics outweigh their priors.  This table keeps, for each opponent move node and
each hand the opponent may hold there, the visits and rewards of the iterations that
chose the move holding that hand (docs/search.md, "The opponent's statistics").  The
nodes, and so the searcher's own choices, stay shared: nothing the searcher decides
reads the opponent's real hand.

Open addressing with linear probing; the table doubles at half load up to max_size
entries, then takes no new ones (find() still answers for the ones it holds).
:func:`select_by_info` is the PUCT choice at a node that reads it.
"""
from libc.math cimport sqrt
from libc.stdlib cimport calloc, free
from libc.stdint cimport int32_t, uint64_t

from jaipur_ai.rules._core cimport MAX_MOVES
from jaipur_ai.search._nodepool cimport NO_NODE
from jaipur_ai.search._policy cimport MAX_CAND
from jaipur_ai.search._worlds cimport mix


cdef class InfoStats:
    """The table; starts with `capacity` slots (rounded up to a power of two) and holds
    at most `max_size` entries."""

    def __cinit__(self, long long capacity=4096, long long max_size=4000000):
        cdef long long cap = 16
        while cap < capacity:
            cap *= 2
        self.capacity = 0
        self.size = 0
        self.max_size = max_size if max_size > 0 else 1
        self.keys = <uint64_t*>calloc(cap, sizeof(uint64_t))
        self.visits = <int32_t*>calloc(cap, sizeof(int32_t))
        self.value_sum = <double*>calloc(cap, sizeof(double))
        if self.keys == NULL or self.visits == NULL or self.value_sum == NULL:
            raise MemoryError("no memory for the search's statistics table")
        self.capacity = cap

    def __dealloc__(self):
        free(self.keys)
        free(self.visits)
        free(self.value_sum)

    cdef long long find(self, uint64_t key) noexcept nogil:
        """The slot of `key`, or NO_ENTRY when the table holds no entry for it."""
        cdef uint64_t mask = <uint64_t>self.capacity - 1
        cdef uint64_t i = mix(key) & mask
        key += 1
        while self.keys[i] != 0:
            if self.keys[i] == key:
                return <long long>i
            i = (i + 1) & mask
        return NO_ENTRY

    cdef long long insert(self, uint64_t key) noexcept nogil:
        """The slot of `key`, made (zeroed) if new; NO_ENTRY when the table is full or
        no memory is left (the caller then keeps only the pooled statistics)."""
        cdef uint64_t mask, i
        cdef long long e = self.find(key)
        if e != NO_ENTRY:
            return e
        if self.size >= self.max_size:
            return NO_ENTRY
        if 2 * (self.size + 1) > self.capacity and self._grow() != 0:
            return NO_ENTRY
        mask = <uint64_t>self.capacity - 1
        i = mix(key) & mask
        while self.keys[i] != 0:
            i = (i + 1) & mask
        self.keys[i] = key + 1
        self.visits[i] = 0
        self.value_sum[i] = 0.0
        self.size += 1
        return <long long>i

    cdef void add(self, uint64_t key, double reward) noexcept nogil:
        """One more visit of `key` with `reward` (dropped when the table is full)."""
        cdef long long e = self.insert(key)
        if e != NO_ENTRY:
            self.visits[e] += 1
            self.value_sum[e] += reward

    cdef int _grow(self) noexcept nogil:
        """Double the slots and re-insert every entry; -1 (table unchanged) without memory."""
        cdef long long cap = self.capacity * 2, j
        cdef uint64_t mask = <uint64_t>cap - 1, i
        cdef uint64_t* nk = <uint64_t*>calloc(cap, sizeof(uint64_t))
        cdef int32_t* nv = <int32_t*>calloc(cap, sizeof(int32_t))
        cdef double* ns = <double*>calloc(cap, sizeof(double))
        if nk == NULL or nv == NULL or ns == NULL:
            free(nk)
            free(nv)
            free(ns)
            return -1
        for j in range(self.capacity):
            if self.keys[j] != 0:
                i = mix(self.keys[j] - 1) & mask
                while nk[i] != 0:
                    i = (i + 1) & mask
                nk[i] = self.keys[j]
                nv[i] = self.visits[j]
                ns[i] = self.value_sum[j]
        free(self.keys)
        free(self.visits)
        free(self.value_sum)
        self.keys = nk
        self.visits = nv
        self.value_sum = ns
        self.capacity = cap
        return 0

    # -- from Python: tests and inspection ----------------------------------------
    def lookup(self, key):
        """(visits, value_sum) of `key`, or None."""
        cdef long long e = self.find(<uint64_t>key)
        if e == NO_ENTRY:
            return None
        return int(self.visits[e]), float(self.value_sum[e])

    def update(self, key, double reward):
        """One visit of `key` with `reward`, as the search backs it up."""
        self.add(<uint64_t>key, reward)

    def entries(self):
        """Every entry as {key: (visits, value_sum)}."""
        cdef long long j
        return {int(self.keys[j] - 1): (int(self.visits[j]), float(self.value_sum[j]))
                for j in range(self.capacity) if self.keys[j] != 0}


cdef int select_by_info(InfoStats st, NodePool pool, uint64_t info, const int* child,
                        const double* pr, double tot, int n, double fpu,
                        double puct) noexcept nogil:
    """PUCT over the statistics of the iterations in which the mover chose at this
    node with this information (at most MAX_CAND + MAX_MOVES moves).  A move never
    chosen with it starts from its pooled value (every information), or fpu if never
    visited."""
    cdef int i, c, best = -1
    cdef int hn[MAX_CAND + MAX_MOVES]
    cdef double hq[MAX_CAND + MAX_MOVES]
    cdef long long e, total = 0
    cdef double sq, u, bu = -1e300
    for i in range(n):
        hn[i] = 0
        c = child[i]
        if c == NO_NODE:
            hq[i] = fpu
            continue
        e = st.find(node_key(c, info))
        if e != NO_ENTRY and st.visits[e] > 0:
            hn[i] = st.visits[e]
            hq[i] = st.value_sum[e] / hn[i]
            total += hn[i]
        elif pool.visits[c] > 0:
            hq[i] = pool.value_sum[c] / pool.visits[c]
        else:
            hq[i] = fpu
    sq = sqrt(<double>total + 1.0)
    for i in range(n):
        u = hq[i] + puct * pr[i] / tot * sq / (1.0 + hn[i])
        if u > bu:
            bu = u
            best = i
    return best if best >= 0 else 0

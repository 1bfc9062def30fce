# cython: language_level=3
"""The node pool of the ISMCTS tree: parallel arrays, grown by doubling (_nodepool.pxd)."""
from libc.stdint cimport int32_t

import numpy as np


cdef class NodePool:
    """Parallel arrays of tree nodes; starts with `capacity` and grows by doubling up
    to max_nodes (a search that needs a few hundred nodes allocates a few hundred)."""

    def __cinit__(self, int capacity=1024, int max_nodes=4000000):
        if capacity < 1:
            capacity = 1
        if max_nodes < capacity:
            max_nodes = capacity
        self.max_nodes = max_nodes
        self.size = 0
        self.capacity = 0
        self._alloc(capacity)

    def _alloc(self, int cap):
        cdef int n = self.size
        old = self._arrays
        # not cleared: new_node() writes every field of the node it hands out, and
        # nothing reads past `size`
        new = {
            "visits": np.empty(cap, np.int32),
            "avail": np.empty(cap, np.int32),
            "value_sum": np.empty(cap, np.float64),
            "win_sum": np.empty(cap, np.float64),
            "margin_sum": np.empty(cap, np.float64),
            "action": np.empty(cap, np.int32),
            "player": np.empty(cap, np.int8),
            "first_child": np.empty(cap, np.int32),
            "next_sibling": np.empty(cap, np.int32),
            "parent": np.empty(cap, np.int32),
        }
        if old is not None:
            for k, a in new.items():
                a[:n] = old[k][:n]
        self._arrays = new
        self.visits = new["visits"]
        self.avail = new["avail"]
        self.value_sum = new["value_sum"]
        self.win_sum = new["win_sum"]
        self.margin_sum = new["margin_sum"]
        self.action = new["action"]
        self.player = new["player"]
        self.first_child = new["first_child"]
        self.next_sibling = new["next_sibling"]
        self.parent = new["parent"]
        self.capacity = cap

    @property
    def arrays(self):
        """The arrays (views of the first `size` nodes), for inspection."""
        return {k: a[:self.size] for k, a in self._arrays.items()}

    def clear(self):
        """Forget every node (the arrays are kept; new_node() rewrites what it hands out)."""
        self.size = 0

    cdef int _grow(self) noexcept nogil:
        cdef int cap
        if self.capacity >= self.max_nodes:
            return -1
        cap = self.capacity * 2
        if cap > self.max_nodes:
            cap = self.max_nodes
        with gil:
            try:
                self._alloc(cap)
            except MemoryError:
                self.max_nodes = self.capacity
                return -1
        return 0

    cdef int new_node(self, int parent, int32_t action, int player) noexcept nogil:
        """A fresh node, linked first among parent's children; NO_NODE when full."""
        cdef int i
        if self.size >= self.capacity and self._grow() != 0:
            return NO_NODE
        i = self.size
        self.size += 1
        self.visits[i] = 0
        self.avail[i] = 1
        self.value_sum[i] = 0.0
        self.win_sum[i] = 0.0
        self.margin_sum[i] = 0.0
        self.action[i] = action
        self.player[i] = player
        self.first_child[i] = NO_NODE
        self.parent[i] = parent
        if parent != NO_NODE:
            self.next_sibling[i] = self.first_child[parent]
            self.first_child[parent] = i
        else:
            self.next_sibling[i] = NO_NODE
        return i

    cdef int most_visited(self, int node) noexcept nogil:
        """node's child with the most visits (ties: the higher mean value, then the lower
        action id), or NO_NODE when it has none."""
        cdef int c = self.first_child[node], best = NO_NODE
        cdef double bv = 0.0, v
        while c != NO_NODE:
            v = self.value_sum[c] / self.visits[c] if self.visits[c] else 0.0
            if (best == NO_NODE or self.visits[c] > self.visits[best]
                    or (self.visits[c] == self.visits[best]
                        and (v > bv or (v == bv and self.action[c] < self.action[best])))):
                best = c
                bv = v
            c = self.next_sibling[c]
        return best

    cdef int draw_child(self, int node, double u) noexcept nogil:
        """node's child drawn in proportion to its arrivals (avail), u uniform in [0, 1);
        NO_NODE when it has none."""
        cdef double total = 0.0, x
        cdef int c = self.first_child[node], last = NO_NODE
        while c != NO_NODE:
            total += self.avail[c]
            c = self.next_sibling[c]
        x = u * total
        c = self.first_child[node]
        while c != NO_NODE:
            last = c
            x -= self.avail[c]
            if x < 0.0:
                return c
            c = self.next_sibling[c]
        return last

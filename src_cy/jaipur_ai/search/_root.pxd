# cython: language_level=3
"""What every searcher shares: the searched position, the stop flag, one run at a
time, and the round-ending root moves judged in sampled worlds (see _root.pyx)."""
from libc.stdint cimport uint64_t
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from jaipur_ai.rules._core cimport State, View
from jaipur_ai.search._worlds cimport HandPrior


cdef inline double now() noexcept nogil:
    """Monotonic clock, seconds."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return <double>ts.tv_sec + <double>ts.tv_nsec * 1e-9


cdef inline bint count_node(long long* nodes, long long node_limit, double deadline,
                            volatile int* stop, int* aborted, long long every) noexcept nogil:
    """Count a node of a depth-first search; True when it must stop: already stopping,
    past ``node_limit`` nodes (< 0: none), or, checked every ``every + 1`` nodes (a power
    of two less one), the stop flag set or the clock past ``deadline`` (< 0: none)."""
    if aborted[0]:
        return True
    if node_limit >= 0 and nodes[0] >= node_limit:
        aborted[0] = 1
        return True
    nodes[0] += 1
    if (nodes[0] & every) == 0:
        if stop[0] or (deadline >= 0.0 and now() >= deadline):
            aborted[0] = 1
            return True
    return False


cdef int root_position(object pos, View* v, State* truth, bint* cheat) except -1
cdef double deadline_of(object seconds, object deadline) except? -2.0


cdef class RootSearch:
    cdef View view                     # the searched view (the observer is to move)
    cdef State truth                   # the full state, when searching with perfect information
    cdef bint cheat                    # perfect information: every world is the truth
    cdef readonly uint64_t seed        # seed of the search
    cdef volatile int stop_flag        # set by stop(), from any thread
    cdef object _lock                  # held while a run is in progress
    cdef dict decisive                 # action id -> [samples, wins, draws, losses, margin sum]
    cdef int decisive_samples          # worlds sampled for the decisive table
    cdef HandPrior prior               # the opponent's unknown goods, by weight (n 0: uniform)
    cdef object _prior_arrays          # the numpy arrays prior points into (kept alive)

    cdef int _set_root(self, object pos, uint64_t seed) except -1
    cdef int _judge_decisive(self, int samples, bint judge=*) except -1

# cython: language_level=3
"""Sampled worlds of the searched view and the seeds that draw them (inline helpers,
no module of their own)."""
from libc.string cimport memcpy
from libc.stdint cimport uint64_t
from jaipur_ai._core cimport State, View, Rng, sample_view


cdef inline int sample_world(const View* v, const State* truth, bint cheat, State* out,
                             Rng* r) noexcept nogil:
    """A full state consistent with v (the truth itself when searching with perfect
    information); 0, or -1 when no state matches v."""
    if cheat:
        memcpy(out, truth, sizeof(State))
        return 0
    return sample_view(v, out, r)


cdef inline uint64_t mix(uint64_t z) noexcept nogil:
    """splitmix64 finaliser: derived seeds of sub-searches and side samplers."""
    z = z + <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)

# cython: language_level=3
"""The raw inputs of the learned evaluation's second network: a full state's counts
from one player's side (see _rawinputs.pyx and docs/search.md, "Raw inputs and
lookahead targets")."""
from jaipur_ai.rules._core cimport State

cdef enum:
    N_RAW = 51                 # length of a raw input vector
    RAW_VERSION = 1            # bumped whenever an input changes meaning or is added

# out[0:N_RAW] for player p (not antisymmetric: the network reads both sides)
cdef void raw_inputs(const State* s, int p, double* out) noexcept nogil

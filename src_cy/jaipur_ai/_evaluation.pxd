# cython: language_level=3
"""The leaf evaluation and the reward of a finished iteration (see _evaluation.pyx)."""
from jaipur_ai._core cimport State
from jaipur_ai._params cimport Params

cdef double evaluate(const State* s, int p, double* margin) noexcept nogil  # win chance of p
cdef double reward(const Params* P, double win, double margin) noexcept nogil

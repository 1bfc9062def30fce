# cython: language_level=3
"""The Python objects over the rules core's C structs (see _bridge.pyx)."""
from jaipur_ai.rules._core cimport State, View

cdef class CoreState:
    cdef State s               # the full game state

cdef class CoreView:
    cdef View v                # the observer's information set (masked state + counts)

# cython: language_level=3
"""Exact endgames (see _endgame.pyx and docs/search.md, "Exact endgames")."""
from libc.stdint cimport uint8_t, int8_t, int32_t, uint64_t
from jaipur_ai.rules._core cimport State, Move, MAX_MOVES
from jaipur_ai.search._root cimport RootSearch

ctypedef struct EndEntry:
    uint64_t key                # the position's hash with the plies left and the leaf value; 0: empty
    double value                # its value for the searching player (a bound, by flag)
    double margin               # the expected final margin of its line, in points
    int8_t flag                 # END_EXACT, END_LOWER (failed high) or END_UPPER (failed low)
    int8_t horizon              # 1: some line below it stopped at the horizon

ctypedef struct ECtx:
    int P                       # the searching player
    double leaf                 # the value given to a position at the horizon (0 or 1)
    long long nodes             # positions visited
    long long node_limit        # -1: none
    double deadline             # < 0: none
    volatile int* stop          # the solver's stop flag
    int aborted                 # set once the solve must unwind
    int horizon                 # set when a line reached the horizon unfinished
    EndEntry* table             # the transposition table
    uint64_t mask               # its size - 1 (a power of two)
    long long hits              # table hits


cdef class EndgameSolver(RootSearch):
    cdef readonly int samples          # worlds solved
    cdef object _worlds_arr            # the numpy array behind `worlds`
    cdef uint8_t[::1] worlds           # samples * sizeof(State) bytes: the worlds
    cdef bint _dealt                   # the worlds have been drawn (after the prior is set)
    cdef readonly int n_moves          # legal root moves
    cdef Move moves[MAX_MOVES]         # the root moves
    cdef int32_t root_acts[MAX_MOVES]  # their action ids
    cdef EndEntry* table               # the transposition table, shared by worlds and depths
    cdef uint64_t table_mask           # its size - 1
    cdef readonly long long nodes      # positions visited so far
    cdef readonly long long hits       # transposition-table hits so far
    cdef readonly double elapsed       # seconds spent solving
    cdef readonly int depth_done       # deepest depth completed
    cdef readonly bint exact           # the deepest depth reached the end of every line
    cdef object _last                  # (lower, upper, margin) [move, world] of that depth

    cdef int _deal(self) except -1

# cython: language_level=3
"""C-level interface of the legal moves (_movegen.pyx)."""
from jaipur_ai.rules._core cimport State, Move, MoveCount, Rng

cdef int gen_moves(const State* s, Move* out) noexcept nogil   # all, in order; out: MAX_MOVES slots
cdef int count_moves(const State* s, MoveCount* q) noexcept nogil   # how many; q for nth_move
cdef void nth_move(const State* s, MoveCount* q, int j, Move* out) noexcept nogil  # gen_moves' j-th
cdef int random_move(const State* s, Rng* r, Move* out) noexcept nogil   # n; 0: no move
cdef bint is_legal(const State* s, const Move* m) noexcept nogil
cdef int random_playout(State* s, Rng* r, int max_plies) noexcept nogil  # plies played

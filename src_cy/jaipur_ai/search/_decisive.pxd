# cython: language_level=3
"""Moves that end the round at once, judged in one world or over sampled worlds of
the root (see _decisive.pyx)."""
from libc.stdint cimport uint64_t
from jaipur_ai.rules._core cimport State, View, Move
from jaipur_ai.search._worlds cimport HandPrior

# --- in one full state (a sampled world) ---
cdef bint ends_round(const State* s, const Move* m) noexcept nogil      # public facts only
cdef bint empties_stack(const State* s, const Move* m) noexcept nogil   # takes a stack's last token
cdef bint any_end_possible(const State* s) noexcept nogil               # some move could end the round
cdef double outcome(const State* s, int p, double* margin) noexcept nogil   # 1/0.5/0 for p, margin
cdef double end_score(const State* s, const Move* m) noexcept nogil     # +-1000 + margin of an ending move
cdef bint opp_wins_now(const State* t) noexcept nogil                   # mover can end the round and win
cdef bint gives_opp_win(const State* s, const Move* m) noexcept nogil   # after m the opponent can

# --- over sampled worlds of the root ---
# (both stop early, on fewer samples, at `deadline` (monotonic seconds, < 0: none) or
# when *stop is set)
cdef dict decisive_table(const View* v, const State* truth, bint cheat, int samples,
                         uint64_t seed, double deadline=*, volatile int* stop=*,
                         const HandPrior* prior=*)
cdef list danger_rates(const View* v, const State* truth, bint cheat, int samples,
                       uint64_t seed, Move* buf, int n, double deadline=*,
                       volatile int* stop=*)
cdef bint out_of_time(int j, double deadline, volatile int* stop) noexcept nogil

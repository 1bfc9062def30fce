# cython: language_level=3
"""The hand-set heuristic: weights, hold values, move score (see _heuristic.pyx and
docs/search.md, "Move score")."""
from jaipur_ai.rules._core cimport State, Move, N_GOODS

ctypedef struct Heur:
    double hold            # a card in hand is worth this share of what it would sell for now
    double small_sale      # factor on a sale that is neither urgent nor a set of 3+
    double camel           # value of one camel taken
    double camel_major     # extra for taking the camel majority (token of 5)
    double reveal          # cost per market card revealed to the opponent
    double gift            # cost per point of goods handed to the market in an exchange
    double swap_cost       # fixed cost of an exchange (tempo)
    double near_full       # cost of reaching 7 goods by a take
    double eval_hold       # leaf evaluation: share of a hand's sale value counted
    double eval_camel      # leaf evaluation: value of a camel in the herd (beyond the token)
    double eval_scale      # leaf evaluation: points for which the win chance moves by ~23%

ctypedef struct HoldTab:
    double v[N_GOODS][16]  # v[g][n]: what n cards of g would sell for now (tokens + mean bonus)

cdef const Heur* weights() noexcept nogil
cdef double hold_value(const State* s, int g, int n) noexcept nogil
cdef void hold_tab(const State* s, HoldTab* t) noexcept nogil
cdef double score(const State* s, const HoldTab* T, const Move* m) noexcept nogil
cdef double score_move(const State* s, const Move* m) noexcept nogil

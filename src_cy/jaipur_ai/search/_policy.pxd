# cython: language_level=3
"""The informed playout policy (see _policy.pyx, docs/search.md "Playout policies")."""
from jaipur_ai.rules._core cimport State, Move, Rng
from jaipur_ai.search._params cimport Params
from jaipur_ai.search._heuristic cimport HoldTab
from jaipur_ai.search._evaluation cimport Model, RawSums

cdef enum:
    MAX_CAND = 48              # candidate moves the informed policy scores
    LEARNED_POINTS = 8         # points per unit of learned win logit, where learned
                               # values replace move scores (the hand-set evaluation
                               # moves its logit by one unit per 8 points)

cdef int candidates(const State* s, const HoldTab* T, Move* cand) noexcept nogil
cdef int score_candidates(const State* s, const HoldTab* T, const Move* cand, int n,
                          double* sc) noexcept nogil
# the candidates' scores by the learned value after them; priors: the value the tree's
# priors read (the model's prior_lin where it has one), else the full value; a raw
# network's sums are moved to s in R where R is given (a caller that values one
# position after another keeps them), else filled afresh
cdef void rescore_learned(const State* s, const Move* cand, int n, double* sc,
                          const Model* model, bint priors, RawSums* R) noexcept nogil
# the scores the tree's PUCT priors are a softmax of (over prior_temp): the move scores,
# the learned values after the moves where P.learned_priors, the learned move policy
# where P.use_policy and the model holds one (R: as rescore_learned's)
cdef void prior_scores(const State* s, const HoldTab* T, const Move* cand, int n,
                       double* sc, const Params* P, RawSums* R) noexcept nogil
cdef int policy_move(const State* s, Rng* r, const Params* P, Move* out) noexcept nogil
cdef double playout(State* s, Rng* r, const Params* P) noexcept nogil

# cython: language_level=3
"""The leaf evaluation: hand-set or learned (see _evaluation.pyx)."""
from jaipur_ai.rules._core cimport State
from jaipur_ai.search._features cimport N_FEATURES
from jaipur_ai.search._movefeatures cimport N_MOVE_FEATURES
from jaipur_ai.search._rawinputs cimport N_RAW

cdef enum:
    MAX_HIDDEN = 64            # largest hidden layer of a learned evaluation
    UNIT_BLOCK = 8             # hidden units are summed in whole blocks of this many
                               # (_kernels.h; MAX_HIDDEN is a multiple);
                               # the weights of units past n_hidden are 0
    MAX_RAW_HIDDEN = 128       # largest hidden layer of the raw-input network (a
                               # multiple of UNIT_BLOCK)

ctypedef struct Model:
    int n_hidden                       # hidden units in use (0: a linear model)
    int n_features                     # features the weights read: N_FEATURES, or
                                       # N_FEATURES_V1 for weights of features version 1
    double lin[N_FEATURES]             # linear weights of the win logit
    double margin[N_FEATURES]          # linear weights of the expected margin (points)
    double wt[N_FEATURES][MAX_HIDDEN]  # hidden layer weights, feature-major (the
                                       # transpose of a file's hidden_w): a feature's
                                       # weights to every unit are contiguous, so
                                       # the units are summed side by side, and a
                                       # feature that is 0 is skipped
    double b[MAX_HIDDEN]               # hidden layer biases
    double v[MAX_HIDDEN]               # output weights of the hidden units
    # the raw-input network (docs/search.md, "Raw inputs and lookahead targets"):
    # g(raw(s, p)) - g(raw(s, o)) added to the win logit,
    # g(x) = sum_j raw_v_j relu(raw_w_j . x + raw_b_j)
    int n_raw_hidden                   # its hidden units (0: none)
    double raw_wt[N_RAW][MAX_RAW_HIDDEN]  # its weights, input-major (the transpose of
                                       # a file's raw_w); units past n_raw_hidden are 0
    double raw_b[MAX_RAW_HIDDEN]       # its biases
    double raw_v[MAX_RAW_HIDDEN]       # its output weights
    # a cheaper value for the tree's priors (docs/search.md, "A hidden layer in the
    # search"): absent, the priors read the full value above (has_prior_lin 0)
    int has_prior_lin                  # 1: prior scores read prior_lin, not the full value
    double prior_lin[N_FEATURES]       # linear weights of the win logit the priors read
    # the learned move policy (docs/search.md, "The learned move policy"); absent, the
    # search reads the prior scores unchanged (has_prior 0, has_playout 0)
    int has_prior                      # 1: the tree's PUCT priors read prior_scale, prior_w
    double prior_scale                 # times the prior score over prior_temp ...
    double prior_w[N_MOVE_FEATURES]    # ... plus these weights of the move's features
    int has_playout                    # 1: the informed playouts read playout_w
    double playout_w[N_MOVE_FEATURES]  # points added to a playout move's score, per feature

# a position's raw-network sums, from which those of positions near it are updated
# (NNUE's accumulator): a move changes about 6.5 of a side's 51 raw inputs, so a child's
# unit inputs are its parent's plus those inputs' weights times their change
ctypedef struct RawSums:
    int valid                          # 0: x and a hold nothing yet (raw_sync sums afresh)
    double x[2][N_RAW]                 # the position's raw inputs from player 0's side,
                                       # then player 1's
    double a[2][MAX_RAW_HIDDEN]        # their units' inputs, biases included

cdef class Evaluation:
    cdef Model m                       # the weights, read by the search without the GIL
    cdef readonly object source        # where the weights came from (a path or a name)
    cdef readonly tuple calibration    # (a, b) or (a, b, c, d): the reported win probability's
                                       # map (jaipur_ai.search.evaluation.calibrated)
    cdef readonly tuple calibration_moves  # the same map for a search whose belief read the
                                       # round's moves (a hand prior); calibration if none

# win chance of p (and margin in points) of a full state: learned when model is not
# NULL, else the hand-set evaluation; a finished round is scored exactly
cdef double evaluate(const State* s, int p, double* margin, const Model* model) noexcept nogil
cdef double learned(const Model* M, const State* s, int p, double* margin) noexcept nogil
cdef double learned_logit(const Model* M, const State* s, int p, double* margin) noexcept nogil
# RawSums: raw_sums fills them for s; raw_sync moves them to s from whatever position
# they were filled for (at the cost of the inputs that differ), or fills them where
# they are not valid; child_logit is the
# learned win logit of p in t, a move away from their position: the same as
# learned_logit(M, t, p, margin) up to the rounding of the sums' order
cdef void raw_sums(const Model* M, const State* s, RawSums* R) noexcept nogil
cdef void raw_sync(const Model* M, const State* s, RawSums* R) noexcept nogil
cdef double child_logit(const Model* M, const RawSums* R, const State* t, int p,
                        double* margin) noexcept nogil
# the win logit the tree's priors read: prior_lin's where the model has one, else the
# full learned logit
cdef double prior_logit(const Model* M, const State* s, int p) noexcept nogil

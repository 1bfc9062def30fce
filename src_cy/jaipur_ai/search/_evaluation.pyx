# cython: language_level=3
"""The leaf evaluation: what a position not played to its end is worth.

ISMCTS scores a playout cut after ``cutoff`` plies with it, expectimax its leaves.
It reads the world it is given (a sampled world, never the real hidden state) and
returns an estimated win chance of one player, with an estimated margin in points
(docs/search.md, "Leaf evaluation").

Two evaluations: the hand-set one (tokens, what the hands would sell for, camels,
through a logistic curve) and a learned one (``Evaluation``): a win logit that is a
linear function of the features (_features.pyx) plus an antisymmetric hidden layer,
``h(f) - h(-f)`` with ``h(f) = sum_j v_j relu(w_j . f + b_j)``, and a linear margin.
As the features change sign with the player, the two players' values add up to one.
"""
from libc.math cimport exp
from libc.string cimport memset, memcpy

import os

import numpy as np

from jaipur_ai.rules._core cimport N_GOODS, RESULT_NONE, round_totals
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._features cimport features, N_FEATURES_V1
from jaipur_ai.search._rawinputs cimport raw_inputs
from jaipur_ai.search._heuristic cimport Heur, weights, hold_value
from jaipur_ai.search._decisive cimport outcome

# The inner loops (the hidden units' input sums, the raw network's output) are in C,
# written for vectors of four doubles (AVX2) and of two, the same bits from each
# (_kernels.h says how). JAIPUR_AI_KERNELS=generic in the environment keeps the
# two-double versions on a machine with AVX2 (to compare, or to rule them out).
cdef extern from "_kernels.h":
    void add_rows "jaipur_ai_add_rows"(const double* W, int stride, const int* row,
                                       const double* scale, int k, double* a,
                                       int nh) noexcept nogil
    double relu_out "jaipur_ai_relu_out"(const double* W, int stride, const double* v,
                                         const double* p0, const int* rp, const double* sp,
                                         int kp, const double* o0, const int* ro,
                                         const double* so, int ko, int nh) noexcept nogil
    const char* pick_kernels "jaipur_ai_pick_kernels"(int generic) noexcept nogil

# the vector width of the loops on this machine: "avx2" or "generic"
KERNELS = pick_kernels(os.environ.get("JAIPUR_AI_KERNELS", "") == "generic").decode()

cdef const Heur* H = weights()
# the hidden layers are summed UNIT_BLOCK units at a time, up to MAX_HIDDEN
assert MAX_HIDDEN % UNIT_BLOCK == 0 and MAX_RAW_HIDDEN % UNIT_BLOCK == 0


cdef inline double _heuristic(const State* s, int p, double* margin) noexcept nogil:
    cdef int t[2]
    cdef int g, o = 1 - p
    cdef double e
    round_totals(s, t)
    e = t[p] - t[o]
    for g in range(N_GOODS):
        if s.hand[p][g]:
            e += H.eval_hold * hold_value(s, g, s.hand[p][g])
        if s.hand[o][g]:
            e -= H.eval_hold * hold_value(s, g, s.hand[o][g])
    e += H.eval_camel * (<int>s.herd[p] - <int>s.herd[o])
    margin[0] = e
    return 1.0 / (1.0 + exp(-e / H.eval_scale))


cdef inline double _clamped(double z) noexcept nogil:
    """A win logit held within +-40 (beyond it the chance is 0 or 1 to double precision)."""
    return 40.0 if z > 40.0 else (-40.0 if z < -40.0 else z)


cdef double _feature_logit(const Model* M, const State* s, int p,
                           double* margin) noexcept nogil:
    """The learned win logit of p without the raw network (and the margin, in points):
    the linear features and the hidden layer over them."""
    cdef double f[N_FEATURES]
    cdef double a[MAX_HIDDEN]
    cdef double fnz[N_FEATURES]
    cdef int nz[N_FEATURES]
    cdef double z = 0.0, mg = 0.0, up, down
    cdef int i, j, k = 0, n = M.n_features, nh = M.n_hidden
    features(s, p, f, n)
    for i in range(n):
        z += M.lin[i] * f[i]
        mg += M.margin[i] * f[i]
    if nh:
        # the hidden units' input sums over the features that are not 0 (about 30 of
        # 53), UNIT_BLOCK units at a time (add_rows)
        for i in range(n):
            if f[i] != 0.0:
                nz[k] = i
                fnz[k] = f[i]
                k += 1
        memset(a, 0, sizeof(a))
        add_rows(&M.wt[0][0], MAX_HIDDEN, nz, fnz, k, a, _blocks(nh))
        # h(f) - h(-f), one unit at a time, without branches (the signs are as
        # good as random, and a mispredicted branch costs more than a unit)
        for j in range(nh):
            up = a[j] + M.b[j]
            down = M.b[j] - a[j]
            z += M.v[j] * ((up if up > 0.0 else 0.0) - (down if down > 0.0 else 0.0))
    margin[0] = mg
    return z


cdef double learned_logit(const Model* M, const State* s, int p, double* margin) noexcept nogil:
    """The learned win logit of p in a running round (and the margin, in points)."""
    cdef double z = _feature_logit(M, s, p, margin)
    if M.n_raw_hidden:
        z += _raw_network(M, s, p)
    return _clamped(z)


cdef inline int _blocks(int n) noexcept nogil:
    """n units rounded up to whole blocks (the weights of the units past n are 0)."""
    return (n + UNIT_BLOCK - 1) // UNIT_BLOCK * UNIT_BLOCK


cdef double _raw_network(const Model* M, const State* s, int p) noexcept nogil:
    """g(raw(s, p)) - g(raw(s, 1 - p)): the raw-input network's share of p's win logit,
    antisymmetric by construction."""
    cdef double xp[N_RAW]
    cdef double xo[N_RAW]
    cdef double ap[MAX_RAW_HIDDEN]
    cdef double ao[MAX_RAW_HIDDEN]
    raw_inputs(s, p, xp)
    raw_inputs(s, 1 - p, xo)
    _raw_side(M, xp, ap)
    _raw_side(M, xo, ao)
    return relu_out(&M.raw_wt[0][0], MAX_RAW_HIDDEN, M.raw_v, ap, NULL, NULL, 0,
                    ao, NULL, NULL, 0, _blocks(M.n_raw_hidden))


cdef void raw_sums(const Model* M, const State* s, RawSums* R) noexcept nogil:
    """Fill R with s's raw inputs and unit inputs from both players' sides."""
    R.valid = 1
    if M.n_raw_hidden:
        raw_inputs(s, 0, R.x[0])
        raw_inputs(s, 1, R.x[1])
        _raw_side(M, R.x[0], R.a[0])
        _raw_side(M, R.x[1], R.a[1])


cdef inline int _changed(const double* x0, const double* x, int* row,
                         double* d) noexcept nogil:
    """The raw inputs that differ from x0 to x (row) and by how much (d); their number."""
    cdef int i, k = 0
    for i in range(N_RAW):
        if x[i] != x0[i]:
            row[k] = i
            d[k] = x[i] - x0[i]
            k += 1
    return k


cdef void _raw_update(const Model* M, const double* x0, double* a,
                      const double* x) noexcept nogil:
    """a: the unit inputs of raw inputs x0, moved to those of x in place, over the
    inputs that changed only."""
    cdef int row[N_RAW]
    cdef double d[N_RAW]
    cdef int k = _changed(x0, x, row, d)
    add_rows(&M.raw_wt[0][0], MAX_RAW_HIDDEN, row, d, k, a, _blocks(M.n_raw_hidden))


# raw inputs all 0 (a C static, zeroed at load): a side's sums from scratch are its
# biases moved from these to its inputs (_raw_side)
cdef double ZERO_INPUTS[N_RAW]


cdef void _raw_side(const Model* M, const double* x, double* a) noexcept nogil:
    """a[0:n_raw_hidden]: the raw network's unit inputs for raw inputs x: the biases,
    moved from inputs all 0 to x (the inputs that are 0 skipped)."""
    memcpy(a, M.raw_b, _blocks(M.n_raw_hidden) * sizeof(double))
    _raw_update(M, ZERO_INPUTS, a, x)


cdef void raw_sync(const Model* M, const State* s, RawSums* R) noexcept nogil:
    """Move R to s, or fill it for s where it is not valid (see the .pxd)."""
    cdef double x[N_RAW]
    cdef int side
    if not R.valid:
        raw_sums(M, s, R)
    elif M.n_raw_hidden:
        for side in range(2):
            raw_inputs(s, side, x)
            _raw_update(M, R.x[side], R.a[side], x)
            memcpy(R.x[side], x, sizeof(x))


cdef double child_logit(const Model* M, const RawSums* R, const State* t, int p,
                        double* margin) noexcept nogil:
    """The learned win logit of p in t, a position a move away from R's (see the .pxd)."""
    cdef double x[N_RAW]
    cdef int rp[N_RAW]
    cdef int ro[N_RAW]
    cdef double dp[N_RAW]
    cdef double dn[N_RAW]
    cdef int kp, ko
    cdef double z = _feature_logit(M, t, p, margin)
    if M.n_raw_hidden:
        raw_inputs(t, p, x)
        kp = _changed(R.x[p], x, rp, dp)
        raw_inputs(t, 1 - p, x)
        ko = _changed(R.x[1 - p], x, ro, dn)
        z += relu_out(&M.raw_wt[0][0], MAX_RAW_HIDDEN, M.raw_v, R.a[p], rp, dp, kp,
                      R.a[1 - p], ro, dn, ko, _blocks(M.n_raw_hidden))
    return _clamped(z)


cdef double prior_logit(const Model* M, const State* s, int p) noexcept nogil:
    """The win logit of p that the tree's priors read (see the .pxd)."""
    cdef double f[N_FEATURES]
    cdef double z = 0.0, mg
    cdef int i, n = M.n_features
    if not M.has_prior_lin:
        return learned_logit(M, s, p, &mg)
    features(s, p, f, n)
    for i in range(n):
        z += M.prior_lin[i] * f[i]
    return _clamped(z)


cdef double learned(const Model* M, const State* s, int p, double* margin) noexcept nogil:
    """The learned win chance of p in a running round (no check for a finished one)."""
    return 1.0 / (1.0 + exp(-learned_logit(M, s, p, margin)))


cdef double evaluate(const State* s, int p, double* margin, const Model* model) noexcept nogil:
    """Leaf evaluation: (estimated win chance of p, estimated margin in points)."""
    if s.result != RESULT_NONE:
        return outcome(s, p, margin)
    if model != NULL:
        return learned(model, s, p, margin)
    return _heuristic(s, p, margin)


cdef class Evaluation:
    """Learned evaluation weights in the form the search reads (plain C arrays).

    Built from numpy arrays already checked by ``jaipur_ai.search.evaluation`` (which loads
    and validates weights files): ``lin`` and ``margin`` of length F, ``hidden_w``
    (H, F), ``hidden_b`` and ``out_w`` (H,), H <= MAX_HIDDEN, where F is N_FEATURES
    or, for weights of features version 1, N_FEATURES_V1 (they read those only)."""

    def __init__(self, lin, margin, hidden_w, hidden_b, out_w, source="<arrays>",
                 calibration=(1.0, 0.0), prior_scale=None, prior_w=None, playout_w=None,
                 prior_lin=None, raw_w=None, raw_b=None, raw_out=None,
                 calibration_moves=None):
        lin = np.asarray(lin, np.float64)
        margin = np.asarray(margin, np.float64)
        nf = lin.shape[0] if lin.ndim == 1 else -1
        if nf not in (N_FEATURES, N_FEATURES_V1) or margin.shape != (nf,):
            raise ValueError(f"lin and margin must have {N_FEATURES} entries (or "
                             f"{N_FEATURES_V1}, features version 1)")
        hidden_w = np.asarray(hidden_w, np.float64).reshape(-1, nf)
        hidden_b = np.asarray(hidden_b, np.float64).ravel()
        out_w = np.asarray(out_w, np.float64).ravel()
        nh = hidden_w.shape[0]
        if nh > MAX_HIDDEN or hidden_b.shape != (nh,) or out_w.shape != (nh,):
            raise ValueError(f"hidden layer: at most {MAX_HIDDEN} units, with one bias "
                             "and one output weight each")
        for arr in (lin, margin, hidden_w, hidden_b, out_w):
            if not np.all(np.isfinite(arr)):
                raise ValueError("weights must be finite")
        self.m.n_hidden = nh
        self.m.n_features = nf
        for i in range(nf):
            self.m.lin[i] = lin[i]
            self.m.margin[i] = margin[i]
        memset(self.m.wt, 0, sizeof(self.m.wt))    # units past nh: weights 0
        for j in range(nh):
            self.m.b[j] = hidden_b[j]
            self.m.v[j] = out_w[j]
            for i in range(nf):
                self.m.wt[i][j] = hidden_w[j, i]
        # the raw-input network, where given: raw_w (R, N_RAW), raw_b and raw_out (R,)
        self.m.n_raw_hidden = 0
        memset(self.m.raw_wt, 0, sizeof(self.m.raw_wt))
        memset(self.m.raw_b, 0, sizeof(self.m.raw_b))
        memset(self.m.raw_v, 0, sizeof(self.m.raw_v))
        if (raw_w is None) != (raw_out is None) or (raw_w is None) != (raw_b is None):
            raise ValueError("raw_w, raw_b and raw_out go together")
        if raw_w is not None:
            rw = np.asarray(raw_w, np.float64)
            rb = np.asarray(raw_b, np.float64).ravel()
            ro = np.asarray(raw_out, np.float64).ravel()
            nr = rw.shape[0] if rw.ndim == 2 else -1
            if (nr < 0 or rw.shape[1] != N_RAW or nr > MAX_RAW_HIDDEN or rb.shape != (nr,)
                    or ro.shape != (nr,)):
                raise ValueError(f"raw network: raw_w (R, {N_RAW}), raw_b and raw_out "
                                 f"(R,), R <= {MAX_RAW_HIDDEN}")
            if not (np.all(np.isfinite(rw)) and np.all(np.isfinite(rb))
                    and np.all(np.isfinite(ro))):
                raise ValueError("weights must be finite")
            self.m.n_raw_hidden = nr
            for j in range(nr):
                self.m.raw_b[j] = rb[j]
                self.m.raw_v[j] = ro[j]
                for i in range(N_RAW):
                    self.m.raw_wt[i][j] = rw[j, i]
        # the priors' own linear value (the file's prior_lin), where given
        self.m.has_prior_lin = 0
        if prior_lin is not None:
            pl = np.asarray(prior_lin, np.float64)
            if pl.shape != (nf,):
                raise ValueError(f"prior_lin must have {nf} entries, as lin")
            if not np.all(np.isfinite(pl)):
                raise ValueError("weights must be finite")
            self.m.has_prior_lin = 1
            for i in range(nf):
                self.m.prior_lin[i] = pl[i]
        # the move policy: prior_scale and prior_w together, playout_w alone
        self.m.has_prior = 0
        self.m.prior_scale = 1.0
        self.m.has_playout = 0
        for i in range(N_MOVE_FEATURES):
            self.m.prior_w[i] = 0.0
            self.m.playout_w[i] = 0.0
        if (prior_scale is None) != (prior_w is None):
            raise ValueError("prior_scale and prior_w go together")
        if prior_w is not None:
            pw = _move_weights(prior_w, "prior_w")
            if not (np.isfinite(prior_scale) and prior_scale >= 0.0):
                raise ValueError("prior_scale must be finite and >= 0")
            self.m.has_prior = 1
            self.m.prior_scale = prior_scale
            for i in range(N_MOVE_FEATURES):
                self.m.prior_w[i] = pw[i]
        if playout_w is not None:
            qw = _move_weights(playout_w, "playout_w")
            self.m.has_playout = 1
            for i in range(N_MOVE_FEATURES):
                self.m.playout_w[i] = qw[i]
        self.source = source
        self.calibration = tuple(float(x) for x in calibration)
        if len(self.calibration) not in (2, 4):
            raise ValueError("calibration must be two or four numbers")
        self.calibration_moves = (self.calibration if calibration_moves is None else
                                  tuple(float(x) for x in calibration_moves))
        if len(self.calibration_moves) not in (2, 4):
            raise ValueError("calibration_moves must be two or four numbers")

    @property
    def has_policy(self):
        """Whether the weights hold a learned move policy (tree priors, playouts)."""
        return bool(self.m.has_prior or self.m.has_playout)

    @property
    def has_prior_lin(self):
        """Whether the tree's priors read a linear value of their own (prior_lin)."""
        return bool(self.m.has_prior_lin)

    @property
    def n_hidden(self):
        return self.m.n_hidden

    @property
    def n_raw_hidden(self):
        """Hidden units of the raw-input network (0: none)."""
        return self.m.n_raw_hidden

    @property
    def n_features(self):
        """Features the weights read (N_FEATURES, or N_FEATURES_V1 for version 1)."""
        return self.m.n_features

    def value(self, CoreState st, int player):
        """(win chance, margin) of a full state for player, as the search computes it."""
        cdef double mg
        if player not in (0, 1):
            raise ValueError("player must be 0 or 1")
        w = evaluate(&st.s, player, &mg, &self.m)
        return w, mg


def raw_sums_drift(Evaluation evaluation, states):
    """Move one set of raw-network sums through ``states`` (CoreStates) in turn, as the
    tree does from one position's priors to the next (raw_sync), and return, after
    each, the largest difference from the sums computed afresh: for tests."""
    cdef RawSums R, fresh
    cdef CoreState st
    cdef const Model* M = &evaluation.m
    cdef int side, j
    cdef double worst
    if M.n_raw_hidden == 0:
        raise ValueError("the evaluation has no raw network")
    out = []
    R.valid = 0
    for st in states:
        raw_sync(M, &st.s, &R)
        raw_sums(M, &st.s, &fresh)
        worst = 0.0
        for side in range(2):
            for j in range(N_RAW):
                worst = max(worst, abs(R.x[side][j] - fresh.x[side][j]))
            for j in range(M.n_raw_hidden):
                worst = max(worst, abs(R.a[side][j] - fresh.a[side][j]))
        out.append(worst)
    return out


def _move_weights(w, name):
    w = np.asarray(w, np.float64)
    if w.shape != (N_MOVE_FEATURES,):
        raise ValueError(f"{name} must have {N_MOVE_FEATURES} entries")
    if not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite")
    return w


def heuristic_value(CoreState st, int player):
    """(win chance, margin) of a full state for player by the hand-set evaluation."""
    cdef double mg
    if player not in (0, 1):
        raise ValueError("player must be 0 or 1")
    w = evaluate(&st.s, player, &mg, NULL)
    return w, mg


def time_evaluation(CoreState st, int n, Evaluation evaluation=None):
    """Seconds per evaluation of st (learned with `evaluation`, else hand-set), timed
    over n calls in C: the cost figure of docs/performance.md."""
    from time import perf_counter
    cdef double mg, acc = 0.0
    cdef int i
    cdef const Model* m = NULL if evaluation is None else &evaluation.m
    if n < 1:
        raise ValueError("n must be >= 1")
    t = perf_counter()
    with nogil:
        for i in range(n):
            acc += evaluate(&st.s, i & 1, &mg, m)
    t = perf_counter() - t
    if acc < 0:     # (keeps the loop from being optimised away)
        raise AssertionError
    return t / n

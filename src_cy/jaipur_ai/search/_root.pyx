# cython: language_level=3
"""The searched position and what every searcher shares (_root.pxd)."""
from libc.string cimport memcpy
from libc.stdint cimport uint64_t

import threading

import numpy as np

from jaipur_ai.rules._core cimport RESULT_NONE, N_GOODS, Rng, rng_seed
from jaipur_ai.rules._dealing cimport make_view
from jaipur_ai.rules._bridge cimport CoreState, CoreView
from jaipur_ai.search._worlds cimport mix, sample_world
from jaipur_ai.search._decisive cimport decisive_table


def derive_seed(uint64_t seed, uint64_t index):
    """Seed of the index-th sub-search (thread) of a search seeded with `seed`."""
    return mix(seed ^ mix(index + <uint64_t>0xD1B54A32D192ED03))


cdef int root_position(object pos, View* v, State* truth, bint* cheat) except -1:
    """Fill v (and truth when a full state is searched with perfect information)."""
    cdef CoreView cv
    cdef CoreState cs
    if isinstance(pos, CoreView):
        cv = pos
        v[0] = cv.v
        cheat[0] = False
        memcpy(truth, &v.s, sizeof(State))
    elif isinstance(pos, CoreState):
        cs = pos
        truth[0] = cs.s
        make_view(&cs.s, cs.s.to_move, v)
        cheat[0] = True
    else:
        raise TypeError(f"expected CoreView or CoreState, got {type(pos).__name__}")
    if v.s.result != RESULT_NONE:
        raise ValueError("the round is over: there is no move to search")
    if v.s.to_move != v.observer:
        raise ValueError("it is not the observer's turn")
    return 0


cdef double deadline_of(object seconds, object deadline) except? -2.0:
    """The clock reading at which a search must stop, -1 for none: the earlier of
    ``seconds`` from now and ``deadline``, an absolute reading of the monotonic clock
    (``time.monotonic()``, the clock of :func:`now`).  Callers that start a search in a
    thread pass ``deadline`` so that the thread's start-up delay is not added to the
    budget."""
    cdef double dl = -1.0, d
    if seconds is not None:
        dl = now() + max(0.0, float(seconds))
    if deadline is not None:
        d = float(deadline)
        if d != d:
            raise ValueError("deadline must be a number, not NaN")
        if dl < 0.0 or d < dl:
            dl = max(0.0, d)
    return dl


def hand_prior_arrays(hands, weights):
    """A belief over the opponent's unknown goods as the compiled samplers read it:
    (hands, k rows of N_GOODS counts as uint8; their cumulative weights as float64),
    or a ValueError saying what is wrong with them."""
    ha = np.ascontiguousarray(hands, dtype=np.uint8)
    wa = np.asarray(weights, dtype=np.float64)
    if ha.ndim != 2 or ha.shape[1] != N_GOODS or ha.shape[0] == 0:
        raise ValueError(f"hands must be a non-empty (k, {N_GOODS}) array of counts")
    if wa.shape != (ha.shape[0],):
        raise ValueError("weights must hold one number per row of hands")
    if not (np.all(np.isfinite(wa)) and np.all(wa >= 0.0) and wa.sum() > 0.0):
        raise ValueError("weights must be finite, non-negative and not all 0")
    return ha, np.ascontiguousarray(np.cumsum(wa))


cdef class RootSearch:
    """Base of the searchers: the root, the stop flag, the decisive table."""

    cdef int _set_root(self, object pos, uint64_t seed) except -1:
        root_position(pos, &self.view, &self.truth, &self.cheat)
        self.seed = seed
        self.stop_flag = 0
        self.prior.n = 0
        self._prior_arrays = None
        self._lock = threading.Lock()
        return 0

    cdef int _judge_decisive(self, int samples, bint judge=True) except -1:
        """Judge the round-ending root moves now, or (``judge`` false) leave it to
        ``judge_decisive``, which honours a time budget and the stop flag."""
        self.decisive_samples = samples
        self.decisive = {}
        if judge:
            self.decisive = decisive_table(&self.view, &self.truth, self.cheat, samples,
                                           self.seed, -1.0, NULL, &self.prior)
        return 0

    def judge_decisive(self, seconds=None, deadline=None):
        """Judge the round-ending root moves over the sampled worlds (in the same
        worlds as at construction), stopping early, on fewer worlds, after
        ``seconds``, at ``deadline`` (see :func:`deadline_of`) or at the stop flag.
        Releases the GIL while it samples."""
        cdef double dl = deadline_of(seconds, deadline)
        self.decisive = decisive_table(&self.view, &self.truth, self.cheat,
                                       self.decisive_samples, self.seed, dl,
                                       &self.stop_flag, &self.prior)

    def set_hand_prior(self, hands, weights):
        """Deal the opponent's unknown goods by a prior instead of uniformly: ``hands``
        (k rows of N_GOODS counts, the goods its unknown hand slots hold) with
        ``weights`` (k non-negative numbers, not all 0).  Set it before searching
        (and before ``judge_decisive``); ``hands=None`` goes back to uniform.  A
        row that no world of the searched view allows is a ValueError."""
        cdef const unsigned char[:, ::1] h
        cdef const double[::1] c
        cdef int i
        cdef Rng r
        cdef State probe
        if hands is None:
            self.prior.n = 0
            self._prior_arrays = None
            return
        ha, ca = hand_prior_arrays(hands, weights)
        h = ha
        c = ca
        rng_seed(&r, self.seed)
        self.prior.n = 1
        self.prior.cum = &c[0]
        for i in range(ha.shape[0]):
            self.prior.hands = &h[i, 0]
            if not self.cheat and sample_world(&self.view, &self.truth, False, &self.prior,
                                               &probe, &r) != 0:
                self.prior.n = 0
                raise ValueError(f"hands row {i} does not fit the searched view")
        self.prior.n = ha.shape[0]
        self.prior.hands = &h[0, 0]
        self.prior.cum = &c[0]
        self._prior_arrays = (ha, ca)

    def stop(self):
        """Ask a running search to return (thread-safe; the flag stays set)."""
        self.stop_flag = 1

    def clear_stop(self):
        self.stop_flag = 0

    @property
    def stopped(self):
        return bool(self.stop_flag)

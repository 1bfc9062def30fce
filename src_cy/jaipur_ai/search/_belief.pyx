# cython: language_level=3
"""How likely a move is for each hand its mover may hold (the likelihood of a belief
over the opponent's hand; jaipur_ai/search/belief.py is the Python side).

The model of the mover is a softmax, at a temperature, over every legal move scored
either by the learned value of the position it leads to (``SCORER_LEARNED``) or by the
hand-set move score, the greedy engine's judgement (``SCORER_GREEDY``); mixed with a
floor that every legal move gets, so that a move the model would never play does not
rule a hand out.
"""
from libc.string cimport memcpy
from libc.math cimport exp, log
from libc.stdint cimport int32_t, uint64_t

cimport numpy as cnp
import numpy as np

from jaipur_ai.rules._core cimport (State, Move, Rng, N_GOODS, MAX_MOVES, RESULT_NONE, action_of,
                                    move_of, rng_seed, apply_move)
from jaipur_ai.rules._dealing cimport sample_view_hand
from jaipur_ai.rules._movegen cimport gen_moves, is_legal
from jaipur_ai.rules._bridge cimport CoreView
from jaipur_ai.search._heuristic cimport score_move
from jaipur_ai.search._policy cimport LEARNED_POINTS
from jaipur_ai.search._evaluation cimport Evaluation, evaluate, RawSums, raw_sums, child_logit

cnp.import_array()

# how a model scores the mover's moves (hand_likelihoods' ``scorer``)
SCORER_LEARNED = 1      # every legal move, by the learned value of where it leads
SCORER_GREEDY = 2       # every legal move, by the hand-set move score (the greedy engine)


cdef inline double _mixed(double* sc, int n, int hit, double temp, double floor,
                          int nlegal) noexcept:
    """(1 - floor) * the softmax share at ``temp`` of score hit among the n scores in
    sc (none when hit is -1) + floor / nlegal; sc is overwritten."""
    cdef double mx = -1e300, tot = 0.0
    cdef int i
    if n == 0:
        return floor / nlegal
    for i in range(n):
        if sc[i] > mx:
            mx = sc[i]
    for i in range(n):
        sc[i] = exp((sc[i] - mx) / temp)
        tot += sc[i]
    return (1.0 - floor) * (sc[hit] / tot if hit >= 0 else 0.0) + floor / nlegal


cdef double _likelihood_all(const State* s, const Move* m, int32_t action, double temp,
                            double floor, Evaluation ev) noexcept:
    """P(m | s) with every legal move scored: by the learned value of the position it
    leads to (LEARNED_POINTS per unit of win logit; a finished round exactly) when
    ``ev`` is given, else by score_move, the greedy engine's score (which also weighs
    moves that end the round by sampling: the floor covers those)."""
    cdef Move buf[MAX_MOVES]
    cdef double sc[MAX_MOVES]
    cdef State t
    cdef RawSums R
    cdef int n, i, hit = -1
    cdef double w, mg
    cdef bint upd = ev is not None and ev.m.n_raw_hidden > 0
    if not is_legal(s, m):
        return 0.0
    n = gen_moves(s, buf)
    if upd:                             # a raw network's sums: the parent's, updated
        raw_sums(&ev.m, s, &R)
    for i in range(n):
        if ev is None:
            sc[i] = score_move(s, &buf[i])
        else:
            memcpy(&t, s, sizeof(State))
            apply_move(&t, &buf[i])
            if upd and t.result == RESULT_NONE:
                w = 1.0 / (1.0 + exp(-child_logit(&ev.m, &R, &t, s.to_move, &mg)))
            else:
                w = evaluate(&t, s.to_move, &mg, &ev.m)
            if w < 1e-4:
                w = 1e-4
            elif w > 1.0 - 1e-4:
                w = 1.0 - 1e-4
            sc[i] = LEARNED_POINTS * log(w / (1.0 - w))
        if action_of(&buf[i]) == action:
            hit = i
    return _mixed(sc, n, hit, temp, floor, n)


def hand_likelihoods(CoreView view, int32_t action, unknown_goods,
                     Evaluation evaluation=None, double temp=4.0, double floor=0.05,
                     uint64_t seed=0, int scorer=SCORER_GREEDY):
    """For each row of ``unknown_goods`` (k rows of N_GOODS counts: the goods the
    observer of ``view`` has not seen in its opponent's hand, who is to move), the
    probability that the opponent plays ``action`` (a fixed action id), by the model
    above, in a world of the view with those goods (the rest of the unseen cards
    dealt by ``seed``, the same deal for every row).  ``scorer``: SCORER_LEARNED, every
    legal move scored by ``evaluation``'s learned values; SCORER_GREEDY, every legal
    move by its hand-set move score.  A row that the view does not allow, or with
    which the move is illegal, gets 0."""
    cdef const unsigned char[:, ::1] h
    cdef State t
    cdef Move m
    cdef Rng r
    cdef int i
    if view.v.s.result != RESULT_NONE or view.v.s.to_move == view.v.observer:
        raise ValueError("the view's opponent must be to move in a running round")
    if not (temp > 0.0) or not (0.0 <= floor <= 1.0):
        raise ValueError("temp must be > 0 and floor in [0, 1]")
    if move_of(action, &m) != 0:
        raise ValueError(f"{action} is not an action id")
    if scorer not in (SCORER_LEARNED, SCORER_GREEDY):
        raise ValueError(f"scorer must be {SCORER_LEARNED} or {SCORER_GREEDY}, got {scorer}")
    if scorer == SCORER_LEARNED and evaluation is None:
        raise ValueError("SCORER_LEARNED scores by learned values: give an evaluation")
    ha = np.ascontiguousarray(unknown_goods, dtype=np.uint8)
    if ha.ndim != 2 or ha.shape[1] != N_GOODS:
        raise ValueError(f"unknown_goods must be a (k, {N_GOODS}) array of counts")
    out = np.zeros(ha.shape[0], dtype=np.float64)
    cdef double[::1] o = out
    if ha.shape[0] == 0:
        return out
    h = ha
    for i in range(ha.shape[0]):
        rng_seed(&r, seed)
        if sample_view_hand(&view.v, &h[i, 0], &t, &r) != 0:
            continue
        o[i] = _likelihood_all(&t, &m, action, temp, floor,
                               evaluation if scorer == SCORER_LEARNED else None)
    return out

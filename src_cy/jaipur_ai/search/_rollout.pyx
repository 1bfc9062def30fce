# cython: language_level=3
"""Rollouts with common random numbers: the reference values of the move-quality
benchmark (bench/bench_quality.py, docs/strength.md "The move-quality benchmark").

Every candidate move of a position is played out in the same sampled worlds (the
opponent's hand, the draw pile's order and the bonus tokens drawn from the mover's view)
with the same random numbers for the rollout policy, to the end of the round.  Two
candidates' results then differ only where the moves themselves lead apart, so the
difference of their means has a far smaller variance than two independent estimates.

The rollout policy is fixed and cheap: the informed playout policy, by the hand-set
move scores alone or with the learned move policy of given (frozen) weights, a
uniformly random candidate with chance ``epsilon``.  The opponent chooses in a world
re-dealt from what it knows (it never reads the mover's hidden cards); with ``fair``
the mover does too after its first move (it never reads the opponent's hidden cards
nor the pile's order), so neither side of a rollout plays with the sampled world's
secrets.
"""
from libc.string cimport memset, memcpy
from libc.stdint cimport uint64_t, int32_t

import numpy as np
cimport numpy as cnp

from jaipur_ai.rules._core cimport (State, View, Move, Rng, rng_seed, apply_move, move_of,
                                    round_totals, RESULT_NONE, RESULT_DRAW)
from jaipur_ai.rules._movegen cimport is_legal
from jaipur_ai.rules._bridge cimport CoreView
from jaipur_ai.search._params cimport Params, PLAYOUT_INFORMED
from jaipur_ai.search._policy cimport policy_move
from jaipur_ai.search._worlds cimport mix, chooser_world, sample_world, HandPrior
from jaipur_ai.search._evaluation cimport Evaluation, evaluate
from jaipur_ai.search._root import hand_prior_arrays

cnp.import_array()

__all__ = ["rollout_outcomes", "MAX_ROLLOUT_PLIES"]

cdef enum:
    MAX_PLIES = 1000           # a round ends long before (the draw pile runs out)

MAX_ROLLOUT_PLIES = MAX_PLIES


def rollout_outcomes(CoreView view, actions, int worlds, uint64_t seed, int first=0,
                     double epsilon=0.05, double noise=1.0, Evaluation evaluation=None,
                     bint fair=False, hands=None, weights=None, bint per_ply=False,
                     int cutoff=0):
    """The results of playing each of ``actions`` (action ids, legal for the view's
    mover) in worlds ``first`` .. ``first + worlds - 1`` and rolling the round out.

    Returns ``(scores, margins)``, arrays of shape ``(len(actions), worlds)``: the
    mover's result (1 won, 0.5 drawn, 0 lost the round) and its points minus the
    opponent's.  World ``w`` and its random numbers depend only on ``seed`` and ``w``,
    so that a later call for another move, or for more worlds, is comparable world
    by world (with the same policy: ``epsilon``, ``noise``, ``evaluation``, ``fair``).

    ``hands``, ``weights``: a belief over the opponent's unknown goods (as
    ``IsmctsSearcher.set_hand_prior`` takes it): each world deals them as one of the
    rows of ``hands``, drawn by weight; none: uniformly.

    ``per_ply``: the rollout policy's random numbers are drawn afresh at every ply from
    the world and the ply's number, so two candidates' rounds use the same numbers at
    the same ply however many each used before (the numbers stay common after the
    rounds part).  Off, one stream runs through the round: the benchmark's references
    were built so and are reproduced.

    ``cutoff``: a round still running after that many plies past the move is scored by
    the leaf evaluation (``evaluation``, else the hand-set one) as the mover's win
    chance and expected margin (truncated rollouts); 0: every round played out."""
    cdef cnp.ndarray[cnp.int32_t, ndim=1] acts = np.ascontiguousarray(actions, dtype=np.int32)
    cdef int n = acts.shape[0], i, w, mover = view.v.observer, plies
    cdef cnp.ndarray[cnp.float32_t, ndim=2] score = np.zeros((n, worlds), np.float32)
    cdef cnp.ndarray[cnp.int16_t, ndim=2] margin = np.zeros((n, worlds), np.int16)
    cdef float[:, ::1] sv = score
    cdef short[:, ::1] mv = margin
    cdef Move moves[64]
    cdef Move m
    cdef State world, s, t
    cdef Rng r
    cdef Params P
    cdef int tot[2]
    cdef uint64_t ws
    cdef int limit = cutoff if cutoff > 0 else MAX_PLIES
    cdef double win, mgd
    cdef HandPrior prior
    cdef const unsigned char[:, ::1] hv
    cdef const double[::1] cv
    prior.n = 0
    if hands is not None:
        ha, ca = hand_prior_arrays(hands, weights)
        hv = ha
        cv = ca
        prior.n = ha.shape[0]
        prior.hands = &hv[0, 0]
        prior.cum = &cv[0]
    if cutoff < 0:
        raise ValueError("cutoff must be >= 0")
    if worlds < 0 or first < 0:
        raise ValueError("worlds and first must be >= 0")
    if n > 64:
        raise ValueError("at most 64 actions a call")
    if view.v.s.result != RESULT_NONE or view.v.s.to_move != mover:
        raise ValueError("the view must be its observer's turn in a running round")
    for i in range(n):
        if move_of(acts[i], &moves[i]) != 0 or not is_legal(&view.v.s, &moves[i]):
            raise ValueError(f"action {acts[i]} is not a legal move of the view")
    memset(&P, 0, sizeof(Params))
    P.playout = PLAYOUT_INFORMED
    P.epsilon = epsilon
    P.noise = noise
    P.observer = mover
    P.opp_view = 1
    if evaluation is not None:
        P.model = &evaluation.m
        P.use_policy = 1
    with nogil:
        for w in range(first, first + worlds):
            ws = mix(seed ^ mix(<uint64_t>w + 1))
            rng_seed(&r, ws)
            if sample_world(&view.v, NULL, False, &prior, &world, &r) != 0:
                with gil:
                    raise ValueError("the view is inconsistent: no full state matches it"
                                     if prior.n == 0 else
                                     "a row of hands does not fit the view")
            for i in range(n):
                memcpy(&s, &world, sizeof(State))
                apply_move(&s, &moves[i])
                rng_seed(&r, mix(ws ^ <uint64_t>0x5851F42D4C957F2D))   # the same for every move
                plies = 0
                while s.result == RESULT_NONE and plies < limit:
                    if per_ply:
                        rng_seed(&r, mix(ws ^ mix(<uint64_t>plies + 0x9E37)))
                    # the opponent chooses in a world re-dealt from what it knows,
                    # and (fair) so does the mover
                    if policy_move(chooser_world(&s, mover, True, fair, &t, &r),
                                   &r, &P, &m) != 0:
                        break
                    apply_move(&s, &m)
                    plies += 1
                if s.result == RESULT_NONE and cutoff > 0:
                    win = evaluate(&s, mover, &mgd, P.model)
                    sv[i, w - first] = <float>win
                    mv[i, w - first] = <short>(mgd + 0.5 if mgd >= 0 else mgd - 0.5)
                    continue
                round_totals(&s, tot)
                mv[i, w - first] = tot[mover] - tot[1 - mover]
                if s.result == mover:
                    sv[i, w - first] = 1.0
                elif s.result == RESULT_DRAW or s.result == RESULT_NONE:
                    sv[i, w - first] = 0.5
                else:
                    sv[i, w - first] = 0.0
    return score, margin

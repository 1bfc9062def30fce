# cython: language_level=3
"""Fast self-play by the informed playout policy, for training data (generation 0).

Each round is dealt from the seed and played by the informed policy for both
players; every position before a move is recorded with its features from the
mover's side, and labelled afterwards with the round's result and margin from that
side.  Searched self-play (ISMCTS choosing the moves) lives in jaipur_ai.learning.selfplay;
this loop is the same idea without the search, thousands of rounds a second.
"""
from libc.stdint cimport uint64_t, int32_t

import numpy as np

from jaipur_ai.rules._core cimport (State, Move, Rng, RESULT_NONE, RESULT_DRAW, rng_seed,
                                    rng_below, apply_move, action_of, round_totals)
from jaipur_ai.rules._dealing cimport new_match
from libc.string cimport memset, memcpy
from jaipur_ai.rules._bridge cimport CoreState
from jaipur_ai.search._heuristic cimport HoldTab, hold_tab
from jaipur_ai.search._policy cimport MAX_CAND, candidates, score_candidates, rescore_learned
from jaipur_ai.search._movefeatures cimport N_MOVE_FEATURES, move_features
from jaipur_ai.search._evaluation cimport Evaluation
from jaipur_ai.search._params cimport Params, PLAYOUT_INFORMED
from jaipur_ai.search._policy cimport policy_move
from jaipur_ai.search._features cimport N_FEATURES, features
from jaipur_ai.search._worlds cimport mix

DEF MAX_PLIES = 400


def policy_rounds(uint64_t seed, int rounds, double epsilon=0.1, double noise=1.0):
    """Play `rounds` rounds by the informed policy; returns a dict of numpy arrays, one
    row per position: features (float32, N_FEATURES), result and margin from the
    mover's side (1 / 0.5 / 0; points), mover, ply, round (0..rounds-1), action."""
    cdef State s
    cdef Rng r
    cdef Move m
    cdef Params P
    cdef int i, k, n = 0, start, ply, t[2], w, cap
    cdef double f[N_FEATURES]
    if rounds < 0:
        raise ValueError("rounds must be >= 0")
    cap = rounds * 64 + 64
    feats = np.zeros((cap, N_FEATURES), np.float32)
    result = np.zeros(cap, np.float32)
    margin = np.zeros(cap, np.float32)
    mover = np.zeros(cap, np.int8)
    plies = np.zeros(cap, np.int16)
    rid = np.zeros(cap, np.int32)
    action = np.zeros(cap, np.int32)
    cdef float[:, ::1] F = feats
    cdef float[::1] R = result, M = margin
    cdef signed char[::1] MV = mover
    cdef short[::1] PL = plies
    cdef int32_t[::1] RI = rid, AC = action
    memset(&P, 0, sizeof(Params))
    P.playout = PLAYOUT_INFORMED
    P.epsilon = epsilon
    P.noise = noise
    for i in range(rounds):
        rng_seed(&r, mix(seed ^ mix(<uint64_t>i)))
        new_match(&s, &r, rng_below(&r, 2), 0)
        start = n
        ply = 0
        while s.result == RESULT_NONE and ply < MAX_PLIES:
            if policy_move(&s, &r, &P, &m) != 0:
                break
            if n >= cap:
                # (rounds longer than 64 plies are rare; grow by half)
                cap = cap + cap // 2
                feats = np.resize(feats, (cap, N_FEATURES)); F = feats
                result = np.resize(result, cap); R = result
                margin = np.resize(margin, cap); M = margin
                mover = np.resize(mover, cap); MV = mover
                plies = np.resize(plies, cap); PL = plies
                rid = np.resize(rid, cap); RI = rid
                action = np.resize(action, cap); AC = action
            features(&s, s.to_move, f, N_FEATURES)
            for k in range(N_FEATURES):
                F[n, k] = <float>f[k]
            MV[n] = s.to_move
            PL[n] = ply
            RI[n] = i
            AC[n] = action_of(&m)
            n += 1
            apply_move(&s, &m)
            ply += 1
        if s.result == RESULT_NONE:
            n = start            # never finished: drop the round
            continue
        round_totals(&s, t)
        w = s.result
        for k in range(start, n):
            if w == RESULT_DRAW:
                R[k] = 0.5
            else:
                R[k] = 1.0 if w == MV[k] else 0.0
            M[k] = t[MV[k]] - t[1 - MV[k]]
    return {"features": feats[:n].copy(), "result": result[:n].copy(),
            "margin": margin[:n].copy(), "mover": mover[:n].copy(), "ply": plies[:n].copy(),
            "round": rid[:n].copy(), "action": action[:n].copy()}


# ---------------------------------------------------------------------------
# The move policy's training rows (expert iteration: docs/search.md, "The learned move
# policy"): the search's visits of each candidate the policy scores.
# ---------------------------------------------------------------------------
STATE_BYTES = sizeof(State)


def state_bytes(CoreState st):
    """The full state as bytes (STATE_BYTES of them), for the self-play shards: a
    position the training reads back exactly as the search saw it."""
    return (<char*>&st.s)[:sizeof(State)]


def state_of_bytes(data):
    """The CoreState whose bytes are ``data`` (``state_bytes``' inverse), for work on
    the shards' stored states (the lookahead targets: jaipur_ai.learning.lookahead)."""
    cdef const unsigned char[::1] b = np.frombuffer(bytes(data), np.uint8)
    cdef CoreState c
    if b.shape[0] != sizeof(State):
        raise ValueError(f"a state has {sizeof(State)} bytes, got {b.shape[0]}")
    c = CoreState.__new__(CoreState)
    memcpy(&c.s, &b[0], sizeof(State))
    return c


def policy_rows(states, child_action, child_visits, Evaluation evaluation=None):
    """The move policy's training rows of searched positions.

    ``states``: uint8 (n, STATE_BYTES), the full states (``state_bytes``);
    ``child_action``, ``child_visits``: int32 (n, k), the root's moves and their visits
    (action -1: none).  For each position, every candidate of the informed policy
    (those the tree's priors cover) is a row: its position, its prior score (the
    learned value of the position after it with ``evaluation``, else the move score),
    its playout score (the move score), its move features and its target, its share
    of the candidates' visits.  Positions whose candidates got no visit are left out.
    Returns a dict of numpy arrays."""
    cdef const unsigned char[:, ::1] S = np.ascontiguousarray(states, np.uint8)
    cdef const int32_t[:, ::1] CA = np.ascontiguousarray(child_action, np.int32)
    cdef const int32_t[:, ::1] CV = np.ascontiguousarray(child_visits, np.int32)
    cdef int n = S.shape[0], k = CA.shape[1], i, j, c, nc, rows = 0, cap
    cdef State s
    cdef HoldTab T
    cdef Move cand[MAX_CAND]
    cdef double hsc[MAX_CAND]
    cdef double psc[MAX_CAND]
    cdef double vis[MAX_CAND]
    cdef double tot
    cdef int32_t a
    if S.shape[1] != sizeof(State):
        raise ValueError(f"states must have {sizeof(State)} bytes a row")
    if CA.shape[0] != n or CV.shape[0] != n or CV.shape[1] != k:
        raise ValueError("child_action and child_visits must have one row per state")
    cap = n * MAX_CAND + 1
    pos = np.zeros(cap, np.int32)
    prior = np.zeros(cap, np.float64)
    play = np.zeros(cap, np.float64)
    feats = np.zeros((cap, N_MOVE_FEATURES), np.float32)
    target = np.zeros(cap, np.float64)
    cdef int32_t[::1] P = pos
    cdef double[::1] PR = prior, PL = play, TG = target
    cdef float[:, ::1] FT = feats
    cdef double f[N_MOVE_FEATURES]
    for i in range(n):
        memcpy(&s, &S[i, 0], sizeof(State))
        if s.result != RESULT_NONE:
            continue
        hold_tab(&s, &T)
        nc = candidates(&s, &T, cand)
        score_candidates(&s, &T, cand, nc, hsc)
        memcpy(psc, hsc, nc * sizeof(double))
        if evaluation is not None:
            rescore_learned(&s, cand, nc, psc, &evaluation.m, True, NULL)
        tot = 0.0
        for c in range(nc):
            vis[c] = 0.0
            a = action_of(&cand[c])
            for j in range(k):
                if CA[i, j] == a:
                    vis[c] = CV[i, j]
                    break
            tot += vis[c]
        if tot <= 0.0:
            continue
        for c in range(nc):
            P[rows] = i
            PR[rows] = psc[c]
            PL[rows] = hsc[c]
            move_features(&s, &cand[c], f)
            for j in range(N_MOVE_FEATURES):
                FT[rows, j] = <float>f[j]
            TG[rows] = vis[c] / tot
            rows += 1
    return {"position": pos[:rows].copy(), "prior_score": prior[:rows].copy(),
            "playout_score": play[:rows].copy(), "features": feats[:rows].copy(),
            "target": target[:rows].copy()}

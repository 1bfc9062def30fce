# cython: language_level=3
"""The Python-facing search: greedy and random move choice, and the searchers.

The compiled search is split by responsibility (docs/development.md has the map):
``_figures`` (the core's figures as tables), ``_decisive`` (round-ending moves),
``_policy`` (move score, informed playouts), ``_evaluation`` (leaf evaluation),
``_nodepool`` (the tree's arrays), ``_root`` (what every searcher shares),
``_ismcts`` and ``_expectimax`` (the searchers).  This module is what the Engine
imports.  The search knows no card names: it uses the core's figures, its move
generator and its action ids.  docs/search.md explains the algorithms.
"""
from libc.stdint cimport uint64_t

from jaipur_ai.rules._core cimport State, View, Move, Rng, MAX_MOVES, action_of, rng_seed, rng_below
from jaipur_ai.rules._movegen cimport gen_moves
from jaipur_ai.search._worlds cimport sample_world
from jaipur_ai.search._root cimport root_position, now
from jaipur_ai.search._heuristic cimport score_move
from jaipur_ai.search._decisive cimport decisive_table, danger_rates

from jaipur_ai.search._root import derive_seed
from jaipur_ai.search._decisive import decisive_kind, rank_children
from jaipur_ai.search._policy import (check_policy, opponent_world_of, candidate_actions,
                                      prior_logits, time_policy)
from jaipur_ai.search._heuristic import heuristic_weights, set_heuristic_weights
from jaipur_ai.search._ismcts import IsmctsSearcher, NO_NODE_PY, OUTCOME_PY
from jaipur_ai.search._chance import refill_outcomes
from jaipur_ai.search._expectimax import ExpectimaxSearcher

__all__ = ["IsmctsSearcher", "ExpectimaxSearcher", "refill_outcomes", "greedy_scores", "random_action",
           "rank_children", "NO_NODE_PY", "OUTCOME_PY", "derive_seed", "decisive_kind",
           "check_policy", "opponent_world_of", "candidate_actions", "prior_logits", "time_policy", "heuristic_weights",
           "set_heuristic_weights"]


def greedy_scores(pos, uint64_t seed=0, int decisive_samples=64, seconds=None):
    """Every legal move of the root with its greedy score, best first.

    The score is score_move() on the observer's view (docs/search.md).  A move that
    ends the round is scored by how it ends over `decisive_samples` sampled worlds
    (+1000 for a sure win, -1000 for a sure loss, plus the mean margin); any other
    move loses 1000 times the share of those worlds in which the opponent can reply
    by ending the round and winning.  Ties go to the lowest action id.  ``seconds``
    bounds the sampling (fewer worlds when the time runs out).
    Returns (list of (action, score, decisive stats or None), decisive table)."""
    cdef View v
    cdef State truth
    cdef bint cheat
    cdef Move buf[MAX_MOVES]
    cdef int n, i
    cdef Rng r
    cdef State probe
    cdef double deadline = -1.0
    if seconds is not None:
        deadline = now() + max(0.0, float(seconds))
    root_position(pos, &v, &truth, &cheat)
    rng_seed(&r, seed)
    if sample_world(&v, &truth, cheat, NULL, &probe, &r) != 0:
        raise ValueError("the view is inconsistent: no full state matches it")
    table = decisive_table(&v, &truth, cheat, decisive_samples, seed, deadline)
    n = gen_moves(&v.s, buf)
    danger = danger_rates(&v, &truth, cheat, decisive_samples, seed, buf, n, deadline)
    out = []
    for i in range(n):
        a = action_of(&buf[i])
        st = table.get(a)
        if st is not None and st[0]:
            sc = 2000.0 * ((st[1] + 0.5 * st[2]) / st[0] - 0.5) + st[4] / st[0]
        else:
            sc = score_move(&v.s, &buf[i]) - 1000.0 * danger[i]
        out.append((a, sc, st))
    out.sort(key=lambda t: (-t[1], t[0]))
    return out, table


def random_action(pos, uint64_t seed=0):
    """A uniformly random legal move (action id) drawn from the seed."""
    cdef View v
    cdef State truth
    cdef bint cheat
    cdef Move buf[MAX_MOVES]
    cdef Rng r
    cdef int n
    root_position(pos, &v, &truth, &cheat)
    n = gen_moves(&v.s, buf)
    acts = sorted(action_of(&buf[i]) for i in range(n))
    rng_seed(&r, seed)
    return acts[rng_below(&r, n)], len(acts)

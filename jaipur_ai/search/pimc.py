"""Perfect-information Monte Carlo (PIMC): the search family most public card-game
engines use, and one of the gauntlet's families (docs/search.md, "PIMC").

PIMC samples ``worlds`` full states from the mover's view (the opponent's unseen goods
by the belief when it has seen the round's moves, else uniformly; the draw pile's order
and the bonus tokens uniformly), searches each world as a game of perfect information
with the compiled tree search (PUCT with the learned priors, playouts and the leaf
evaluation, exactly as ``algorithm="cheat"`` searches a true state), then adds up the
root moves' visits and values over the worlds and plays the most visited move.

Each world's tree knows that world's hidden cards, so PIMC suffers both of its family's
known faults: strategy fusion (it assumes it will know the hidden cards at its next
move) and non-locality.  It is fair all the same: the worlds are drawn from the view
alone, so its analysis is the same whatever the opponent's real hidden cards.

>>> import jaipur_ai as jp
>>> s = jp.GameState.new(seed=7, starter=0)
>>> a = jp.analyse(s, iterations=4000, seed=1, algorithm="pimc", worlds=4)
>>> a.algorithm, a.determinizations, a.best in s.legal_moves()
('pimc', 4, True)
"""
from __future__ import annotations

import functools
import time as _time
from typing import Any, Callable, Optional

import numpy as np

from jaipur_ai.errors import InvalidPositionError
from jaipur_ai.search._search import IsmctsSearcher, derive_seed
from jaipur_ai.search.analysis import Analysis
from jaipur_ai.search.drive import Call, Run, candidates_of, merge_trees
from jaipur_ai.search.threads import run_threads

__all__ = ["run_pimc", "sample_worlds"]


def sample_worlds(view: Any, n: int, seed: int,
                  hand_prior: Optional[tuple[Any, Any]] = None) -> list[Any]:
    """``n`` full states (CoreState) consistent with ``view`` (a CoreView), world ``i``
    drawn from ``derive_seed(seed, i)``: the same worlds for the same seed whatever is
    searched in them.  With ``hand_prior`` ``(hands, weights)`` the opponent's unseen
    goods are one of the rows, drawn by weight."""
    worlds = []
    hands = weights = None
    if hand_prior is not None:
        try:
            hands = np.asarray(hand_prior[0])
            weights = np.asarray(hand_prior[1], dtype=np.float64)
        except (TypeError, ValueError, IndexError) as e:
            raise InvalidPositionError("hand_prior", "expected (hands, weights): "
                                                     f"{e}") from None
        if hands.ndim != 2 or len(weights) != len(hands) or not len(hands) \
                or not np.all(np.isfinite(weights)) or np.any(weights < 0) \
                or not weights.sum() > 0:
            raise InvalidPositionError("hand_prior", "expected (hands, weights): k rows of "
                                                     "counts and k non-negative weights")
        cum = np.cumsum(weights)
    for i in range(n):
        ws = derive_seed(seed, i)
        if hands is None:
            worlds.append(view.sample(ws))
            continue
        # the row by weight, from the world's own seed (a draw in [0, total))
        x = (derive_seed(ws, 1) >> 11) / float(1 << 53) * cum[-1]
        row = int(np.searchsorted(cum, x, side="right"))
        try:
            worlds.append(view.sample(ws, [int(c) for c in hands[min(row, len(hands) - 1)]]))
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidPositionError("hand_prior", str(e) or type(e).__name__) from None
    return worlds


def run_pimc(run: Run, core: Any, time: Optional[float], iterations: Optional[int],
             seed: int, call: Call, t0: float, top: Optional[int],
             hand_prior: Optional[tuple[Any, Any]] = None) -> Analysis:
    """The PIMC analysis of ``core`` (the mover's CoreView): ``run.settings.worlds``
    worlds, each searched by its own perfect-information tree.

    The iteration limit is the total over the worlds, split evenly; a time limit is
    split evenly too, world after world (a world that stops early leaves its time to
    the next).  With ``threads`` the worlds are searched that many at a time."""
    n = run.settings.worlds
    worlds = sample_worlds(core, n, seed, hand_prior)
    opts = dict(run.searcher)
    # each tree searches one world's truth: no re-dealing for the opponent, no
    # statistics per opponent hand (it has one), no branching on known draws
    opts.update(opp_view=False, own_view=False, opp_stats="pooled", opp_values="world",
                chance_nodes=False, chance_width=0.0,
                initial_nodes=min(run.settings.max_nodes, 1024))
    searchers = [IsmctsSearcher(w, seed=derive_seed(seed, n + i), judge=False, **opts)
                 for i, w in enumerate(worlds)]
    call.add(searchers)
    quota: list[Optional[int]] = [None] * n
    if iterations is not None:
        quota = [iterations // n + (1 if i < iterations % n else 0) for i in range(n)]
    groups = [list(range(i, min(n, i + run.threads))) for i in range(0, n, run.threads)]
    for k, group in enumerate(groups):
        if call.stopped():
            call.stop()
            break
        deadline = None if time is None else t0 + time * (k + 1) / len(groups)
        jobs: list[Callable[[], Any]] = []
        for i in group:
            if quota[i] != 0:
                jobs.append(functools.partial(searchers[i].run, iterations=quota[i],
                                              deadline=deadline))
        run_threads(jobs, call)
    children, iters, _worlds, legal, stopped = merge_trees(searchers)
    children = [c for c in children if c["visits"]]
    if top is not None:
        children = children[:max(1, int(top))]
    searched = sum(1 for s in searchers if s.iterations > 0)   # worlds that were searched
    return Analysis(candidates_of(children), "pimc", seed, iters, searched,
                    _time.monotonic() - t0, threads=run.threads, stopped=stopped or
                    call.stopped(), perfect_information=False, legal_moves=legal,
                    options=run.options)

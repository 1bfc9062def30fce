"""``ply1``: the evaluation alone, as an engine (docs/search.md, "ply1: the evaluation
alone").

For each legal move of the mover, the position after it is valued by the evaluation
(the learned one, or the hand-set one with ``evaluation=heuristic``) from the mover's
point of view, averaged over ``samples`` worlds sampled from the view: the opponent's
unseen goods, the draw pile's order (hence the cards the move draws into the market)
and the bonus tokens, world ``i`` drawn from ``derive_seed(seed, i)``.  Every move is
valued in the same worlds (common random numbers); a move that ends the round is valued
by its result in each world (1, 0.5 or 0; the evaluation scores a finished round so).
The best mean wins (ties: the better mean margin, then the lower action id).  No search:
it measures what the evaluation knows by itself, and it is fair (the worlds come from
the view alone) and deterministic for a seed.

>>> import jaipur_ai as jp
>>> s = jp.GameState.new(seed=7, starter=0)
>>> a = jp.analyse(s, seed=1, algorithm="ply1", samples=4, top=3)
>>> a.algorithm, a.determinizations, a.best in s.legal_moves(), a.candidates[0].visits
('ply1', 4, True, 4)
"""
from __future__ import annotations

import time as _time
from typing import Any, Optional

from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.rules.move import Move
from jaipur_ai.search._evaluation import heuristic_value
from jaipur_ai.search._search import decisive_kind
from jaipur_ai.search.analysis import Analysis, Candidate
from jaipur_ai.search.drive import Run
from jaipur_ai.search.pimc import sample_worlds

__all__ = ["run_ply1", "ply1_values"]


def ply1_values(core: Any, seed: int, samples: int, evaluation: Any = None,
                ) -> tuple[list[dict[str, Any]], int]:
    """The mover's moves in ``core`` (its CoreView; a CoreState is its one world),
    each with its mean value over the worlds: ``{"action", "win", "margin", "stats"}``
    (``stats``: the decisive statistics ``[worlds, wins, draws, losses, margin sum]``
    of a move that ends the round, else None), best first; and the worlds' number."""
    worlds = [core] if isinstance(core, CoreState) else sample_worlds(core, samples, seed)
    mover = int(worlds[0].raw()["to_move"])
    value = heuristic_value if evaluation is None else evaluation.value
    rows: list[dict[str, Any]] = []
    for a in worlds[0].legal_actions():        # (the mover's hand and the market are
        win = margin = 0.0                     # known: the same moves in every world)
        stats: Optional[list[Any]] = None
        for w in worlds:
            after = w.copy()
            after.apply_action(a)
            p, m = value(after, mover)
            win += p
            margin += m
            if after.raw()["result"] != -1:    # the round is over: p is its result
                if stats is None:
                    stats = [0, 0, 0, 0, 0.0]
                stats[0] += 1
                stats[1 if p == 1.0 else 2 if p == 0.5 else 3] += 1
                stats[4] += m
        n = len(worlds)
        rows.append({"action": a, "win": win / n, "margin": margin / n, "stats": stats})
    rows.sort(key=lambda r: (-r["win"], -r["margin"], r["action"]))
    return rows, len(worlds)


def run_ply1(run: Run, core: Any, seed: int, t0: float, top: Optional[int]) -> Analysis:
    """The ply1 analysis of ``core``: every legal move, valued by ``run.evaluation``
    (None: the hand-set evaluation) in ``run.settings.samples`` sampled worlds."""
    rows, n = ply1_values(core, seed, run.settings.samples, run.evaluation)
    legal = len(rows)
    if top is not None:
        rows = rows[:max(1, int(top))]
    cands = []
    for r in rows:
        m = Move.from_action_id(int(r["action"]))
        cands.append(Candidate(m, n, r["win"], r["margin"], [m], None,
                               decisive_kind(r["stats"])))
    return Analysis(cands, "ply1", seed, 0, n, _time.monotonic() - t0,
                    perfect_information=run.perfect_information, legal_moves=legal,
                    options=run.options)

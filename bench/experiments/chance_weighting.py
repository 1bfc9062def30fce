"""What weighting the draws by their exact probabilities could take off a move's value.

Issue 53 asks that an ISMCTS chance node back up the probability-weighted mean of its
outcomes.  In this tree a take's node holds one child per set of cards drawn; its value
is the mean over the iterations through it, that is the outcomes' values weighted by
how often each was drawn (the worlds are sampled from the searcher's belief, so those
frequencies estimate the draws' probabilities under it).  Replacing the frequencies by
exact probabilities removes only the noise of the frequencies themselves: with N visits
and outcome values Q_k drawn with frequencies f_k, a variance of about

    between / N,   between = sum_k f_k (Q_k - Q)^2

(the multinomial noise of sum_k f_k Q_k).  This script searches each position with
several seeds and compares that share with the variance of the root moves' values
across the seeds (the whole noise a search's value carries).

    PYTHONPATH=. python3 bench/experiments/chance_weighting.py --positions 20 --seeds 8 \\
        --iterations 8000 60000 --json
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from typing import Any

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from bench_convergence import positions  # noqa: E402

from jaipur_ai.search._search import OUTCOME_PY, IsmctsSearcher  # noqa: E402
from jaipur_ai.search.engine import Engine  # noqa: E402


def root_draws(arrays: dict[str, np.ndarray], mover: int) -> dict[int, tuple[int, float, float]]:
    """For each root move whose node branches on the cards drawn: (its visits, its
    value for the mover, ``between``: the outcomes' frequency-weighted variance)."""
    parent, player, visits, vsum, action = (arrays[k] for k in
                                            ("parent", "player", "visits", "value_sum", "action"))
    out = {}
    for c in np.where(parent == 0)[0]:
        kids = np.where((parent == c) & (player == OUTCOME_PY))[0]
        n = visits[kids].astype(float)
        if len(kids) < 2 or visits[c] == 0 or n.sum() == 0:
            continue
        # an outcome node's value_sum is from player 1's view (it is not player 0's move)
        q_k = vsum[kids] / np.maximum(n, 1)
        if mover == 0:
            q_k = 1.0 - q_k
        f = n / n.sum()
        q = float(f @ q_k)
        out[int(action[c])] = (int(visits[c]), float(vsum[c] / visits[c]),
                               float(f @ (q_k - q) ** 2))
    return out


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--iterations", type=int, nargs="+", default=[8000])
    ap.add_argument("--min-visits", type=int, default=100)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    options = Engine("ismcts").searcher_options()
    rows = []
    for it in a.iterations:
        seen: dict[tuple[int, int], list[tuple[int, float, float]]] = defaultdict(list)
        for i, state in enumerate(positions(a.positions)):
            for seed in range(1, a.seeds + 1):
                se = IsmctsSearcher(state.view(state.to_move)._core, seed=seed, judge=False,
                                    **options)
                se.run(iterations=it)
                for act, got in root_draws(se.pool.arrays, state.to_move).items():
                    seen[(i, act)].append(got)
        total = sampling = 0.0
        moves = 0
        for runs in seen.values():
            if len(runs) < a.seeds or min(r[0] for r in runs) < a.min_visits:
                continue
            q = np.array([r[1] for r in runs])
            total += float(q.var(ddof=1))
            sampling += float(np.mean([r[2] / r[0] for r in runs]))
            moves += 1
        rows.append({"iterations": it, "moves": moves,
                     "value_sd_across_seeds": (total / moves) ** 0.5 if moves else None,
                     "draw_frequency_sd": (sampling / moves) ** 0.5 if moves else None,
                     "share_of_variance": sampling / total if total else None})
    if a.json:
        print(json.dumps({"positions": a.positions, "seeds": a.seeds,
                          "min_visits": a.min_visits, "rows": rows}, indent=1))
    else:
        for r in rows:
            print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())

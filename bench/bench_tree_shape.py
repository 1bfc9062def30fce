"""How deep the ISMCTS tree's well-visited nodes reach, by budget and by what is hidden.

More iterations can only pay where they deepen the part of the tree the search trusts.
This counts, for each search, the deepest decision level (the root's moves are level 1;
the outcome nodes of the cards drawn are not levels) holding a node with at least 100
and at least 1,000 visits, and the tree's nodes per iteration. The trees:

- ``fair``: this build's default, searching the mover's view;
- ``open-loop``: the same without chance nodes (``chance_nodes=False``): one node per
  move, whatever cards were drawn;
- ``sparse draws``: the default with ``chance_width=0.25`` (docs/search.md, "Sparse
  draws"): a move's node follows at most 1 + 0.25·√visits of the draws;
- ``hand shown``: the default searching the mover's view with the opponent's whole hand
  among its known cards (``bench/experiments/peek_hands.py``): the draw pile's order
  and the bonus tokens still hidden;
- ``peeking``: the default searching the true full state (``perfect_information``: the
  opponent's hand and the deck's order known), a bound no fair search can reach.

Positions: those of ``bench_convergence.py`` (deal ``GameState.new(seed=1000 + i)``
played 4 to 29 plies by greedy). Each search is seeded 1 and limited by iterations, so
the figures do not depend on the machine or its load.

    PYTHONPATH=. python3 bench/bench_tree_shape.py --positions 20 --procs 2
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "experiments"))

from bench_convergence import positions  # noqa: E402
from peek_hands import hand_revealed_view  # noqa: E402

from jaipur_ai.search._search import OUTCOME_PY, IsmctsSearcher  # noqa: E402
from jaipur_ai.search.engine import Engine  # noqa: E402
from jaipur_ai.search.settings import DEFAULT  # noqa: E402

TREES = {
    "fair": (DEFAULT, "view"),
    "open-loop": (DEFAULT.replace(chance_nodes=False), "view"),
    "sparse draws": (DEFAULT.replace(chance_width=0.25), "view"),
    "hand shown": (DEFAULT, "hand"),
    "peeking": (DEFAULT, "state"),
}
"""Name -> (settings, what the search is given: the mover's view, that view with the
opponent's hand shown, or the full state)."""

def decision_levels(parent: np.ndarray, player: np.ndarray) -> np.ndarray:
    """Each node's decision level: the moves from the root to it (outcome nodes add none).
    Nodes are numbered after their parents, so one pass in order suffices."""
    level = np.zeros(len(parent), dtype=np.int64)
    move = player != OUTCOME_PY
    for i in range(1, len(parent)):
        level[i] = level[parent[i]] + int(move[i])
    return level


def tree_shape(pool_arrays: dict[str, np.ndarray], iterations: int) -> dict[str, float]:
    """The deepest levels holding a node of at least 100 and 1,000 visits, and the
    nodes per iteration, of one searched tree."""
    level = decision_levels(pool_arrays["parent"], pool_arrays["player"])
    visits = pool_arrays["visits"]
    return {"deepest_100": int(level[visits >= 100].max()),
            "deepest_1000": int(level[visits >= 1000].max()),
            "nodes_per_iteration": len(level) / iterations}


def _job(args: tuple[Any, str, int]) -> tuple[str, int, dict[str, float]]:
    state, tree, iterations = args
    settings, given = TREES[tree]
    engine = Engine("ismcts", settings=settings)
    position = {"view": lambda: state.view(state.to_move), "hand": lambda: hand_revealed_view(state),
                "state": lambda: state}[given]()
    core = position._core
    searcher = IsmctsSearcher(core, seed=1, judge=False, **engine.searcher_options())
    searcher.run(iterations=iterations)
    return tree, iterations, tree_shape(searcher.pool.arrays, iterations)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--budgets", type=int, nargs="+", default=[15000, 60000, 240000])
    ap.add_argument("--trees", nargs="+", default=list(TREES), choices=list(TREES))
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--json", action="store_true", help="print the table as JSON")
    args = ap.parse_args(argv)
    states = positions(args.positions)
    jobs = [(s, t, b) for t in args.trees for b in args.budgets for s in states]
    with mp.Pool(args.procs) as pool:
        res = pool.map(_job, jobs, chunksize=1)
    rows = []
    for t in args.trees:
        for b in args.budgets:
            got = [r for tree, it, r in res if tree == t and it == b]
            rows.append({"tree": t, "iterations": b, "positions": len(got),
                         **{k: statistics.mean(r[k] for r in got) for k in got[0]}})
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{args.positions} positions (bench_convergence.py's), mean over them\n")
    print("| tree | iterations | deepest level, ≥100 visits | deepest level, ≥1,000 visits "
          "| nodes per iteration |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['tree']} | {r['iterations']:,} | {r['deepest_100']:.1f} | "
              f"{r['deepest_1000']:.1f} | {r['nodes_per_iteration']:.2f} |")


if __name__ == "__main__":
    main()

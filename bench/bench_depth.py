"""Depth that grows with the clock: the depth expectimax completes at each budget, over
the move-quality benchmark's positions (docs/performance.md, "Expectimax: depth by
budget").

    PYTHONPATH=. python3 bench/bench_depth.py expectimax \\
        expectimax:inner_moves=policy,root_filter=6,beam=8 --time 0.1 1 4 16 \\
        --positions 20 [--json]

Each spec analyses the first N positions (the mover's view and the round's moves) at
each budget, one thread, with a seed derived from the position; reported by spec and
budget: the depth completed (mean, median, least, most), the nodes searched and the
nodes a second.  ``--iterations`` gives node budgets instead of seconds (the depth is
then the same on every machine; without a time limit expectimax stops at depth 3 unless
the spec names a ``depth``).  Run it on a quiet machine, pinned (``taskset -c 0``), for
the times to mean what they say.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

from jaipur_ai.matches.quality import load_positions
from jaipur_ai.matches.spec import EngineSpec, derive_seed

from bench_quality import DEFAULT_FILE


def depths(spec_text: str, positions: list, budget: float, by_time: bool) -> dict:
    spec = EngineSpec.parse(spec_text)
    eng = spec.make_engine()
    got, nodes, secs = [], 0, 0.0
    for p in positions:
        state, history = p.replay()
        limit = {"time": budget} if by_time else {"iterations": int(budget)}
        t0 = time.perf_counter()
        a = eng.analyse(state.view(state.to_move), seed=derive_seed(p.seed, 3),
                        history=history or None, **limit)
        secs += time.perf_counter() - t0
        got.append(a.depth)
        nodes += a.iterations
    return {"spec": spec_text, "budget": budget, "unit": "s" if by_time else "nodes",
            "positions": len(positions), "depth_mean": statistics.fmean(got),
            "depth_median": statistics.median(got), "depth_min": min(got),
            "depth_max": max(got), "nodes_mean": nodes / len(positions),
            "nodes_per_second": nodes / secs if secs else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", metavar="SPEC")
    ap.add_argument("--time", type=float, nargs="+", help="seconds a move")
    ap.add_argument("--iterations", type=float, nargs="+", help="nodes a move instead")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if bool(args.time) == bool(args.iterations):
        ap.error("give --time or --iterations")
    budgets = args.time or args.iterations
    positions = load_positions(args.file)[: args.positions]
    rows = []
    for spec in args.specs:
        for b in budgets:
            r = depths(spec, positions, b, bool(args.time))
            rows.append(r)
            print(f"{spec} at {b:g} {r['unit']}: depth {r['depth_mean']:.2f} (median "
                  f"{r['depth_median']:g}, {r['depth_min']}..{r['depth_max']}), "
                  f"{r['nodes_mean']:,.0f} nodes, {r['nodes_per_second'] or 0:,.0f} a second",
                  file=sys.stderr)
    if args.json:
        print(json.dumps({"file": args.file, "rows": rows}))


if __name__ == "__main__":
    main()

"""How often a short search already picks the move of a long one.

Positions: deal ``GameState.new(seed=1000 + i)`` played 4 to 29 plies by greedy (the
count drawn from ``random.Random(i)``).  Each is searched at LO iterations (seed 1) and
twice at HI iterations (seeds 2 and 3); the second HI search is the reference.

    PYTHONPATH=. python3 bench/bench_convergence.py --options '{"tree_depth": 1}' \\
        --lo 25000 --hi 250000 --positions 60
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import jaipur_ai as jp  # noqa: E402
from jaipur_ai.search.engine import Engine  # noqa: E402


def positions(n: int) -> list:
    greedy = Engine("greedy")
    out = []
    for i in range(n):
        s = jp.GameState.new(seed=1000 + i)
        for _ in range(random.Random(i).randrange(4, 30)):
            nxt = s.apply(greedy.best_move(s, seed=i))
            if nxt.is_round_over:
                break
            s = nxt
        out.append(s)
    return out


def _job(args):
    s, options, lo, hi = args
    e = Engine.from_options(**options)
    a = e.analyse(s, iterations=lo, seed=1)
    b = e.analyse(s, iterations=hi, seed=2)
    c = e.analyse(s, iterations=hi, seed=3, top=None)    # every root move: the short
    # searches' choices may lie outside the reference's first five
    value = {str(x.move): x.win_probability for x in c}
    return str(a.best), str(b.best), str(c.best), value[str(a.best)], value[str(b.best)], \
        value[str(c.best)]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--options", default="{}", help="JSON options of jaipur_ai.Engine")
    ap.add_argument("--lo", type=int, default=25000)
    ap.add_argument("--hi", type=int, default=250000)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    options = json.loads(args.options)
    jobs = [(s, options, args.lo, args.hi) for s in positions(args.positions)]
    with mp.Pool(args.procs) as pool:
        res = pool.map(_job, jobs, chunksize=1)
    n = len(res)
    print(f"options {json.dumps(options)}, {n} positions")
    print(f"{args.lo:,} it picks the reference move in {100 * sum(r[0] == r[2] for r in res) / n:.0f} %; "
          f"{args.hi:,} it (another seed) in {100 * sum(r[1] == r[2] for r in res) / n:.0f} %")
    print(f"mean reference value lost: {args.lo:,} it {statistics.mean(r[5] - r[3] for r in res):.5f}, "
          f"{args.hi:,} it {statistics.mean(r[5] - r[4] for r in res):.5f}")


if __name__ == "__main__":
    main()

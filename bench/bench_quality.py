"""The move-quality benchmark: how much win % each engine's choices lose on the
benchmark's positions (docs/strength.md, "The move-quality benchmark").

    PYTHONPATH=. python3 bench/bench_quality.py greedy ismcts:time=0.1 pimc:time=0.1 \
        --procs 2 [--positions N] [--json]

Each engine is given the mover's view and the round's moves before it (the belief reads
them), searches with a seed derived from the position, and its move's loss is the best
reference value minus its own, in points of win %; a move the reference did not roll out
is rolled out on demand in the same worlds.  Reported for each spec: the error rate (mean
loss a decision, with a 95 % interval; and by the round's phase: a draw pile of 30 cards
or more, 10 to 29, under 10), blunders (share of moves losing more than 5
points) and gross errors (more than 20), agreement with the reference's best move, mean seconds a move; and for each
spec after the first, its error rate minus the first's, paired over the positions.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from multiprocessing import Pool

import numpy as np

from jaipur_ai.matches.quality import (Position, engine_move, errors_by_phase, load_positions,
                                       paired_difference, summarise_losses, value_on_demand)
from jaipur_ai.matches.spec import EngineSpec

DEFAULT_FILE = os.path.join(os.path.dirname(__file__), "quality", "positions.jsonl.gz")

_ENGINES: dict = {}


def _judge(task: tuple) -> tuple:
    spec_text, pd, rollout = task
    spec = EngineSpec.parse(spec_text)
    eng = _ENGINES.get(spec_text)
    if eng is None:
        eng = _ENGINES[spec_text] = spec.make_engine()
    p = Position.from_dict(pd)
    p.rollout = rollout
    t0 = time.perf_counter()
    move = engine_move(eng, spec, p)
    seconds = time.perf_counter() - t0
    se = None
    if move in p.values:
        value = p.values[move]
    else:                 # rolled out now, in the same worlds with the same policy
        value, se = value_on_demand(p, move)
    best = max(p.values.values())
    # a move rolled out now that does as well as the stored best agrees with it
    return (p.id, move, max(0.0, 100.0 * (best - value)), move == p.best or value >= best,
            seconds, se)


def spearman(x: list, y: list) -> float:
    """Spearman's rank correlation (ties share their mean rank)."""
    def ranks(v: list) -> np.ndarray:
        v = np.asarray(v, float)
        order = np.argsort(v, kind="stable")
        r = np.empty(len(v))
        r[order] = np.arange(len(v))
        for u in np.unique(v):
            r[v == u] = r[v == u].mean()
        return r
    rx, ry = ranks(x), ranks(y)
    return float(np.corrcoef(rx, ry)[0, 1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", metavar="SPEC")
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--positions", type=int, default=None, help="only the first N")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--rating", metavar="FILE",
                    help="a rating list (jaipur-ai rate --json): report the Spearman rank "
                         "correlation of its ratings with the error rates of the same specs")
    ap.add_argument("--results", metavar="FILE", nargs="+",
                    help="score earlier --json outputs instead of running the engines")
    args = ap.parse_args()
    specs = [str(EngineSpec.parse(s)) for s in args.specs]
    positions = load_positions(args.file)[: args.positions]
    rows = {}
    losses = {}
    piles = {p.id: p.pile for p in positions}
    if args.results:                 # the engines' rows from earlier runs, by spec
        for path in args.results:
            with open(path) as fh:
                for row in json.load(fh)["engines"]:
                    row["losses"] = {int(k): v for k, v in row["losses"].items()}
                    rows[row["spec"]] = row
        ids = [p.id for p in positions]
        best = {p.id: p.best for p in positions}
        for spec in specs:           # the summary again, over these positions only
            losses[spec] = [rows[spec]["losses"][i] for i in ids]
            moves = rows[spec].get("moves", {})
            agree = [loss == 0.0 or moves.get(str(i), moves.get(i)) == best[i]
                     for i, loss in zip(ids, losses[spec])]
            rows[spec].update(summarise_losses(losses[spec], agree))
            rows[spec].pop("vs_first", None)          # (against another first engine)
            rows[spec]["by_phase"] = errors_by_phase(dict(zip(ids, losses[spec])), piles)
    for spec in specs if not args.results else ():
        t0 = time.time()
        tasks = [(spec, p.to_dict(), p.rollout) for p in positions]
        with Pool(args.procs) as pool:
            res = sorted(pool.map(_judge, tasks, chunksize=8))
        loss = [r[2] for r in res]
        losses[spec] = loss
        row = summarise_losses(loss, [r[3] for r in res])
        row["seconds_a_move"] = sum(r[4] for r in res) / len(res)
        ses = [r[5] for r in res if r[5] is not None]
        row["on_demand"] = {"moves": len(ses), "largest_se": max(ses) if ses else None}
        row["spec"] = spec
        row["by_phase"] = errors_by_phase({r[0]: r[2] for r in res}, piles)
        row["losses"] = {r[0]: round(r[2], 3) for r in res}      # by position id
        row["moves"] = {r[0]: r[1] for r in res}
        rows[spec] = row
        print(f"{spec}: error {row['error']:.2f} ({row['error_lo']:.2f}-{row['error_hi']:.2f}) "
              f"blunders {100 * row['blunders']:.1f} % over 20 points {100 * row['gross']:.1f} % "
              f"agreement {100 * row['agreement']:.1f} % "
              f"[{time.time() - t0:.0f} s]", file=sys.stderr)
    first = specs[0]
    for spec in specs[1:]:
        rows[spec]["vs_first"] = paired_difference(losses[spec], losses[first])
    rank = None
    if args.rating:
        with open(args.rating) as fh:
            rating = json.load(fh)
        elo = {rating["engines"][r["engine"]]: r["elo"] for r in rating["ratings"]
               if r["engine"] in rating["engines"]}
        both = [s for s in specs if s in elo]
        rank = {"engines": both, "spearman": spearman([elo[s] for s in both],
                                                      [-rows[s]["error"] for s in both])}
    if args.json:
        print(json.dumps({"file": args.file, "positions": len(positions),
                          "engines": [rows[s] for s in specs], "rank": rank}))
        return
    print(f"{len(positions)} positions of {args.file}")
    print(f"{'engine':<44} {'error':>6} {'95 % interval':>14} {'blunders':>9} {'>20 pts':>8} "
          f"{'agree':>7} "
          f"{'s/move':>7}  vs {first}")
    for spec in specs:
        r = rows[spec]
        vs = r.get("vs_first")
        vs_text = "" if vs is None else f"{vs['diff']:+.2f} ({vs['lo']:+.2f} .. {vs['hi']:+.2f})"
        print(f"{spec:<44} {r['error']:>6.2f} {r['error_lo']:>6.2f} .. {r['error_hi']:<5.2f} "
              f"{100 * r['blunders']:>8.1f}% {100 * r.get('gross', float('nan')):>7.1f}% "
              f"{100 * r['agreement']:>6.1f}% "
              f"{r['seconds_a_move']:>7.3f}  {vs_text}")
        print("    by phase: " + ", ".join(
            f"{b} {v['error']:.2f} ({v['positions']})" for b, v in r["by_phase"].items()
            if v["error"] is not None))
    if rank is not None:
        print(f"Spearman rank correlation of the rating list with minus the error rate, "
              f"over {len(rank['engines'])} engines: {rank['spearman']:+.2f}")


if __name__ == "__main__":
    main()

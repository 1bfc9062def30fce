"""The pair sum (issue 53): do the two players' own values of one position add up to 1?

For each of the move-quality benchmark's positions (bench/quality/positions.jsonl.gz,
jaipur_ai.matches.quality), the mover searches its view and plays its best move in the
full state (the true refill); the opponent then searches its own view of the position
after it.  The mover's win probability of its best move plus the opponent's of its own
best move averages 1.00 if the values are honest; above 1 both players rate their own
chances too high.  Two sums per position: the **raw** values (the search's root value of
the best move, before any calibration) and the **reported** ones (``win_probability``:
for ISMCTS with the learned evaluation the raw value through the calibration map of
its kind, with or without the round's moves, ``jaipur_ai.search.evaluation.calibrated``; the raw value is recovered exactly by its
inverse, ``uncalibrated``, at the analysis's iterations; a move ending the round, an
endgame solve and the other algorithms report raw values).  Printed for each spec: the
mean of each sum with a 95 % interval (normal, over the positions), the positions used,
and those skipped because the mover's move ends the round.

    PYTHONPATH=. python3 bench/bench_pair_sum.py ismcts:iterations=2000 \
        [ismcts:iterations=8000 ...] [--positions 200] [--history] [--procs 1] \
        [--mover best|random] [--json]

Without ``--history`` each search gets the bare view; with it, the round's moves before
it as ``history`` (the belief reads them; the opponent's include the mover's move).
Seeds derive from the position's seed (``derive_seed(seed, 3)`` for the mover, as
bench_quality.py, and ``derive_seed(seed, 4)`` for the opponent), so a spec with an
iteration limit gives the same numbers on a rerun.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from multiprocessing import Pool
from typing import Any, Optional, Sequence

from jaipur_ai.matches.quality import Position, load_positions
from jaipur_ai.matches.spec import EngineSpec, derive_seed
from jaipur_ai.search.evaluation import named_evaluation, uncalibrated

DEFAULT_FILE = os.path.join(os.path.dirname(__file__), "quality", "positions.jsonl.gz")

_ENGINES: dict = {}


def calibration_of(spec: EngineSpec, engine: Any = None, view: Any = None,
                   history: Any = None) -> Optional[Sequence[float]]:
    """The calibration map the spec's reported win % goes through (None: none): the
    map of a search that read the round's moves when ``engine``'s belief of ``view``
    with ``history`` gives the search a hand prior, as the engine decides
    (docs/search.md, "Two maps"), else the map of a search of the position alone."""
    if spec.algorithm != "ismcts":
        return None
    ev = named_evaluation(spec.options.get("evaluation", "learned"), spec.options.get("weights"))
    if ev is None:
        return None
    moves = engine is not None and engine._belief_prior(view, history) is not None
    return ev.calibration_moves if moves else ev.calibration


def values(analysis: Any, calibration: Optional[Sequence[float]],
           index: int = 0) -> tuple[float, float]:
    """(raw, reported) win probability of the analysis's best move (or its candidate
    ``index``)."""
    c = analysis.candidates[index]
    reported = float(c.win_probability)
    if calibration is None or analysis.algorithm != "ismcts" or c.decisive is not None \
            or not c.visits:
        return reported, reported           # (reported as searched)
    return uncalibrated(reported, calibration, analysis.iterations), reported


def _pair(task: tuple) -> tuple:
    """(position id, move, raw pair, reported pair), or (id, move, None, None) when the
    move ends the round."""
    spec_text, pd, with_history, mover = task
    spec = EngineSpec.parse(spec_text)
    eng = _ENGINES.get(spec_text)
    if eng is None:
        eng = _ENGINES[spec_text] = spec.make_engine()
    limits = spec.fixed_limits("the pair sum")
    p = Position.from_dict(pd)
    state, history = p.replay()
    seen = (history or None) if with_history else None
    a = eng.analyse(state.view(state.to_move), seed=derive_seed(p.seed, 3),
                    top=1 if mover == "best" else None, history=seen, **limits)
    cal_a = calibration_of(spec, eng, state.view(state.to_move), seen)
    index = 0
    if mover == "random":
        # a move the mover did not pick as its best: no maximum on its side of the sum
        # (among the moves searched at least a tenth as often as the best)
        most = max(c.visits for c in a.candidates)
        pool = [i for i, c in enumerate(a.candidates) if c.visits * 10 >= most]
        index = random.Random(derive_seed(p.seed, 6)).choice(pool)
    move = a.candidates[index].move
    after = state.apply(move)
    if after.is_round_over:
        return p.id, str(move), None, None
    seen_b = history + [(state, move)] if with_history else None
    b = eng.analyse(after.view(after.to_move), seed=derive_seed(p.seed, 4), top=1,
                    history=seen_b, **limits)
    cal_b = calibration_of(spec, eng, after.view(after.to_move), seen_b)
    (ra, pa), (rb, pb) = values(a, cal_a, index), values(b, cal_b)
    return p.id, str(move), (ra, rb), (pa, pb)


def interval(xs: Sequence[float]) -> dict[str, float]:
    """Mean and 95 % interval (normal) of ``xs``."""
    n = len(xs)
    mean = sum(xs) / n if n else float("nan")
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan")
    half = 1.96 * sd / math.sqrt(n) if n > 1 else float("nan")
    return {"mean": mean, "lo": mean - half, "hi": mean + half}


def pair_sums(spec: str, positions: Sequence[Position], history: bool = False,
              procs: int = 1, mover: str = "best") -> dict[str, Any]:
    """The pair sums of one spec over ``positions``: its row of the report."""
    spec = str(EngineSpec.parse(spec))
    t0 = time.time()
    tasks = [(spec, p.to_dict(), history, mover) for p in positions]
    if procs > 1:
        with Pool(procs) as pool:
            res = sorted(pool.map(_pair, tasks, chunksize=4))
    else:
        res = [_pair(t) for t in tasks]
    used = [r for r in res if r[2] is not None]
    return {"spec": spec, "history": history, "mover": mover, "positions": len(used),
            "skipped_round_over": len(res) - len(used),
            "raw": interval([r[2][0] + r[2][1] for r in used]),
            "reported": interval([r[3][0] + r[3][1] for r in used]),
            "seconds": round(time.time() - t0, 1),
            "pairs": [{"id": r[0], "move": r[1],
                       "raw": [round(x, 6) for x in r[2]],
                       "reported": [round(x, 6) for x in r[3]]} for r in used]}


def report(specs: Sequence[str], positions: Sequence[Position], history: bool = False,
           procs: int = 1, file: str = DEFAULT_FILE, log: Any = None,
           mover: str = "best") -> dict[str, Any]:
    """The whole report (what ``--json`` prints); ``log(row)`` after each spec."""
    rows = []
    for spec in specs:
        rows.append(pair_sums(spec, positions, history, procs, mover))
        if log is not None:
            log(rows[-1])
    return {"file": file, "positions": len(positions), "history": history,
            "mover": mover, "engines": rows}


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", metavar="SPEC")
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--positions", type=int, default=200, help="the first N (default 200)")
    ap.add_argument("--history", action="store_true",
                    help="give each search the round's moves before it")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--mover", choices=("best", "random"), default="best",
                    help="the mover plays its best move (default), or a random one among "
                         "those it searched at least a tenth as often: its value then "
                         "carries no maximum over its moves")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    positions = load_positions(args.file)[: args.positions]

    def log(row: dict[str, Any]) -> None:
        print(f"{row['spec']}: raw {row['raw']['mean']:.3f}, reported "
              f"{row['reported']['mean']:.3f} over {row['positions']} positions "
              f"[{row['seconds']:.0f} s]", file=sys.stderr)
    rep = report(args.specs, positions, args.history, args.procs, args.file, log,
                 args.mover)
    if args.json:
        print(json.dumps(rep))
        return
    print(f"{len(positions)} positions of {args.file}, "
          f"{'with' if args.history else 'without'} the round's history, the mover's "
          f"{args.mover} move")
    print(f"{'engine':<40} {'raw sum':>8} {'95 % interval':>15} {'reported':>9} "
          f"{'95 % interval':>15} {'pairs':>6} {'skipped':>8}")
    for r in rep["engines"]:
        w, p = r["raw"], r["reported"]
        print(f"{r['spec']:<40} {w['mean']:>8.3f} {w['lo']:>7.3f} .. {w['hi']:<5.3f} "
              f"{p['mean']:>9.3f} {p['lo']:>7.3f} .. {p['hi']:<5.3f} {r['positions']:>6} "
              f"{r['skipped_round_over']:>8}")


if __name__ == "__main__":
    main()

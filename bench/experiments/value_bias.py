"""Is an engine's value of the move it chooses too high, and by how much because it
chose it? (issue 53's pair sum; issue 52's evaluation.)

On the move-quality benchmark's positions each move has a reference value, the mover's
win chance after it by thousands of rollouts in worlds dealt from the mover's view.  For
each position this compares the engine's raw value of its chosen move with that move's
reference (``best``), and the same for every move it valued (``all``: for a search, the
moves searched at least a tenth as often as its best).  ``all`` is the values' general
bias against the reference; ``best - all`` is what choosing the largest adds, the
optimizer's curse of the values' own errors, which an independent search of the same
model shares and so cannot show (bench/experiments/pair_sum_causes.py).  The rollouts'
own policy is a weak judge of a move's worth (docs/strength.md), but the reference is
the same for every engine and move, so the difference ``best - all`` does not lean on it.

    PYTHONPATH=. python3 bench/experiments/value_bias.py SPEC [SPEC ...] [--positions N] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, Optional, Sequence

from jaipur_ai.matches.quality import load_positions
from jaipur_ai.matches.spec import EngineSpec, derive_seed

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_pair_sum import DEFAULT_FILE, calibration_of, interval, values  # noqa: E402


def bias(spec_text: str, positions: Sequence[Any]) -> dict[str, Any]:
    spec = EngineSpec.parse(spec_text)
    eng = spec.make_engine()
    cal = calibration_of(spec)
    limits = spec.fixed_limits("the value bias")
    best, every, curse = [], [], []
    t0 = time.time()
    for p in positions:
        state, _ = p.replay()
        a = eng.analyse(state.view(state.to_move), seed=derive_seed(p.seed, 3), top=None,
                        **limits)
        if not a.candidates or a.candidates[0].decisive is not None:
            continue
        most = max(c.visits for c in a.candidates)
        rows = []
        for i, c in enumerate(a.candidates):
            ref = p.values.get(str(c.move))
            if ref is None or c.decisive is not None or (most and c.visits * 10 < most):
                continue
            rows.append((i, values(a, cal, i)[0] - ref))
        if not rows or rows[0][0] != 0:
            continue
        b = rows[0][1]
        m = sum(d for _, d in rows) / len(rows)
        best.append(b)
        every.append(m)
        curse.append(b - m)
    return {"spec": str(spec), "positions": len(best),
            "best": interval(best), "all": interval(every), "best_minus_all": interval(curse),
            "seconds": round(time.time() - t0, 1)}


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+", metavar="SPEC")
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    positions = load_positions(args.file)[:args.positions]
    rows = []
    for s in args.specs:
        r = bias(s, positions)
        rows.append(r)
        sys.stderr.write(f"{r['spec']}: chosen move {r['best']['mean']:+.4f}, every move "
                         f"{r['all']['mean']:+.4f}, chosen minus every "
                         f"{r['best_minus_all']['mean']:+.4f} "
                         f"({r['best_minus_all']['lo']:+.4f} .. {r['best_minus_all']['hi']:+.4f})"
                         f" over {r['positions']} positions [{r['seconds']} s]\n")
    if args.json:
        print(json.dumps({"file": args.file, "engines": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

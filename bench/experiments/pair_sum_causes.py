"""Where the pair sum's excess comes from (issue 53; bench/bench_pair_sum.py).

The pair sum adds the mover's value of its best move ``a`` (A) and the opponent's value
of its best reply ``b`` after it (B); honest values give 1.  Each of A and B is the
largest of several noisy estimates, and the largest of noisy estimates is too high on
average (the optimizer's curse).  This script measures that part: ``a`` and ``b`` are
valued again by an independent search of the same position (another seed; A2, B2),
which carries the noise but not the choice.  A - A2 and B - B2 are the curse of each
side; A2 + B2 is the sum without it.

    PYTHONPATH=. python3 bench/experiments/pair_sum_causes.py SPEC [SPEC ...] \
        [--positions 200] [--file F] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Optional, Sequence

from jaipur_ai.matches.quality import load_positions
from jaipur_ai.matches.spec import EngineSpec, derive_seed

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench_pair_sum import DEFAULT_FILE, interval  # noqa: E402  (bench/, beside)


def _value(analysis: Any, move: Any) -> Optional[float]:
    for c in analysis.candidates:
        if c.move == move and c.visits:
            return float(c.win_probability)
    return None


def causes(spec_text: str, positions: Sequence[Any]) -> dict[str, Any]:
    spec = EngineSpec.parse(spec_text)
    eng = spec.make_engine()
    limits = spec.fixed_limits("the pair sum")
    rows = []
    for p in positions:
        state, _ = p.replay()
        v = state.view(state.to_move)
        a = eng.analyse(v, seed=derive_seed(p.seed, 3), top=None, **limits)
        a2 = eng.analyse(v, seed=derive_seed(p.seed, 7), top=None, **limits)
        after = state.apply(a.best)
        if after.is_round_over:
            continue
        w = after.view(after.to_move)
        b = eng.analyse(w, seed=derive_seed(p.seed, 4), top=None, **limits)
        b2 = eng.analyse(w, seed=derive_seed(p.seed, 8), top=None, **limits)
        va, va2 = _value(a, a.best), _value(a2, a.best)
        vb, vb2 = _value(b, b.best), _value(b2, b.best)
        if None in (va, va2, vb, vb2):
            continue
        rows.append((va, va2, vb, vb2))
    if len(rows) < 2:
        raise SystemExit(f"{spec_text}: fewer than 2 positions to compare")
    return {"spec": str(spec), "positions": len(rows),
            "sum": interval([r[0] + r[2] for r in rows]),
            "sum_revalued": interval([r[1] + r[3] for r in rows]),
            "mover_curse": interval([r[0] - r[1] for r in rows]),
            "opponent_curse": interval([r[2] - r[3] for r in rows])}


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    positions = load_positions(a.file)[:a.positions]
    out = [causes(s, positions) for s in a.specs]
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    for r in out:
        f = lambda k: f"{r[k]['mean']:+.3f} ({r[k]['lo']:+.3f} .. {r[k]['hi']:+.3f})"  # noqa: E731
        print(f"{r['spec']}: {r['positions']} positions; sum {f('sum')}, revalued "
              f"{f('sum_revalued')}; mover's curse {f('mover_curse')}, opponent's "
              f"{f('opponent_curse')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

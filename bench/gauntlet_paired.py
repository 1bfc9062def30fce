"""Two engines compared through the gauntlet, deal by deal (issue 52's transfer).

A rating folder (``jaipur-ai rate --dir``) where engines A and B each played the same
opponents on the same deals (the rating list's seed) holds, for every such opponent, A's
score and B's score on each deal.  Their difference, deal by deal, is a paired measure of
what A gained over B *against the others*, free of the deals' luck; the pooled mean over
the opponents is the gain that reaches the world, beside A's score against B itself.

    PYTHONPATH=. python3 bench/gauntlet_paired.py runs/rating-0.1 h64td default [--json]

Prints, for each opponent both played, both scores and the paired difference in points
of score with its 95 % interval (Student t over deals), then the pooled difference over
the opponents other than A and B (``--leave-out`` removes more, e.g. their ancestors).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from typing import Any

import numpy as np

from jaipur_ai.matches.rating import read_pairings


def scores(folder: str) -> dict[tuple[str, str], np.ndarray]:
    """(a, b) -> a's score on each deal (0..2, both seats), from ``a--b.jsonl`` files."""
    out: dict[tuple[str, str], np.ndarray] = {}
    for f in sorted(glob.glob(os.path.join(folder, "*--*.jsonl*"))):
        a, b = os.path.basename(f).split(".jsonl")[0].split("--")
        p = read_pairings([f])[0]
        d = np.asarray(p.deals, float)
        out[(a, b)] = d
        out[(b, a)] = np.asarray(p.games, float) - d
    return out


def _interval(x: np.ndarray) -> tuple[float, float, float]:
    m = float(x.mean())
    h = 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x)) if len(x) > 1 else float("inf")
    return m, m - h, m + h


def compare(folder: str, a: str, b: str, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    s = scores(folder)
    rows, pooled = [], []
    opponents = sorted({o for (x, o) in s if x == a} & {o for (x, o) in s if x == b}
                       - {a, b})
    for o in opponents:
        sa, sb = s[(a, o)], s[(b, o)]
        n = min(len(sa), len(sb))
        diff = (sa[:n] - sb[:n]) / 2.0 * 100.0        # points of score, per deal
        m, lo, hi = _interval(diff)
        rows.append({"opponent": o, "deals": n, "a": float(sa[:n].mean() * 50),
                     "b": float(sb[:n].mean() * 50), "diff": m, "lo": lo, "hi": hi})
        if o not in leave_out:
            pooled.append(diff)
    out: dict[str, Any] = {"a": a, "b": b, "folder": folder, "opponents": rows,
                           "left_out": list(leave_out)}
    if pooled:
        m, lo, hi = _interval(np.concatenate(pooled))
        out["pooled"] = {"diff": m, "lo": lo, "hi": hi,
                         "deals": int(sum(len(x) for x in pooled))}
    if (a, b) in s:
        out["head_to_head"] = float(s[(a, b)].mean() * 50)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--leave-out", nargs="*", default=[], metavar="NAME")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = compare(args.folder, args.a, args.b, tuple(args.leave_out))
    if args.json:
        print(json.dumps(r, indent=1))
        return 0
    print(f"{'opponent':<12} {'deals':>5} {args.a:>10} {args.b:>10}  paired difference (95 %)")
    for x in r["opponents"]:
        print(f"{x['opponent']:<12} {x['deals']:>5} {x['a']:>9.1f}% {x['b']:>9.1f}%  "
              f"{x['diff']:+.1f} ({x['lo']:+.1f} .. {x['hi']:+.1f}) points")
    if "pooled" in r:
        p = r["pooled"]
        print(f"pooled over {p['deals']} deals"
              + (f" (leaving out {', '.join(r['left_out'])})" if r["left_out"] else "")
              + f": {p['diff']:+.1f} ({p['lo']:+.1f} .. {p['hi']:+.1f}) points")
    if "head_to_head" in r:
        print(f"{args.a} against {args.b}: {r['head_to_head']:.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())

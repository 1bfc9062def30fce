"""Luck-adjusted scores of finished matches: each draw's luck taken out of each game
(jaipur_ai/matches/luck.py; docs/strength.md, "Luck-adjusted results").

    PYTHONPATH=. python3 bench/bench_luck.py RESULTS.jsonl[.gz] [...] [--json]

For each results file (``jaipur-ai match --out``, ``jaipur-ai rate``'s pairings): A's raw
and adjusted score with 95 % intervals, the standard deviation of a game's score each
way, the variance the adjustment removes, and the same for the pair scores of the
mirrored deals (both games of a deal together), which is what the paired statistics read.
"""
from __future__ import annotations

import argparse
import json
import math

import numpy as np

from jaipur_ai.matches.luck import game_luck, luck_summary
from jaipur_ai.matches.results import read_results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = []
    for path in args.files:
        settings, recs = read_results(path)
        s = luck_summary(recs)
        # the pair scores of complete deals, raw and adjusted
        by_deal: dict[int, list[tuple[float, float]]] = {}
        for r in recs:
            by_deal.setdefault(r.deal, []).append((r.score, r.score - game_luck(r)))
        pairs = np.array([[sum(a for a, _ in v), sum(b for _, b in v)]
                          for v in by_deal.values() if len(v) == 2])
        if len(pairs) > 1:
            s["pairs"] = len(pairs)
            s["pair_sd_raw"] = float(pairs[:, 0].std(ddof=1))
            s["pair_sd_adjusted"] = float(pairs[:, 1].std(ddof=1))
            for k, col in (("pair_half_raw", 0), ("pair_half_adjusted", 1)):
                s[k] = 1.96 * float(pairs[:, col].std(ddof=1)) / math.sqrt(len(pairs)) / 2
        s["a"], s["b"], s["file"] = settings["a"], settings["b"], path
        out.append(s)
        if not args.json:
            print(f"{settings['a']} vs {settings['b']}: {s['games']} games")
            print(f"  raw      {100 * s['score']:.1f} % +- {100 * s['score_half']:.1f}, "
                  f"a game's SD {s['sd_raw']:.3f}")
            print(f"  adjusted {100 * s['adjusted']:.1f} % +- {100 * s['adjusted_half']:.1f}, "
                  f"a game's SD {s['sd_adjusted']:.3f} "
                  f"(variance {100 * s['variance_reduction']:.0f} % lower)")
            if "pairs" in s:
                print(f"  mirrored deals: pair SD {s['pair_sd_raw']:.3f} raw, "
                      f"{s['pair_sd_adjusted']:.3f} adjusted (95 % half-width "
                      f"{100 * s['pair_half_raw']:.1f} -> {100 * s['pair_half_adjusted']:.1f} points)")
    if args.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

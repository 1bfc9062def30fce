"""The evaluation alone (``ply1``) on the move-quality benchmark by the self-play rounds
it was fitted on: a data curve (docs/strength.md, "More self-play for the raw network").

Reads bench/bench_quality.py's ``--json`` results and, for each ``ROUNDS=SPEC`` given,
prints the spec's error with its interval and its paired difference from ``--base``
(the same 1,000 positions, position by position, Student t); ``--plot`` draws the
error by rounds as a ratio to the base's, with the paired interval (matplotlib, the
``plot`` extra).

    PYTHONPATH=. python3 bench/experiments/data_curve.py RESULTS.json ... --base ply1 \\
        --point 4000=ply1:weights=raw128-4k.npz --point 10000=ply1:weights=raw128-10k.npz \\
        --json --plot docs/img/data-curve.png
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from jaipur_ai.matches.quality import paired_difference


def paired(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """a's losses minus b's over the positions both scored (keys: position ids), with a
    95 % interval."""
    keys = sorted(set(a) & set(b), key=int)
    return paired_difference([a[k] for k in keys], [b[k] for k in keys])


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="bench_quality.py --json outputs")
    ap.add_argument("--base", required=True, help="the spec the others are compared with")
    ap.add_argument("--point", action="append", default=[], metavar="ROUNDS=SPEC")
    ap.add_argument("--plot")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    engines = {}
    for f in a.results:
        with open(f, encoding="utf-8") as fh:
            engines.update({e["spec"]: e for e in json.load(fh)["engines"]})
    base = engines[a.base]
    rows = []
    for p in a.point:
        rounds, spec = p.split("=", 1)
        e = engines[spec]
        d = paired(e["losses"], base["losses"])
        rows.append({"rounds": int(rounds), "spec": spec, "error": e["error"],
                     "error_lo": e["error_lo"], "error_hi": e["error_hi"],
                     "ratio": e["error"] / base["error"], "diff": d["diff"],
                     "diff_lo": d["lo"], "diff_hi": d["hi"]})
    out = {"base": a.base, "base_error": base["error"], "points": rows}
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        for r in rows:
            print(f"{r['rounds']:>7,} rounds  {r['error']:.2f} ({r['error_lo']:.2f}-"
                  f"{r['error_hi']:.2f})  ratio {r['ratio']:.2f}  paired {r['diff']:+.2f} "
                  f"({r['diff_lo']:+.2f} .. {r['diff_hi']:+.2f})  {r['spec']}")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.6))
        x = [r["rounds"] for r in rows]
        b = base["error"]
        y = [1 + r["diff"] / b for r in rows]
        ax.errorbar(x, y, yerr=[[-r["diff_lo"] / b + r["diff"] / b for r in rows],
                                [r["diff_hi"] / b - r["diff"] / b for r in rows]],
                    fmt="o-", capsize=3, label="raw network, lookahead targets (paired 95 %)")
        ax.axhline(1.0, color="grey", ls="--", label=f"{a.base} (shipped), {b:.2f}")
        ax.axhline(0.7, color="tab:red", ls=":", label="issue 52's goal, 0.7")
        ax.set_xscale("log")
        ax.set_xticks(x)
        ax.set_xticklabels([f"{v:,}" for v in x])
        ax.minorticks_off()
        ax.set_ylim(0.6, 1.1)
        ax.set_xlabel("self-play rounds fitted on")
        ax.set_ylabel("ply1 error / shipped ply1 error")
        ax.legend(fontsize=8, loc="lower left")
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())

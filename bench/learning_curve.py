"""The learning curve of a `jaipur-ai improve` run: each generation's benchmark error
and gate result (docs/strength.md, "A league run of improve").

    PYTHONPATH=. python3 bench/learning_curve.py RUN_FOLDER --procs 2 \\
        --out bench/results/learning-curve.json --plot docs/img/learning-curve.png

For the run's starting weights (``gen0.npz``) and every generation's candidate
(``genN/candidate.npz``, kept or not), the evaluation alone (``ply1:weights=...``) is
scored on the move-quality benchmark by bench/bench_quality.py (the error rate, win %
lost a decision, with its 95 % interval); the gate's verdict (its paired difference over
the gauntlet against the weights of the time) is read from ``generations.jsonl``.  The
plot (matplotlib, the ``plot`` extra) draws both by generation; ``--results FILE``
redraws from an earlier ``--out`` without scoring again.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


def generations(folder: str) -> list[dict[str, Any]]:
    """The run's weights by generation: 0 the start, then each candidate with its gate."""
    rows = [{"generation": 0, "weights": os.path.join(folder, "gen0.npz"),
             "accepted": True, "gate": None, "gate_ci95": None}]
    path = os.path.join(folder, "generations.jsonl")
    with open(path) as fh:
        for line in fh:
            g = json.loads(line)
            n = int(g["generation"])
            rows.append({"generation": n,
                         "weights": os.path.join(folder, f"gen{n}", "candidate.npz"),
                         "accepted": bool(g["accepted"]),
                         "gate": g.get("paired_difference"),
                         "gate_ci95": g.get("paired_difference_ci95"),
                         "games": g.get("games"), "seconds": g.get("seconds")})
    return rows


def score(rows: list[dict[str, Any]], positions: int, procs: int) -> None:
    """Each row's ply1 error on the benchmark (bench_quality.py, one run for all)."""
    specs = [f"ply1:weights={r['weights']}" for r in rows]
    cmd = [sys.executable, os.path.join(HERE, "bench_quality.py"), *specs,
           "--positions", str(positions), "--procs", str(procs), "--json"]
    # the package of this tree first (bench/ runs from a checkout, installed or not)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(HERE)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
    engines = json.loads(out)["engines"]
    for r, e in zip(rows, engines):
        r["error"], r["error_ci95"] = e["error"], [e["error_lo"], e["error_hi"]]
        vs = e.get("vs_first")
        r["vs_start"] = None if vs is None else [vs["diff"], vs["lo"], vs["hi"]]


def plot(rows: list[dict[str, Any]], path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    gens = [r["generation"] for r in rows]
    err = [r["error"] for r in rows]
    lo = [r["error"] - r["error_ci95"][0] for r in rows]
    hi = [r["error_ci95"][1] - r["error"] for r in rows]
    ax1.errorbar(gens, err, yerr=[lo, hi], fmt="-", color="0.6", capsize=3)
    for r in rows:
        ax1.plot(r["generation"], r["error"], "o", color="tab:green" if r["accepted"]
                 else "tab:red")
    ax1.set_xlabel("generation (green: kept, red: refused)")
    ax1.set_ylabel("ply1 error, win % lost a decision")
    ax1.set_xticks(gens)
    gated = [r for r in rows if r["gate"] is not None]
    if gated:
        ax2.errorbar([r["generation"] for r in gated], [100 * r["gate"] for r in gated],
                     yerr=[[100 * (r["gate"] - r["gate_ci95"][0]) for r in gated],
                           [100 * (r["gate_ci95"][1] - r["gate"]) for r in gated]],
                     fmt="o", capsize=3, color="tab:blue")
    ax2.axhline(0, color="0.5", lw=0.8)
    ax2.set_xlabel("generation")
    ax2.set_ylabel("gate: points over the gauntlet")
    ax2.set_xticks(gens)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", nargs="?", help="the improve run's folder")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--out", help="JSON to write")
    ap.add_argument("--plot", help="PNG to write (needs matplotlib)")
    ap.add_argument("--results", help="an earlier --out to plot instead of scoring")
    ap.add_argument("--title", default="improve: ply1 benchmark error and gate by generation")
    args = ap.parse_args()
    if args.results:
        with open(args.results) as fh:
            rows = json.load(fh)["generations"]
    elif args.folder:
        rows = generations(args.folder)
        score(rows, args.positions, args.procs)
    else:
        ap.error("give the run's folder or --results")
    doc = {"folder": args.folder, "positions": args.positions, "generations": rows}
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(doc, fh, indent=1)
    for r in rows:
        gate = "" if r["gate"] is None else (
            f"  gate {100 * r['gate']:+.1f} ({100 * r['gate_ci95'][0]:+.1f} .. "
            f"{100 * r['gate_ci95'][1]:+.1f}) {'kept' if r['accepted'] else 'refused'}")
        print(f"generation {r['generation']}: ply1 error {r['error']:.2f} "
              f"({r['error_ci95'][0]:.2f} .. {r['error_ci95'][1]:.2f}){gate}")
    if args.plot:
        plot(rows, args.plot, args.title)


if __name__ == "__main__":
    main()

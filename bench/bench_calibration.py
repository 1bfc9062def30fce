"""Calibration of the win probability that ``analyse`` reports.

Plays seeded self-play rounds with the default engine (each move searched from the
mover's view only), records at every position the win probability of the move played,
as ``analyse`` reported it, and the round's result; then reports the expected
calibration error (10 equal-width bins, weighted by positions) and draws the
reliability diagram (matplotlib, an optional extra: ``pip install "jaipur-ai[plot]"``).

    PYTHONPATH=. python3 bench/bench_calibration.py [--rounds 100] [--iterations 1000]
        [--workers 2] [--folder F] [--plot docs/img/calibration.png]

The self-play goes to ``bench/results/calibration-<fingerprint of the shipped weights>-
<hash of the engine's resolved options and the shipped map>`` unless ``--folder`` says
otherwise, so that a rerun after the weights, their map or the Engine's defaults change
plays anew (the folder's settings name the engine spec, not what stands behind it).
"""
from __future__ import annotations

import argparse
import hashlib
import json

import numpy as np

from jaipur_ai.search.evaluation import DEFAULT_WEIGHTS, fingerprint
from jaipur_ai.learning.selfplay import selfplay
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.learning.train import load_shards, reliability


def plot(rel: dict, path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = [r["mean_predicted"] for r in rel["bins"]]
    y = [r["observed"] for r in rel["bins"]]
    n = [r["positions"] for r in rel["bins"]]
    fig, ax = plt.subplots(figsize=(5, 5), dpi=100)
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    ax.plot(x, y, "o-", label=f"jaipur_ai (ECE {100 * rel['ece']:.1f} points)")
    for xi, yi, ni in zip(x, y, n):
        ax.annotate(f"{ni}", (xi, yi), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlabel("reported win probability of the move played")
    ax.set_ylabel("share of those positions whose round the mover won")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(path)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--engine", default=None, help="engine spec (default: the Engine's "
                    "default at --iterations)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--folder", default=None, help="self-play folder (default: "
                    "bench/results/calibration-<fingerprint of the shipped weights>-<hash of the "
                    "engine's options and the map>)")
    ap.add_argument("--plot", default=None, help="PNG to write (needs matplotlib)")
    a = ap.parse_args(argv)
    engine = a.engine or f"ismcts:iterations={a.iterations}"
    if a.folder is None:
        # the values recorded are mapped by the shipped map, so it names the folder too
        with np.load(DEFAULT_WEIGHTS) as z:
            calibration = [float(x) for x in z["calibration"]]
        options = json.dumps([EngineSpec.parse(engine).make_engine().options(), calibration],
                             sort_keys=True)
        a.folder = (f"bench/results/calibration-{fingerprint(DEFAULT_WEIGHTS)}-"
                    f"{hashlib.sha256(options.encode()).hexdigest()[:8]}")
    selfplay(a.folder, a.rounds, engine, seed=a.seed, shard_rounds=10, workers=a.workers)
    d = load_shards(a.folder)
    ok = np.isfinite(d["value"]) & (d["round"] < a.rounds)   # (the folder may hold more)
    rel = reliability(d["value"][ok].astype(np.float64), d["result"][ok].astype(np.float64))
    rel.update(engine=engine, rounds=a.rounds)
    print(json.dumps(rel, indent=1))
    print(f"expected calibration error: {100 * rel['ece']:.2f} points over "
          f"{rel['positions']:,} positions")
    if a.plot:
        plot(rel, a.plot, f"{engine}, {a.rounds} self-play rounds, "
                          f"{rel['positions']:,} positions")


if __name__ == "__main__":
    main()

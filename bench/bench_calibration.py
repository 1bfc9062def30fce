"""Calibration of the win probability that ``analyse`` reports, at one budget or several.

Plays seeded self-play rounds with the default engine (each move searched from the
mover's view only), records at every position the win probability of the move played,
as ``analyse`` reported it, and the round's result; then reports the expected
calibration error (10 equal-width bins, weighted by positions) with a 95 % interval
(bootstrap over rounds: the positions of one round share its result, so the rounds, not
the positions, are the sample), and draws the reliability diagram, one line per budget
(matplotlib, an optional extra: ``pip install "jaipur-ai[plot]"``).

    PYTHONPATH=. python3 bench/bench_calibration.py [--rounds 100 ...] [--iterations 1000]
        [--engine SPEC ...] [--folder F ...] [--map WEIGHTS] [--workers 2] [--out R.json]
        [--plot docs/img/calibration.png]

Each folder records the map its values were reported under (``reported-map.json``), so
that a folder played before the map changed is scored under today's map (``--map``: the
shipped weights unless it names another weights file) without playing it again: each
value is taken back to the search's raw estimate and mapped anew, at the iterations the
search ran.  Exact round-ending results (0 or 1) are never mapped.

The self-play goes to ``bench/results/calibration-<fingerprint of the shipped weights>-
<hash of the engine's resolved options and the shipped map>`` unless ``--folder`` says
otherwise, so that a rerun after the weights, their map or the Engine's defaults change
plays anew (the folder's settings name the engine spec, not what stands behind it).
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from jaipur_ai.search.evaluation import (DEFAULT_WEIGHTS, calibrated, fingerprint,
                                         load_evaluation, uncalibrated)
from jaipur_ai.learning.selfplay import selfplay
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.learning.train import load_shards, reliability

MAP_FILE = "reported-map.json"


def weights_map(path) -> list[float]:
    """The calibration map a weights file holds (read and checked by the package)."""
    return [float(x) for x in load_evaluation(path).calibration]


def rescored(value: np.ndarray, iterations: np.ndarray, played: list[float],
             scoring: list[float]) -> np.ndarray:
    """``value`` reported under the map ``played``, as the map ``scoring`` reports it."""
    out = value.astype(np.float64).copy()
    if played == scoring:
        return out
    searched = np.isfinite(out) & (out > 0.0) & (out < 1.0)
    for i in np.flatnonzero(searched):
        out[i] = calibrated(uncalibrated(out[i], played, iterations[i]), scoring, iterations[i])
    return out


def ece_interval(p: np.ndarray, y: np.ndarray, rounds: np.ndarray, samples: int = 1000,
                 seed: int = 0) -> tuple[float, float]:
    """95 % interval of the calibration error, resampling whole rounds."""
    rng = np.random.default_rng(seed)
    ids, inverse = np.unique(rounds, return_inverse=True)
    members = [np.flatnonzero(inverse == k) for k in range(len(ids))]
    eces = []
    for _ in range(samples):
        pick = np.concatenate([members[k] for k in rng.integers(0, len(ids), len(ids))])
        eces.append(reliability(p[pick], y[pick])["ece"])
    lo, hi = np.percentile(eces, [2.5, 97.5])
    return float(lo), float(hi)


def default_folder(engine: str) -> str:
    # the values recorded are mapped by the shipped map, so it names the folder too
    options = json.dumps([EngineSpec.parse(engine).make_engine().options(),
                          weights_map(DEFAULT_WEIGHTS)], sort_keys=True)
    return (f"bench/results/calibration-{fingerprint(DEFAULT_WEIGHTS)}-"
            f"{hashlib.sha256(options.encode()).hexdigest()[:8]}")


def measure(engine: str, folder: str, rounds: int, seed: int, workers: int,
            scoring: list[float]) -> dict:
    """Play (or resume) the folder's self-play and score it under the map ``scoring``."""
    spec = EngineSpec.parse(engine)
    played_with = weights_map(spec.options.get("weights") or DEFAULT_WEIGHTS)
    record = Path(folder) / MAP_FILE
    if record.exists():
        played_with = json.loads(record.read_text())["calibration"]
    elif Path(folder).exists() and any(Path(folder).glob("shard-*.npz")):
        raise SystemExit(f"{folder}: shards without {MAP_FILE}; write the map they were "
                         "reported under into it")
    selfplay(folder, rounds, engine, seed=seed, shard_rounds=10, workers=workers)
    if not record.exists():
        record.write_text(json.dumps({"calibration": played_with}) + "\n")
    d = load_shards(folder)
    ok = np.isfinite(d["value"]) & (d["round"] < rounds)   # (the folder may hold more)
    its = d["iterations"][ok].astype(np.float64)
    p = rescored(d["value"][ok], its, played_with, scoring)
    y = d["result"][ok].astype(np.float64)
    rel = reliability(p, y)
    lo, hi = ece_interval(p, y, d["round"][ok])
    searched = (p > 0.0) & (p < 1.0)
    rel.update(engine=engine, rounds=rounds, ece_95=[lo, hi],
               median_iterations=float(np.median(its[searched])) if searched.any() else 0.0)
    return rel


def plot(rels: list[dict], path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 5.5), dpi=100)
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    for rel in rels:
        x = [r["mean_predicted"] for r in rel["bins"]]
        y = [r["observed"] for r in rel["bins"]]
        budget = rel["engine"].split(":", 1)[-1]
        ax.plot(x, y, "o-", markersize=4,
                label=f"{budget}: ECE {100 * rel['ece']:.1f} points, {rel['rounds']} rounds, "
                      f"{rel['positions']:,} positions")
    ax.set_xlabel("reported win probability of the move played")
    ax.set_ylabel("share of those positions whose round the mover won")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(path)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, nargs="+", default=[100],
                    help="self-play rounds, one number for every engine or one per engine")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--engine", nargs="+", default=None, help="engine specs, one per budget "
                    "(default: the Engine's default at --iterations)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--folder", nargs="+", default=None, help="self-play folders, one per "
                    "engine (default: bench/results/calibration-<fingerprint of the shipped "
                    "weights>-<hash of the engine's options and the map>)")
    ap.add_argument("--map", default=None, help="the weights file whose map scores the "
                    "values (default: the shipped weights)")
    ap.add_argument("--out", default=None, help="JSON file for the results")
    ap.add_argument("--plot", default=None, help="PNG to write (needs matplotlib)")
    a = ap.parse_args(argv)
    engines = a.engine or [f"ismcts:iterations={a.iterations}"]
    folders = a.folder or [default_folder(e) for e in engines]
    if len(folders) != len(engines):
        ap.error("give one --folder per --engine")
    rounds = a.rounds * len(engines) if len(a.rounds) == 1 else a.rounds
    if len(rounds) != len(engines):
        ap.error("give one --rounds for every engine or one per engine")
    scoring = weights_map(a.map or DEFAULT_WEIGHTS)
    rels = [measure(e, f, n, a.seed, a.workers, scoring)
            for e, f, n in zip(engines, folders, rounds)]
    result = {"map": scoring, "budgets": rels}
    if a.out:
        Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    else:
        print(json.dumps(result, indent=1))
    for rel in rels:
        lo, hi = rel["ece_95"]
        print(f"{rel['engine']}: expected calibration error {100 * rel['ece']:.2f} points "
              f"(95 % interval over rounds {100 * lo:.1f}-{100 * hi:.1f}) over "
              f"{rel['positions']:,} positions of {rel['rounds']} rounds, median "
              f"{rel['median_iterations']:,.0f} iterations")
    if a.plot:
        plot(rels, a.plot, "self-play of the default engine; map "
                           + ", ".join(f"{x:.3f}" for x in scoring))


if __name__ == "__main__":
    main()

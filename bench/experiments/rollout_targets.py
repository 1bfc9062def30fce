"""Rollout targets for the learned evaluation: each position of a self-play run valued by
rolling its played move out to the end of the round (docs/strength.md, "Rollout
targets for the raw network").

A round's result is one noisy sample of what a position was worth; the mean of ``K``
rollouts of the move played, in ``K`` worlds dealt from the mover's view (the
opponent's hand, the pile's order, the bonus tokens), is a far quieter one: at 64
worlds its standard error is about a seventh of a result's.  Its price is the rollout
policy's bias: the value learned is what the position is worth when both players go on
as that policy plays.  The rollouts are the benchmark's own (compiled
``jaipur_ai.search._rollout``, both players choosing in worlds re-dealt from what each
knows, a random candidate one move in twenty).

The values are written where ``jaipur-ai train --target lookahead`` reads a third
target: ``OUT/lookahead/shard-NNNNN.npz`` beside links ``OUT/shard-NNNNN.npz`` to the
run's shards (NaN where a row stores no state or the round is over), so that

    PYTHONPATH=. python3 bench/experiments/rollout_targets.py runs/sp runs/roll-A \\
        --worlds 64 --policy 2026-12-06 --procs 2
    jaipur-ai train runs/roll-A --start jaipur_ai/data/weights-2026-12-06.npz \\
        --target lookahead --lookahead-mix 1.0 --raw-hidden 128 --epochs 20 --seed 9 \\
        --out roll-A.npz

fits the raw network to them (``--lookahead-mix``: their share, the result the rest).
``--policy handset``: the hand-set move scores instead of a weights file's move policy.
A shard already valued is kept, so a stopped run resumes.  ``--against`` instead
scores weights files on held-out shards against the rounds' results: log-loss, and the
calibration map's logistic fit ``result ~ slope * logit(value) + offset`` (slope 1 and
offset 0 for values true to the results):

    PYTHONPATH=. python3 bench/experiments/rollout_targets.py runs/sp2 --against \\
        roll-A.npz bench/weights/raw128-10k.npz --first 40
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Optional

import numpy as np

from jaipur_ai.learning._selfplay import state_of_bytes
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.search._rollout import rollout_outcomes
from jaipur_ai.search.evaluation import cached_evaluation

#: The rollouts' seeds: derive_seed(SALT, shard number, row).
SALT = 7


def shard_values(shard: str, worlds: int, policy: Optional[str]) -> np.ndarray:
    """The mover's mean rollout result of each row's played move (NaN where the row
    stores no state or its round is over); ``policy`` None: the hand-set move scores."""
    ev = None if policy is None else cached_evaluation(policy)
    with np.load(shard) as z:
        states, movers, actions = z["state"], z["mover"], z["action"]
    k = int(Path(shard).stem.split("-")[-1])
    values = np.full(len(actions), np.nan)
    for i in range(len(actions)):
        if not states[i].any():
            continue
        state = state_of_bytes(states[i].tobytes())
        if state.raw()["result"] != -1:
            continue
        scores, _ = rollout_outcomes(state.view(int(movers[i])), [int(actions[i])], worlds,
                                     derive_seed(SALT, k, i), evaluation=ev, fair=True)
        values[i] = float(scores.mean())
    return values


def _one(task: tuple[str, str, int, Optional[str]]) -> str:
    shard, target, worlds, policy = task
    np.savez(target + ".tmp.npz", value=shard_values(shard, worlds, policy))
    os.replace(target + ".tmp.npz", target)
    return shard


def rollout_targets(run: str, out: str, worlds: int, policy: Optional[str],
                    procs: int = 1, progress: bool = True) -> int:
    """Value every shard of the self-play folder ``run`` into ``out`` (see the module);
    returns the number of shards valued by this call."""
    src, dst = Path(run), Path(out)
    (dst / "lookahead").mkdir(parents=True, exist_ok=True)
    tasks = []
    for s in sorted(src.glob("shard-*.npz")):
        link = dst / s.name
        if not link.exists():
            link.symlink_to(s.resolve())
        target = dst / "lookahead" / s.name
        if not target.exists():
            tasks.append((str(s), str(target), worlds, policy))
    t0 = time.time()
    if procs <= 1:
        results: Any = map(_one, tasks)
    else:
        pool = get_context("spawn").Pool(procs)
        results = pool.imap_unordered(_one, tasks)
    for n, _ in enumerate(results, 1):
        if progress:
            print(f"\r{n}/{len(tasks)} shards, {time.time() - t0:.0f} s", end="",
                  file=sys.stderr, flush=True)
    if procs > 1:
        pool.close()
        pool.join()
    if progress:
        print(file=sys.stderr)
    return len(tasks)


def against_results(weights: str, data: dict[str, Any]) -> dict[str, float]:
    """Log-loss of a weights file's values against the results of ``data``
    (train.load_shards), and the slope and offset of the logistic fit of the results
    on the values' logits (the calibration map's fit, ``train.fit_calibration``)."""
    from jaipur_ai.learning import train
    with np.load(weights) as z:
        w = {k: z[k] for k in z.files}
    raw = train._raw_of(data) if "raw_w" in w and len(w["raw_w"]) else None
    p = np.clip(train.predict(w, data["features"], raw), 1e-6, 1 - 1e-6)
    y = np.asarray(data["result"], np.float64)
    slope, offset = train.fit_calibration(p, y)
    return {"positions": int(len(y)), "logloss": float(train.metrics(p, y)["logloss"]),
            "slope": slope, "offset": offset}


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", help="a self-play folder (jaipur-ai selfplay with a search engine)")
    ap.add_argument("out", nargs="?", help="the folder for the links and the values")
    ap.add_argument("--worlds", type=int, default=64)
    ap.add_argument("--policy", default="2026-12-06",
                    help="the rollouts' move policy: a weights file or name, or handset")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--against", nargs="+", metavar="WEIGHTS",
                    help="score these weights against RUN's results instead")
    ap.add_argument("--first", type=int, default=0, help="with --against: RUN's first N shards")
    a = ap.parse_args(argv)
    if a.against:
        from jaipur_ai.learning import train
        shards = sorted(str(s) for s in Path(a.run).glob("shard-*.npz"))
        data = train.load_shards(shards[:a.first] if a.first else shards)
        for w in a.against:
            r = against_results(w, data)
            print(f"{w}: {r['positions']:,} positions, log-loss {r['logloss']:.4f}, "
                  f"slope {r['slope']:.3f}, offset {r['offset']:+.3f}")
        return 0
    if a.out is None:
        ap.error("OUT is needed unless --against is given")
    rollout_targets(a.run, a.out, a.worlds, None if a.policy == "handset" else a.policy,
                    a.procs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

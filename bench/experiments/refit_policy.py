"""Give a value-only weights file a learned move policy, fitted on searched self-play.

The move policy (docs/search.md, "The learned move policy") is fitted to the search's
choices in the shards given, its prior scores read through the value of VALUE; the
result keeps VALUE's value arrays and takes the calibration map of --calibration-from
(default: the shipped weights; the map changes the reported win %, not the moves).
Used to compare evaluations that differ only in their value (issue 52: a hidden layer
against the linear model of the same data, each with the same kind of policy).

    PYTHONPATH=. python3 bench/experiments/refit_policy.py VALUE.npz SHARDS [SHARDS ...] \
        --out OUT.npz [--init-policy W.npz] [--seed 1]
"""
from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from jaipur_ai.learning.policy import fit_policy, rows_of  # noqa: E402
from jaipur_ai.learning.train import load_shards  # noqa: E402
from jaipur_ai.search.evaluation import (DEFAULT_WEIGHTS, POLICY_ARRAYS,  # noqa: E402
                                         evaluation_of, read_weights, save_weights)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("value")
    ap.add_argument("shards", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--init-policy", default=None,
                    help="weights whose policy the fit starts from and shrinks towards "
                         "(default: the prior before training)")
    ap.add_argument("--calibration-from", default=str(DEFAULT_WEIGHTS))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    weights = {k: v for k, v in read_weights(args.value).items() if k not in POLICY_ARRAYS}
    weights["calibration"] = read_weights(args.calibration_from)["calibration"]
    init = None
    if args.init_policy:
        src = read_weights(args.init_policy)
        if any(src.get(k) is None for k in POLICY_ARRAYS):
            sys.exit(f"{args.init_policy}: no move policy to start from")
        init = {k: src[k] for k in POLICY_ARRAYS}
    rows = rows_of(load_shards(args.shards), evaluation_of(weights))
    policy, report = fit_policy(rows, seed=args.seed, init=init)
    weights.update(policy)
    meta = {"command": "bench/experiments/refit_policy.py " + " ".join(argv or sys.argv[1:]),
            "value": args.value, "policy": report}
    save_weights(args.out, weights, meta)
    print(json.dumps(report))


if __name__ == "__main__":
    main()

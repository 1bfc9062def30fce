"""The cost of the learned move policy: one value evaluation, and one node's tree priors
with and without the policy (docs/performance.md, "The learned move policy").

For each of bench_search.py's positions (seeds 1..N, early, middle and late), times in C:
one leaf evaluation with the weights, and the priors of one tree node (the candidates,
the learned value after each, and with the policy the move features and their dot
products), with the policy on and off; prints the medians over the positions, in ns.

    PYTHONPATH=. taskset -c 0 python3 bench/bench_policy.py [--weights W] [--calls 100000]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from jaipur_ai.doors._bench import search_positions  # noqa: E402
from jaipur_ai.search._evaluation import time_evaluation  # noqa: E402
from jaipur_ai.search._search import time_policy  # noqa: E402
from jaipur_ai.search.evaluation import DEFAULT_WEIGHTS, load_evaluation  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weights", default=str(DEFAULT_WEIGHTS))
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--calls", type=int, default=100_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    ev = load_evaluation(args.weights)
    value, on, off, cands = [], [], [], []
    for state in [s for states in search_positions(args.seeds).values() for s in states]:
        core = state._core
        value.append(time_evaluation(core, args.calls, ev) * 1e9)
        t_on, k = time_policy(core, args.calls // 10, ev, True)
        t_off, _ = time_policy(core, args.calls // 10, ev, False)
        on.append(t_on * 1e9)
        off.append(t_off * 1e9)
        cands.append(k)
    out = {"weights": args.weights, "has_policy": ev.has_policy,
           "value_ns": statistics.median(value),
           "priors_ns_policy": statistics.median(on),
           "priors_ns_no_policy": statistics.median(off),
           "candidates": statistics.median(cands),
           "policy_ns_per_candidate": statistics.median(
               (a - b) / k for a, b, k in zip(on, off, cands))}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"weights {out['weights']} (move policy: {'yes' if ev.has_policy else 'no'})")
        print(f"one leaf evaluation:             {out['value_ns']:8.0f} ns")
        print(f"one node's priors, policy on:    {out['priors_ns_policy']:8.0f} ns "
              f"({out['candidates']:.0f} candidates)")
        print(f"one node's priors, policy off:   {out['priors_ns_no_policy']:8.0f} ns")
        print(f"the policy, per candidate move:  {out['policy_ns_per_candidate']:8.0f} ns")


if __name__ == "__main__":
    main()

"""Search speed: ISMCTS iterations per second and expectimax nodes per second.

Positions are built reproducibly: for each seed a round is dealt
(``GameState.new(seed, starter=seed % 2)``) and played out by the greedy engine;
the positions at 10 %, 50 % and 75 % of its plies are the early, middle and late
positions of that seed.  Each search runs on one core (one thread) from the
mover's view, with a fixed seed; a figure is the median over repeats of the
total iterations (nodes) divided by the total time over all positions of a phase.

    PYTHONPATH=. python3 bench/bench_search.py [--seeds 8] [--iterations 20000] [--repeat 5]
        [--weights bench/weights/features1.npz]     # the learned rows with other weights
"""
from __future__ import annotations

import argparse
import json

from jaipur_ai.doors._bench import format_search_report, search_report


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--weights", default=None,
                    help="weights file for the learned rows (default: the shipped weights)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    r = search_report(seeds=a.seeds, iterations=a.iterations, repeat=a.repeat,
                      depth=a.depth, samples=a.samples, weights=a.weights)
    print(json.dumps(r, indent=2) if a.json else format_search_report(r))


if __name__ == "__main__":
    main()

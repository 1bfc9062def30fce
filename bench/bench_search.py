"""Search speed: ISMCTS iterations per second and expectimax nodes per second.

Positions are built reproducibly: for each seed a round is dealt
(``GameState.new(seed, starter=seed % 2)``) and played out by the greedy engine;
the positions at 10 %, 50 % and 75 % of its plies are the early, middle and late
positions of that seed.  Each search runs on one core (one thread) from the
mover's view, with a fixed seed; a figure is the median over repeats of the
total iterations (nodes) divided by the total time over all positions of a phase.

    PYTHONPATH=. python3 bench/bench_search.py [--seeds 8] [--iterations 20000] [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from jaipur_ai import GameState  # noqa: E402
from jaipur_ai import _search  # noqa: E402
from jaipur_ai.engine import Engine  # noqa: E402

PHASES = (("early", 0.10), ("middle", 0.50), ("late", 0.75))


def positions(seeds: int) -> dict[str, list]:
    """{phase: [GameState]} from greedy rounds of seeds 1..n."""
    greedy = Engine("greedy")
    out = {name: [] for name, _ in PHASES}
    for seed in range(1, seeds + 1):
        s = GameState.new(seed=seed, starter=seed % 2)
        line = []
        while not s.is_round_over:
            line.append(s)
            s = s.apply(greedy.best_move(s, seed=seed * 1000 + len(line)))
        for name, frac in PHASES:
            out[name].append(line[min(len(line) - 1, int(frac * len(line)))])
    return out


def ismcts_rate(states, playout: str, iterations: int) -> tuple[float, float, float]:
    """(iterations/s, mean legal moves at the root, mean playout plies)."""
    total_t = 0.0
    moves = plies = 0
    for i, s in enumerate(states):
        se = _search.IsmctsSearcher(s.view(s.to_move)._core, seed=i + 1, playout=playout)
        t = time.perf_counter()
        se.run(iterations=iterations)
        total_t += time.perf_counter() - t
        sm = se.summary()
        moves += sm["root_moves"]
        plies += sm["playout_plies"] / max(1, sm["iterations"])
    return len(states) * iterations / total_t, moves / len(states), plies / len(states)


def expectimax_rate(states, depth: int, samples: int) -> tuple[float, float]:
    """(nodes/s, mean nodes per search) for a full search to `depth`."""
    total_t = 0.0
    nodes = 0
    for i, s in enumerate(states):
        x = _search.ExpectimaxSearcher(s.view(s.to_move)._core, seed=i + 1, samples=samples)
        t = time.perf_counter()
        for d in range(1, depth + 1):
            x.run_depth(d)
        total_t += time.perf_counter() - t
        nodes += x.nodes
    return nodes / total_t, nodes / len(states)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--samples", type=int, default=8)
    args = ap.parse_args(argv)
    pos = positions(args.seeds)
    print(f"ISMCTS, one thread, {args.iterations} iterations per position, "
          f"{args.seeds} positions per phase, median of {args.repeat}")
    print("| phase | legal moves | playout | iterations/s | plies per playout |")
    print("| --- | ---: | --- | ---: | ---: |")
    for name, _ in PHASES:
        for playout in ("informed", "random"):
            runs = [ismcts_rate(pos[name], playout, args.iterations) for _ in range(args.repeat)]
            rate = statistics.median(r[0] for r in runs)
            print(f"| {name} | {runs[0][1]:.0f} | {playout} | {rate:,.0f} | {runs[0][2]:.1f} |")
    print()
    print(f"Expectimax, one thread, depth {args.depth}, {args.samples} worlds, "
          f"median of {args.repeat}")
    print("| phase | nodes/s | nodes per search |")
    print("| --- | ---: | ---: |")
    for name, _ in PHASES:
        runs = [expectimax_rate(pos[name], args.depth, args.samples)
                for _ in range(args.repeat)]
        rate = statistics.median(r[0] for r in runs)
        print(f"| {name} | {rate:,.0f} | {runs[0][1]:,.0f} |")


if __name__ == "__main__":
    main()

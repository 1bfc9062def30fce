"""How often the exact endgame solve decides a move, how often it changes the move the tree
search would play, and what it costs (docs/search.md, "Exact endgames").

Usage:  python bench/bench_endgame.py [--rounds 20] [--iterations 3000] [--seed 1] [--deck 3] [--json]

Self-play rounds with the default engine at a fixed iteration budget, both seats.  At
each move whose position is near the end (the pile at most ``endgame_deck`` cards), the
engine with ``endgame=true`` analyses it too, with the same seed and budget: the figures
are the share of those moves it decides (a move proven best), how often its move differs
from the tree search's, and the time each took.  The rounds are played by the tree
search's moves, so both analyses see the same positions.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import jaipur_ai as jp
from jaipur_ai.search.endgame import near_end


def run(rounds: int, iterations: int, seed: int, deck: int = 3) -> dict:
    tree = jp.Engine()
    settings = jp.Settings().replace(endgame=True, endgame_deck=deck)
    solver = jp.Engine(settings=settings)
    near = decided = changed = 0
    t_tree: list[float] = []
    t_end: list[float] = []
    depths: list[int] = []
    for r in range(rounds):
        s = jp.GameState.new(seed=seed + r)
        ply = 0
        while not s.is_round_over:
            view = s.view(s.to_move)
            k = seed * 100_000 + r * 1000 + ply
            t0 = time.perf_counter()
            a = tree.analyse(view, iterations=iterations, seed=k)
            t1 = time.perf_counter()
            if near_end(view._core, settings):
                near += 1
                b = solver.analyse(view, iterations=iterations, seed=k)
                t2 = time.perf_counter()
                t_tree.append(t1 - t0)
                t_end.append(t2 - t1)
                if b.algorithm == "endgame":
                    decided += 1
                    depths.append(b.depth or 0)
                    changed += b.best != a.best
            s = s.apply(a.best)
            ply += 1
    return {
        "rounds": rounds, "iterations": iterations, "seed": seed,
        "endgame_deck": settings.endgame_deck, "endgame_worlds": settings.endgame_worlds,
        "moves_near_the_end": near, "decided": decided,
        "decided_share": decided / near if near else None,
        "changed": changed, "changed_share_of_decided": changed / decided if decided else None,
        "median_depth": statistics.median(depths) if depths else None,
        "median_seconds_tree": statistics.median(t_tree) if t_tree else None,
        "median_seconds_with_endgame": statistics.median(t_end) if t_end else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--iterations", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--deck", type=int, default=3, help="endgame_deck: solve once the pile holds at most this many cards")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = run(args.rounds, args.iterations, args.seed, args.deck)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for k, v in out.items():
            print(f"{k:32} {v}")


if __name__ == "__main__":
    main()

"""Head-to-head strength of search settings: rounds won, seats swapped on every deal.

Each deal (``GameState.new(seed=deal)``) is played twice, A starting once and B once,
so that the deal's luck cancels.  The games are played by :func:`jaipur_ai.matches.runner.play_game`
(the runner of ``jaipur-ai match``), with this benchmark's deals and search seeds.  A round won counts 1, a drawn round 0.5.  Every
search is seeded from (deal, ply), so a run is reproducible.

    PYTHONPATH=. python3 bench/bench_strength.py --deals 100 \
        --a '{"algorithm": "ismcts", "iterations": 1000}' \
        --b '{"algorithm": "ismcts", "iterations": 1000, "playout": "random"}'
"""
from __future__ import annotations

import argparse
import functools
import json
import math
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from jaipur_ai.matches.games import play_game  # noqa: E402
from jaipur_ai.matches.spec import EngineSpec  # noqa: E402


def _spec(options: dict) -> EngineSpec:
    """An engine spec from the JSON options: ``algorithm`` (default ismcts),
    ``iterations`` or ``time`` per move, and the options of jaipur_ai.Engine."""
    options = dict(options)
    return EngineSpec(options.pop("algorithm", "ismcts"), time=options.pop("time", None),
                      iterations=options.pop("iterations", None), options=options)


def _move_seed(deal: int, rnd: int, ply: int, player: int) -> int:
    """This benchmark's search seeds: from the deal, the ply and the player."""
    return (deal * 1000003 + ply * 7919 + player) & 0xFFFFFFFF


def play_round(deal: int, a: dict, b: dict, a_starts: bool):
    """(points of A: 1/0.5/0, margin of A, plies); A is player 0, the deal is
    ``GameState.new(deal, starter)``.  The game is played by jaipur_ai.matches.runner."""
    rec = play_game(_spec(a), _spec(b), deal, 0, starter=0 if a_starts else 1, deal=deal,
                    move_seed=functools.partial(_move_seed, deal))
    return rec.score, rec.margin, rec.plies


def _job(args):
    return play_round(*args)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="JSON options of player A (Engine + limits)")
    ap.add_argument("--b", required=True, help="JSON options of player B")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--first-deal", type=int, default=1)
    ap.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    a, b = json.loads(args.a), json.loads(args.b)
    jobs = [(d, a, b, st) for d in range(args.first_deal, args.first_deal + args.deals)
            for st in (True, False)]
    t0 = time.time()
    with mp.Pool(args.procs) as pool:
        res = pool.map(_job, jobs, chunksize=1)
    n = len(res)
    score = sum(r[0] for r in res)
    wins = sum(1 for r in res if r[0] == 1.0)
    draws = sum(1 for r in res if r[0] == 0.5)
    margin = sum(r[1] for r in res) / n
    p = score / n
    se = math.sqrt(max(p * (1 - p), 1e-9) / n)
    print(f"A: {json.dumps(a)}")
    print(f"B: {json.dumps(b)}")
    print(f"rounds {n}: A won {wins}, drew {draws}, lost {n - wins - draws}; "
          f"A scores {100 * p:.1f}% ± {196 * se:.1f} (95%), mean margin {margin:+.1f}; "
          f"{sum(r[2] for r in res) / n:.1f} plies/round; {time.time() - t0:.0f} s")
    return p


if __name__ == "__main__":
    main()

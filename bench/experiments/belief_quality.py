"""How much does the belief (jaipur_ai.search.belief) know of the opponent's hand?

Plays rounds in which both players move by the same engine, and before every move asks
the mover's belief for its weights over the opponent's unknown goods. It reports the
mean log probability of the true goods under the belief and under the uniform deal
(what today's search samples from), in nats: the gain is what the opponent's moves
told the belief. Showing the hand would gain the whole of the uniform deal's figure.

    PYTHONPATH=. python3 bench/experiments/belief_quality.py --deals 20 \
        --opponent ismcts:iterations=2000 --model moves,2,0.15 --model scores,16,0.3
"""
from __future__ import annotations

from typing import Optional
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from jaipur_ai.search.belief import MODEL, MODELS, HandBelief, unknown_hands  # noqa: E402
from jaipur_ai import GameState  # noqa: E402
from jaipur_ai.matches.spec import EngineSpec  # noqa: E402


def _truth(state: GameState, observer: int) -> np.ndarray:
    raw = state._core.raw()
    o = 1 - observer
    return np.array(raw["hand"][o], dtype=np.int16) - np.array(raw["known"][o], dtype=np.int16)


def _log_share(rows: np.ndarray, w: np.ndarray, truth: np.ndarray) -> float:
    hit = np.all(rows == truth, axis=1)
    return float(np.log(w[hit][0] / w.sum()))


def measure(deals: int, opponent: str, model: str, temp: Optional[float] = None,
            floor: Optional[float] = None, first_deal: int = 1000) -> dict:
    """Mean log probability of the true unknown goods, uniform deal and belief."""
    engine = EngineSpec.parse(opponent).make_engine()
    limits = EngineSpec.parse(opponent).limits()
    prior = post = 0.0
    n = 0
    secs = 0.0
    for d in range(deals):
        s = GameState.new(first_deal + d)
        beliefs = [HandBelief(model, temp, floor) for _ in range(2)]
        settings = beliefs[0].parts
        ply = 0
        while not s.is_round_over:
            p = s.to_move
            v = s.view(p)
            rows0, logw0 = unknown_hands(v)
            if len(rows0) > 1:
                t0 = time.perf_counter()
                rows, w = beliefs[p].prior(v)
                secs += time.perf_counter() - t0
                truth = _truth(s, p)
                prior += _log_share(rows0, np.exp(logw0 - logw0.max()), truth)
                post += _log_share(rows, w, truth)
                n += 1
            m = engine.best_move(v, time=limits["time"], iterations=limits["iterations"],
                                 seed=first_deal * 1000 + ply)
            for q in (0, 1):
                beliefs[q].see(s.view(q), m)
            s = s.apply(m)
            ply += 1
    return {"temp": "/".join(f"{t:g}" for _m, t, _f, _w in settings),
            "floor": "/".join(f"{f:g}" for _m, _t, f, _w in settings),
            "decisions": n, "uniform": prior / n, "belief": post / n,
            "gain": (post - prior) / n, "ms": 1000 * secs / n}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--opponent", default="ismcts:iterations=2000",
                    help="the engine both players move by (match syntax)")
    ap.add_argument("--model", action="append", default=None,
                    help="model[,temp,floor], the model one of " + ", ".join(MODELS)
                    + " (repeatable; without temp and floor the model's own; default: "
                    "the library's)")
    args = ap.parse_args(argv)
    models = args.model or [MODEL]
    print(f"| model, temperature, floor | decisions | uniform deal | belief | gain "
          f"| ms a posterior |\n| --- | ---: | ---: | ---: | ---: | ---: |")
    for spec in models:
        model, *tf = spec.split(",")
        r = measure(args.deals, args.opponent, model, *map(float, tf))
        print(f"| {model}, {r['temp']}, {r['floor']} | {r['decisions']} "
              f"| {r['uniform']:.3f} | {r['belief']:.3f} | {r['gain']:+.3f} "
              f"| {r['ms']:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

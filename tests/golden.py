"""Fixed searches whose moves and statistics must not change when the search code is
reorganised (issue: the search split by responsibility).  ``python tests/golden.py``
re-records tests/data/golden_searches.json from the current build."""
from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import jaipur_ai as jp  # noqa: E402
from jaipur_ai.options import reads  # noqa: E402
from search_positions import mid_position, stop_the_threat_deep, winning_camels  # noqa: E402

PATH = pathlib.Path(__file__).resolve().parent / "data" / "golden_searches.json"

CONFIGS = {
    "heuristic": dict(iterations=3000),
    "ucb-tree": dict(iterations=2000, puct=0.0, chance_nodes=False, cutoff=0),
    "random-playout": dict(iterations=2000, playout="random"),
    "flat-widen": dict(iterations=2000, tree_depth=1, widen=1.0, expand="random"),
    "margin": dict(iterations=2000, reward="margin"),
    "threads": dict(iterations=3000, threads=2),
    "expectimax": dict(algorithm="expectimax", depth=2, samples=3),
    "greedy": dict(algorithm="greedy"),
}


def positions():
    for seed, plies in ((3, 20), (11, 6), (5, 30)):
        s = mid_position(seed, plies)
        yield f"mid{seed}-{plies}", s.view(player=s.to_move)
    yield "camels", winning_camels().view(player=0)
    yield "deep", stop_the_threat_deep().view(player=0)


def run(name: str, view, options: dict) -> dict:
    # recorded before the learned evaluation existed: every search uses the hand-set
    # evaluation and priors with the settings they were tuned with (no belief), which
    # must reproduce those searches move for move
    # (each where the algorithm reads it: an option it would ignore is refused)
    algo = options.get("algorithm", "ismcts")
    base = {"evaluation": "heuristic", "settings": "handset", "belief": False}
    opts = {**{k: v for k, v in base.items() if reads(algo, k)}, **options}
    engine_opts = {k: v for k, v in opts.items() if k != "iterations"}
    eng = jp.Engine.from_options(**engine_opts)
    a = eng.analyse(view, iterations=opts.get("iterations"), seed=7, top=100)
    return {
        "best": str(a.best),
        "children": [[str(c.move), c.visits,
                      None if c.win_probability is None else round(c.win_probability, 9),
                      None if c.score is None else round(c.score, 9)] for c in a],
    }


def record() -> dict:
    out = {}
    for pname, view in positions():
        for cname, opts in CONFIGS.items():
            out[f"{pname}/{cname}"] = run(pname, view, opts)
    return out


if __name__ == "__main__":
    PATH.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {PATH}")

"""Replay the rounds an engine lost in a match, with other seeds or other engines.

Were the rounds lost unwinnable deals, or the engine's bad luck with its own seeds? Each
round that side A of a results file (``jaipur-ai match --out``, or ``--json``'s
``records``) lost or drew is played again from the same deal, in the same seat, with
the same starter and the same opponent (B's spec), once per engine and seed given.
An engine written ``hands+<spec>`` is shown the opponent's hand (peek_hands.py); every
engine is shown the round's moves, so a searching one weighs the opponent's hand by them
(``belief``, on by default).

    PYTHONPATH=. python3 bench/experiments/replay_lost.py \
        bench/results/cand-1-vs-greedy.json bench/results/cand-1-vs-greedy-b.json \
        --engine ismcts:iterations=32000 --seeds 1 2 3 --workers 2
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
from typing import Any, Union

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.dirname(__file__))

from jaipur_ai.matches.games import play_game  # noqa: E402
from jaipur_ai.matches.results import ResultsFile  # noqa: E402
from jaipur_ai.matches.spec import EngineSpec  # noqa: E402
from peek_hands import HandPeekSpec, peeking_spec  # noqa: E402


def lost_rounds(path: str) -> tuple[str, list[dict]]:
    """(B's spec, the records of the rounds A did not win) of a results file."""
    settings = ResultsFile.read_settings(path)
    with open(path, encoding="utf-8") as f:
        if settings is not None:                       # a results file: one game a line
            b = settings["b"]
            records = [json.loads(x) for x in f.read().splitlines()[1:] if x.strip()]
        else:                                          # a match's --json output
            d = json.load(f)
            b, records = d["b"]["spec"], d["records"]
    return b, [r for r in records if r["score"] < 1]


def engine_spec(text: str) -> Union[EngineSpec, HandPeekSpec]:
    """A match spec, or ``hands+<spec>`` for that engine shown the opponent's hand."""
    return peeking_spec(text[len("hands+"):]) if text.startswith("hands+") else \
        EngineSpec.parse(text)


def _replay(job: tuple) -> dict[str, Any]:
    engine, b, rec, seed = job
    r = play_game(engine_spec(engine), b, rec["deal_seed"], rec["a_seat"],
                  starter=rec["starter"], seed=seed)
    return {"engine": engine, "deal_seed": rec["deal_seed"], "a_seat": rec["a_seat"],
            "seed": seed, "score": r.score, "margin": r.margin}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="results files of matches (A is the engine)")
    ap.add_argument("--engine", action="append", required=True,
                    help="engine spec to replay with (repeatable; hands+<spec> peeks at "
                         "the opponent's hand)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1],
                    help="search seeds (each engine plays each lost round once per seed)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    for engine in args.engine:
        engine_spec(engine)                              # fail early on a bad spec
    jobs = []
    for path in args.results:
        b, lost = lost_rounds(path)
        for rec in lost:
            for engine in args.engine:
                for seed in args.seeds:
                    jobs.append((engine, b, rec, seed))
    won: dict[str, list[float]] = {e: [] for e in args.engine}
    with mp.get_context().Pool(args.workers) as pool:
        for res in pool.imap(_replay, jobs):
            print(json.dumps(res), flush=True)
            won[res["engine"]].append(res["score"])
    for engine, scores in won.items():
        print(f"{engine}: {sum(scores):g} of {len(scores)} replays won")
    return 0


if __name__ == "__main__":
    sys.exit(main())

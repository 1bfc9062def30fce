"""Replay the rounds an engine lost in a match, with other seeds or other engines.

Were the rounds lost unwinnable deals, or the engine's bad luck with its own seeds? Each
round that side A of a results file (``jaipur-ai match --out``, or ``--json``'s
``records``) lost or drew is played again from the same deal, in the same seat, with
the same starter and the same opponent (B's spec), once per engine and seed given.
An engine written ``hands+<spec>`` is shown the opponent's hand (peek_hands.py); every
engine is shown the round's moves, so a searching one weighs the opponent's hand by them
(``belief``, on by default).

    git show 165eb4d:bench/results/cand-1-vs-greedy.json > /tmp/g.json
    git show 165eb4d:bench/results/cand-1-vs-greedy-b.json > /tmp/g-b.json
    PYTHONPATH=. python3 bench/experiments/replay_lost.py /tmp/g.json /tmp/g-b.json \
        --engine ismcts:iterations=32000 --seeds 1 2 3 --workers 2

(bench/results keeps match summaries without their games; git history keeps the games
of the matches docs/strength.md replayed.)

``--record FILE`` writes the lost rounds as they were played, one game of one round each,
as a game record (``jaipur-record/1``) for ``jaipur-ai review FILE --game N``, and
replays nothing.
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


def lost_record(paths: list[str]) -> dict[str, Any]:
    """The rounds side A lost or drew, as played, as a game record: game k is one round
    whose seat labels say which player was A."""
    games = []
    for path in paths:
        _, lost = lost_rounds(path)
        for r in lost:
            seats = ["A", "B"] if r["a_seat"] == 0 else ["B", "A"]
            totals = r["points"] if r["a_seat"] == 0 else r["points"][::-1]
            result = "draw" if totals[0] == totals[1] and r["score"] == 0.5 else (
                r["a_seat"] if r["score"] == 1 else 1 - r["a_seat"])
            games.append({"deal": r["deal"], "seats": seats,
                          "rounds": [{"deal": {"seed": r["deal_seed"]}, "starter": r["starter"],
                                      "moves": r["moves"][0], "totals": totals,
                                      "result": result}],
                          "seals": [int(result == 0), int(result == 1)],
                          "winner": seats[result] if result != "draw" else "draw"})
    settings = ResultsFile.read_settings(paths[0]) or {}
    return {"format": "jaipur-record/1", "source": "match", "bonus_set": "standard",
            "players": {"A": settings.get("a", "A"), "B": settings.get("b", "B")},
            "games": games}


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
    ap.add_argument("--record", default=None, help="write the lost rounds as a game "
                    "record to this file and replay nothing")
    ap.add_argument("--engine", action="append", default=None,
                    help="engine spec to replay with (repeatable; hands+<spec> peeks at "
                         "the opponent's hand)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1],
                    help="search seeds (each engine plays each lost round once per seed)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    if args.record:
        from jaipur_ai.matches.record import GameRecord
        record = GameRecord.from_dict(lost_record(args.results))   # (replays and checks)
        record.save(args.record)
        print(f"{args.record}: {len(record.games)} lost rounds")
        return 0
    if not args.engine:
        ap.error("--engine is required unless --record")
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

"""Where a clock's time goes: rounds played by the default engine on a clock against the
default at a fixed time a move, each clocked move's plan, time and reason to stop
(docs/strength.md, "Playing on a clock").

    PYTHONPATH=. taskset -c 0 python3 bench/bench_clock.py --rounds 20 --clock 1.2+0.05 \\
        --time 0.1 --out bench/results/clock-profile.json

Prints the share of moves stopped for each reason (``forced``, ``settled``, ``soft``,
``extended``, ``hard``), the mean seconds a move by reason and by cards in the draw
pile (in fifths of the round), the time left on the clock at the end of each round, and
the moves made past an empty clock.  One process, moves timed as the match runner
times them.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from typing import Any

import jaipur_ai as jp
from jaipur_ai.matches.spec import EngineSpec, RoundClock


def play(rounds: int, clock: str, fixed: float, seed: int) -> dict[str, Any]:
    spec = EngineSpec.parse(f"ismcts:clock={clock}")
    moves: list[dict[str, Any]] = []
    ends, overtime = [], 0
    for r in range(rounds):
        engines = {0: jp.Engine(), 1: jp.Engine()}
        clocked = r % 2                        # each seat in turn
        rc = RoundClock(spec)
        state = jp.GameState.new(seed=seed + r // 2, starter=0)
        while not state.is_round_over:
            p = state.to_move
            view = state.view(p)
            t0 = time.perf_counter()
            if p == clocked:
                deck = view.deck_size
                # (analyse, for the clock's figures: it does not play a round-winning
                # move at once as best_move does)
                a = engines[p].analyse(view, top=1, seed=seed + len(moves), **rc.limits())
                secs = time.perf_counter() - t0
                rc.spent(secs)
                moves.append({"deck": deck, "seconds": secs, "stop": a.clock["stop"],
                              "soft": a.clock["soft"], "hard": a.clock["hard"]})
                move = a.best if a.best is not None else engines[p].best_move(
                    view, iterations=0, seed=1)
            else:
                move = engines[p].best_move(view, time=fixed, seed=seed + len(moves))
            for q in (0, 1):
                engines[q].see_move(state.view(q), move)
            state = state.apply(move)
        ends.append(rc.left)
        overtime = rc.overtime + overtime
    return {"moves": moves, "clock_left_at_end": ends, "overtime": overtime}


def report(d: dict[str, Any]) -> dict[str, Any]:
    moves = d["moves"]
    by_stop: dict[str, list[float]] = defaultdict(list)
    by_part: dict[int, list[float]] = defaultdict(list)
    for m in moves:
        by_stop[m["stop"]].append(m["seconds"])
        by_part[min(4, (40 - m["deck"]) * 5 // 41)].append(m["seconds"])
    n = len(moves)
    return {
        "moves": n,
        "mean_seconds": statistics.fmean(m["seconds"] for m in moves),
        "stops": {k: {"share": len(v) / n, "mean_seconds": statistics.fmean(v)}
                  for k, v in sorted(by_stop.items())},
        "by_fifth_of_the_round": {k: statistics.fmean(v) for k, v in sorted(by_part.items())},
        "mean_clock_left_at_end": statistics.fmean(d["clock_left_at_end"]),
        "overtime": d["overtime"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--clock", default="1.2+0.05", help="the clocked engine's S+I")
    ap.add_argument("--time", type=float, default=0.1, help="the other engine's s/move")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="write the figures (and every move) as JSON")
    a = ap.parse_args()
    d = play(a.rounds, a.clock, a.time, a.seed)
    r = report(d)
    print(json.dumps(r, indent=2))
    if a.out:
        with open(a.out, "w") as fh:
            json.dump({"command": vars(a), "report": r, **d}, fh, indent=1)


if __name__ == "__main__":
    main()

"""The move-quality benchmark judged with the opponent's real hand (an experiment).

The benchmark's reference (docs/strength.md, "The move-quality benchmark") rolls each
move out in worlds that deal the opponent's unseen goods uniformly from the unseen
cards.  An engine whose belief reads the round's moves deals them otherwise, so the
reference can disagree with it exactly where its belief is right.  The recorded game
knows the hand the opponent really held, and that hand is a draw from the true posterior
given everything the mover saw.  So a move's value in worlds that deal the opponent's
unknown goods as they really were (the draw pile and the bonus tokens still dealt
uniformly) is, averaged over positions, the move's value under the true posterior,
whatever model of the opponent an engine uses.  Each position is noisier (one hand, not
the mover's uncertainty over hands), but engines are compared on the same hands, move for
move: where two engines choose the same move their difference is exactly 0.

For each spec: its move at each position (the benchmark's seed and limits, the view and
the round's moves, as bench/bench_quality.py gives them), then every move chosen by any
spec and the reference's best are rolled out with the benchmark's policy in ``--worlds``
worlds dealt with the real hand.  Reported per spec: the mean value given up against the
reference's best move under the real hand (points of win %; it can be negative, since
the reference's best was chosen under the uniform deal), the usual benchmark error on
the same positions, and each spec after the first against the first, paired.

    PYTHONPATH=. python3 bench/experiments/true_hand_judge.py ismcts:iterations=8000 \\
        ismcts:iterations=8000,belief=false --positions 1000 [--late] [--worlds 1000] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

from jaipur_ai.matches.quality import (engine_move, load_positions, paired_difference,
                                       reference_values, value_on_demand)
from jaipur_ai.matches.spec import EngineSpec, derive_seed
from jaipur_ai.search.endgame import is_late

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_FILE = os.path.join(HERE, "..", "quality", "positions.jsonl.gz")


def real_unknown_goods(state) -> list[int]:
    """The goods of the opponent's hand that the mover has not seen it take (the
    opponent's hand minus its ``known`` cards), by good."""
    raw = state._core.raw()
    opp = 1 - state.to_move
    return [h - k for h, k in zip(raw["hand"][opp], raw["known"][opp])]


def true_hand_values(p, moves: list[str], worlds: int) -> dict[str, float]:
    """Each move's mean result (0..1) over ``worlds`` rollouts with the benchmark's
    policy, the opponent's unknown goods dealt as it really held them."""
    state, _history = p.replay()
    hand = np.array([real_unknown_goods(state)], dtype=np.uint8)
    scores, _ = reference_values(state.view(state.to_move), moves, worlds,
                                 derive_seed(p.seed, 0x7E4), **p.rollout,
                                 hands=hand, hand_weights=np.ones(1))
    return {m: float(scores[i].mean()) for i, m in enumerate(moves)}


def engine_moves(spec_text: str, positions) -> tuple[dict[int, str], float]:
    """Each position's move by the spec's engine, and the mean seconds a move."""
    spec = EngineSpec.parse(spec_text)
    eng = spec.make_engine()
    t0 = time.perf_counter()
    out = {p.id: engine_move(eng, spec, p) for p in positions}
    return out, (time.perf_counter() - t0) / max(1, len(positions))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="+", metavar="SPEC")
    ap.add_argument("--file", default=DEFAULT_FILE)
    ap.add_argument("--positions", type=int, default=None, help="only the first N")
    ap.add_argument("--late", action="store_true",
                    help="only the late positions (jaipur_ai.search.endgame.is_late: two "
                         "goods-token stacks empty or at most three cards in the pile)")
    ap.add_argument("--worlds", type=int, default=1000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    specs = [str(EngineSpec.parse(s)) for s in args.specs]
    positions = load_positions(args.file)[: args.positions]
    if args.late:
        positions = [p for p in positions if is_late(p.replay()[0]._core)]
    chosen = {}
    secs = {}
    for s in specs:
        chosen[s], secs[s] = engine_moves(s, positions)
        print(f"{s}: moves chosen ({secs[s]:.3f} s a move)", file=sys.stderr)
    true_loss = {s: [] for s in specs}
    ref_loss = {s: [] for s in specs}
    for p in positions:
        moves = sorted({chosen[s][p.id] for s in specs} | {p.best})
        vals = true_hand_values(p, moves, args.worlds)
        best_ref = max(p.values.values())
        for s in specs:
            m = chosen[s][p.id]
            true_loss[s].append(100.0 * (vals[p.best] - vals[m]))
            v = p.values[m] if m in p.values else value_on_demand(p, m)[0]
            ref_loss[s].append(max(0.0, 100.0 * (best_ref - v)))
    rows = []
    first = specs[0]
    for s in specs:
        row = {"spec": s, "positions": len(positions),
               "true_hand_loss": float(np.mean(true_loss[s])),
               "reference_error": float(np.mean(ref_loss[s])),
               "seconds_a_move": secs[s],
               "same_move_as_first": float(np.mean([chosen[s][p.id] == chosen[first][p.id]
                                                    for p in positions]))}
        if s != first:
            row["true_hand_vs_first"] = paired_difference(true_loss[s], true_loss[first])
            row["reference_vs_first"] = paired_difference(ref_loss[s], ref_loss[first])
        rows.append(row)
    if args.json:
        print(json.dumps({"file": args.file, "late": args.late, "worlds": args.worlds,
                          "positions": len(positions), "engines": rows}))
        return
    print(f"{len(positions)} positions{' (late)' if args.late else ''}, {args.worlds} worlds "
          f"with the real hand")
    for r in rows:
        line = (f"{r['spec']:<52} real hand {r['true_hand_loss']:+6.2f}  "
                f"reference {r['reference_error']:5.2f}")
        if "true_hand_vs_first" in r:
            t, f = r["true_hand_vs_first"], r["reference_vs_first"]
            line += (f"  vs first: real hand {t['diff']:+.2f} ({t['lo']:+.2f} .. {t['hi']:+.2f}),"
                     f" reference {f['diff']:+.2f} ({f['lo']:+.2f} .. {f['hi']:+.2f})")
        print(line)


if __name__ == "__main__":
    main()

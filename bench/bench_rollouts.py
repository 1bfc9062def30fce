"""Rollouts (docs/search.md, "Rollouts"; issue 53): are their standard errors right, how
fast are they, and how does a long analysis's rollout ranking compare with the
move-quality benchmark's reference?

For each of the first ``--positions`` benchmark positions (bench/quality/positions.jsonl.gz,
given with the round's moves before it, as bench_quality.py does):

1. **Standard errors.** The default search (``--iterations``, a fixed seed) names its
   best ``--moves`` moves; they are rolled out ``--runs`` times, each run in its own
   ``--worlds`` worlds (another seed, never stopping early).  For every move, the spread
   (standard deviation) of its value over the runs is set against the standard error
   each run reported, and the same for its difference from the search's best move.
   Pooled over the positions: sqrt(mean reported variance) / sqrt(mean observed
   variance), with a 95 % interval by resampling the positions; 1 is right.
2. **Speed.** Rollouts a second on one thread (one rollout: one move played to the end
   of the round).
3. With ``--analysis-time S`` (e.g. 30): an analysis of S seconds with ``rollouts=--moves``
   (half of it searching, half rolling out).  Reported: how often the rollouts' best and
   the search's best are the reference's best among the rolled-out moves, and the win %
   each loses by the reference.  The reference rolls out with the same policy, so
   agreement is expected: it says the rollouts converge to the reference, not that
   either is right (docs/strength.md, "Rollouts as a judge").

4. With ``--judge N``: on the first N positions, the search's choice and the rollouts'
   choice among its best ``--moves`` (``rollout_pick``; ``--iterations`` and 2,000
   worlds), each valued by the reference: the win % each loses (docs/strength.md,
   "Rollouts as a judge").

    PYTHONPATH=. python3 bench/bench_rollouts.py --positions 20 --runs 10 --worlds 2000 \
        [--analysis-time 30] [--judge 120] [--json]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

import numpy as np

import jaipur_ai as jp
from jaipur_ai.matches.quality import load_positions
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.search.belief import HandBelief, read_history
from jaipur_ai.search.evaluation import default_evaluation
from jaipur_ai.search.rollouts import roll_out, stats_of


def _ratio(reported: list[list[float]], observed: list[list[float]], rng: Any,
           boot: int = 2000) -> dict[str, float]:
    """sqrt(mean reported variance) / sqrt(mean observed variance), items grouped by
    position, with a bootstrap interval over the positions."""
    rep = [np.asarray(r, float) for r in reported]
    obs = [np.asarray(o, float) for o in observed]

    def value(idx: Any) -> float:
        r = np.concatenate([rep[i] for i in idx])
        o = np.concatenate([obs[i] for i in idx])
        return float(math.sqrt(np.mean(r ** 2)) / math.sqrt(np.mean(o ** 2)))

    n = len(rep)
    point = value(range(n))
    draws = sorted(value(rng.integers(0, n, n)) for _ in range(boot))
    return {"ratio": point, "lo": draws[int(0.025 * boot)], "hi": draws[int(0.975 * boot)],
            "items": int(sum(len(r) for r in rep))}


def judge(positions: Any, iterations: int, moves: int) -> dict[str, Any]:
    """The reference's loss of the search's choice and of the rollouts' choice among
    the search's best ``moves`` (where the reference rolled both out)."""
    e = jp.Engine.from_options(rollouts=moves, rollout_worlds=2000, rollout_pick=True)
    search, rolled, differ = [], [], 0
    for p in positions:
        state, history = p.replay()
        an = e.analyse(state.view(state.to_move), iterations=iterations, seed=1,
                       history=history, top=None)
        if an.rollouts is None:
            continue
        own = max(an.candidates[:moves], key=lambda c: c.visits).move   # the search's
        top = max(p.values.values())
        if str(own) in p.values and str(an.best) in p.values:
            search.append(100 * (top - p.values[str(own)]))
            rolled.append(100 * (top - p.values[str(an.best)]))
            differ += own != an.best
    return {"positions": len(search), "differ": differ,
            "search_loss": float(np.mean(search)), "rollout_loss": float(np.mean(rolled))}


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--worlds", type=int, default=2000)
    ap.add_argument("--moves", type=int, default=4)
    ap.add_argument("--iterations", type=int, default=4000)
    ap.add_argument("--analysis-time", type=float, default=None)
    ap.add_argument("--judge", type=int, default=0)
    ap.add_argument("--file", default="bench/quality/positions.jsonl.gz")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    ev = default_evaluation()
    engine = jp.Engine()
    rng = np.random.default_rng(2026)
    rep_v, obs_v, rep_d, obs_d = [], [], [], []
    rollouts, seconds = 0, 0.0
    long_rows = []
    for p in load_positions(a.file)[:a.positions]:
        state, history = p.replay()
        view = state.view(state.to_move)
        an = engine.analyse(view, iterations=a.iterations, seed=derive_seed(p.seed, 3),
                            history=history, top=a.moves)
        moves = [c.move for c in an]
        if len(moves) < 2:
            continue
        belief = HandBelief(evaluation=ev)          # as the engine's, from the moves
        for seen, move in read_history(history, view):
            belief.see(seen, move)
        prior = belief.prior(view) if belief.seen else None
        runs = []
        for r in range(a.runs):
            t0 = time.perf_counter()
            scores, margins, _ = roll_out(view._core, [m.action_id for m in moves],
                                          seed=derive_seed(p.seed, 100 + r), worlds=a.worlds,
                                          evaluation=ev, hand_prior=prior,
                                          until_settled=False)
            seconds += time.perf_counter() - t0
            rollouts += scores.size
            runs.append(stats_of(scores, margins))
        win = np.array([[s.win_probability for s in st] for st in runs])   # runs x moves
        diff = np.array([[s.diff for s in st] for st in runs])
        rep_v.append([float(np.mean([st[i].se for st in runs])) for i in range(len(moves))])
        obs_v.append(list(win.std(axis=0, ddof=1)))
        rep_d.append([float(np.mean([st[i].diff_se for st in runs]))
                      for i in range(1, len(moves))])
        obs_d.append(list(diff[:, 1:].std(axis=0, ddof=1)))
        if a.analysis_time:
            e = jp.Engine.from_options(rollouts=a.moves)
            la = e.analyse(view, time=a.analysis_time, seed=derive_seed(p.seed, 5),
                           history=history, top=a.moves)
            rolled = [c for c in la if c.rollout is not None]
            known = [c for c in rolled if str(c.move) in p.values]
            if len(known) >= 2:
                ref_best = max(known, key=lambda c: p.values[str(c.move)])
                ro_best = max(known, key=lambda c: c.rollout.win_probability)
                top = max(p.values[str(c.move)] for c in known)
                long_rows.append({
                    "position": p.id, "worlds": la.rollouts.worlds if la.rollouts else 0,
                    "rollout_agrees": ro_best.move == ref_best.move,
                    "search_agrees": known[0].move == ref_best.move,
                    "rollout_loss": 100 * (top - p.values[str(ro_best.move)]),
                    "search_loss": 100 * (top - p.values[str(known[0].move)])})
        print(f"position {p.id}: {len(moves)} moves", file=sys.stderr)
    out: dict[str, Any] = {"positions": len(rep_v), "runs": a.runs, "worlds": a.worlds,
                           "moves": a.moves}
    if rep_v:
        out.update({
            "value_se": _ratio(rep_v, obs_v, rng), "diff_se": _ratio(rep_d, obs_d, rng),
            "rollouts_per_second": rollouts / seconds if seconds else 0.0,
            "mean_value_se_points": 100 * float(np.mean(np.concatenate(rep_v))),
            "mean_diff_se_points": 100 * float(np.mean(np.concatenate(rep_d)))})
    if long_rows:
        n = len(long_rows)
        out["analysis"] = {
            "time": a.analysis_time, "positions": n,
            "mean_worlds": float(np.mean([r["worlds"] for r in long_rows])),
            "rollout_agrees": sum(r["rollout_agrees"] for r in long_rows) / n,
            "search_agrees": sum(r["search_agrees"] for r in long_rows) / n,
            "rollout_loss": float(np.mean([r["rollout_loss"] for r in long_rows])),
            "search_loss": float(np.mean([r["search_loss"] for r in long_rows])),
            "rows": long_rows}
    if a.judge:
        out["judge"] = judge(load_positions(a.file)[:a.judge], a.iterations, a.moves)
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        for k in ("value_se", "diff_se"):
            if k not in out:
                continue
            r = out[k]
            print(f"{k}: reported / observed {r['ratio']:.3f} ({r['lo']:.3f} .. {r['hi']:.3f}),"
                  f" {r['items']} moves")
        if "rollouts_per_second" in out:
            print(f"rollouts a second (one thread): {out['rollouts_per_second']:,.0f}")
        if "judge" in out:
            j = out["judge"]
            print(f"judge, {j['positions']} positions ({j['differ']} differ): the search's "
                  f"choice loses {j['search_loss']:.2f}, the rollouts' {j['rollout_loss']:.2f}")
        if "analysis" in out:
            x = out["analysis"]
            print(f"{x['time']:g} s analyses, {x['positions']} positions: rollouts' best is the "
                  f"reference's {x['rollout_agrees']:.0%}, the search's {x['search_agrees']:.0%};"
                  f" loss {x['rollout_loss']:.2f} / {x['search_loss']:.2f} points")
    return 0


if __name__ == "__main__":
    sys.exit(main())

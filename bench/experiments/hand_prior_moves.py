"""How much the hand prior (jaipur_ai.search.handprior) adds once the belief has read
the opponent's moves, and whether θ should be fitted again on top of the belief.

The shipped θ was fitted against the uniform deal, whatever moves had been seen; the
belief then multiplies it with the moves' likelihood, so what the moves already say
about the hand is counted twice.  Replaying the first round of each game, this script
gives each player a belief (:class:`HandBelief`, uniform deal) that watches the moves,
and scores the hand the opponent really held, on held-out deals, under:

* ``uniform``: the uniform deal; ``tilt``: the uniform deal tilted by θ (shipped);
* ``belief``: the belief from the moves; ``belief+tilt``: the belief tilted by the
  shipped θ (``hidden_hands=kept`` today);
* ``belief+refit``: the belief tilted by a θ fitted on top of it (training deals).

Positions are split by whether the belief has seen an opponent's move yet (``cold``:
the first move of each player, where the belief is the uniform deal).

    PYTHONPATH=. python3 bench/experiments/hand_prior_moves.py \\
        bench/results/rating-0.1/*.jsonl.gz bench/results/rollouts4-*.jsonl.gz --json
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from typing import Any, Iterable

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fit_hand_prior import first_round, true_row  # noqa: E402
from jaipur_ai.search.belief import HandBelief, unknown_hands  # noqa: E402
from jaipur_ai.search.handprior import FEATURES, features, fit, mean_nll, read  # noqa: E402


def _games(path: str) -> list[dict[str, Any]]:
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as fh:
        return [g for g in (json.loads(line) for line in fh if line.strip()) if "moves" in g]


Sample = tuple[np.ndarray, np.ndarray, int]     # φ of the hands, their log weights, the true one


def positions(game: dict[str, Any]) -> Iterable[tuple[bool, Sample, Sample]]:
    """(whether the mover's belief has seen an opponent's move, the uniform deal's
    sample, the belief's sample) for every position of the game's first round where the
    mover does not know all of the opponent's goods; a sample is φ of the hands allowed,
    their log weights and the index of the hand the opponent really held."""
    beliefs = (HandBelief(), HandBelief())
    for s, move in first_round(game):
        p = s.to_move
        v = s.view(p)
        rows, logp = unknown_hands(v)
        brows, bw = beliefs[p].prior(v)
        i, j = true_row(brows, s, v), true_row(rows, s, v)
        if len(rows) >= 2 and i is not None and j is not None:
            with np.errstate(divide="ignore"):
                blog = np.log(bw)
            yield (bool(beliefs[p].seen), (features(rows), logp, j), (features(brows), blog, i))
        for q in (0, 1):
            beliefs[q].see(s.view(q), move)


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-games", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    games = [g for f in a.files for g in _games(f)]
    if a.max_games:
        games = games[:a.max_games]
    deals = sorted({g["deal_seed"] for g in games})
    pick = np.random.default_rng(a.seed).permutation(len(deals))[:max(1, len(deals) // 5)]
    held = {deals[i] for i in pick}
    data: dict[tuple[bool, bool], list[Any]] = {(h, m): [] for h in (0, 1) for m in (0, 1)}
    for n, g in enumerate(games):
        for seen, uni, bel in positions(g):
            data[(g["deal_seed"] in held, seen)].append((uni, bel))
        if not a.json and n % 200 == 199:
            print(f"{n + 1}/{len(games)} games", file=sys.stderr)
    theta = read()
    zero = np.zeros(len(FEATURES))
    refit, _ = fit([b for _u, b in data[(False, True)]])
    out: dict[str, Any] = {"games": len(games), "deals": len(deals), "held_out_deals": len(held),
                           "theta_refit": [round(float(x), 4) for x in refit]}
    for seen in (False, True):
        test = data[(True, seen)]
        uni = [u for u, _b in test]
        bel = [b for _u, b in test]
        out["moves_seen" if seen else "cold"] = {
            "positions": len(test), "train_positions": len(data[(False, seen)]),
            "uniform": mean_nll(zero, uni), "tilt": mean_nll(theta, uni),
            "belief": mean_nll(zero, bel), "belief+tilt": mean_nll(theta, bel),
            "belief+refit": mean_nll(refit, bel)}
    if a.json:
        print(json.dumps(out, indent=1))
    else:
        for k in ("cold", "moves_seen"):
            print(k, {m: (round(x, 4) if isinstance(x, float) else x) for m, x in out[k].items()})
        print("theta refit", out["theta_refit"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Fit the prior over the opponent's unknown goods (jaipur_ai.search.handprior) to the
hands players really kept in the games of match results files.

Every move of the first round of every game is a position: the mover's view allows
some hands for the goods of the opponent it has not seen; the hand the opponent really
held is one of them.  θ maximises the likelihood of those hands under the uniform deal
tilted by exp(θ · φ) (a conditional logit).  A fifth of the deals (a match plays each
deal twice, and two matches with one seed the same deals), drawn with ``--seed``, is
held out with all their games: the file records the mean information (nats a position)
over the uniform deal there.  ``--note`` texts (the commands that played the games) are
recorded with the fit.

    jaipur-ai match ismcts:time=0.1 ismcts:time=0.1 --games 300 --seed 7 --workers 2 \\
        --out runs/hands/games.jsonl
    PYTHONPATH=. python3 bench/fit_hand_prior.py runs/hands/*.jsonl \\
        --out jaipur_ai/data/hand-prior.json
"""
from __future__ import annotations

import argparse
import datetime
import json
import sys
from typing import Any, Iterable, Optional

import numpy as np

from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState
from jaipur_ai.search.belief import opponent_unknown, unknown_hands
from jaipur_ai.search.handprior import FEATURES, FORMAT, features, fit, mean_nll


def first_round(rec: dict[str, Any]) -> Iterable[tuple[GameState, Move]]:
    """(the position, the move played there) for each move of the first round of a
    results file's game record (``deal_seed``, ``starter``, ``moves``)."""
    s = GameState.new(rec["deal_seed"], starter=rec["starter"])
    for mv in rec["moves"][0]:
        if s.is_round_over:
            break
        move = Move.coerce(mv, s.mover_hand())
        yield s, move
        s = s.apply(move)


def true_row(rows: np.ndarray, state: GameState, view: Any) -> Optional[int]:
    """The index of the row of ``rows`` (unknown goods) that the opponent really holds
    in ``state``, as ``view``'s player does not know them; None if not exactly one."""
    idx = np.where((rows == opponent_unknown(state, view)).all(axis=1))[0]
    return int(idx[0]) if len(idx) == 1 else None


def positions_of(records: Iterable[dict[str, Any]]) -> Iterable[tuple[Any, np.ndarray, int]]:
    """For every move of a round's record whose mover does not know all the
    opponent's goods: the features of the hands its view allows, their uniform log
    weights, and the index of the hand the opponent really held."""
    for rec in records:
        if "moves" not in rec:
            continue                   # the file's header
        for s, _move in first_round(rec):
            v = s.view(s.to_move)
            rows, logp = unknown_hands(v)
            i = true_row(rows, s, v)
            if len(rows) >= 2 and i is not None:
                yield features(rows), logp, i


def main(argv: Any = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="match results files (JSON lines)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--note", action="append", default=[],
                    help="what made the games (recorded in the file)")
    a = ap.parse_args(argv)
    games = []
    for f in a.files:
        with open(f, encoding="utf-8") as fh:
            games += [json.loads(line) for line in fh if line.strip()]
    games = [g for g in games if "moves" in g]
    deals = sorted({g["deal_seed"] for g in games})
    k = max(1, len(deals) // 5) if len(deals) >= 2 else 0
    pick = np.random.default_rng(a.seed).permutation(len(deals))[:k]
    held = {deals[i] for i in pick}
    train = list(positions_of(g for g in games if g["deal_seed"] not in held))
    test = list(positions_of(g for g in games if g["deal_seed"] in held))
    theta, _ = fit(train)
    if not test:
        raise SystemExit("no position held out: give games of two deals or more")
    zero = np.zeros(len(FEATURES))
    info = {"uniform": mean_nll(zero, test), "fitted": mean_nll(theta, test)}
    out = {"format": FORMAT, "features": list(FEATURES),
           "theta": [round(float(x), 6) for x in theta],
           "fitted": {"date": datetime.date.today().isoformat(), "games": len(games),
                      "deals": len(deals), "held_out_deals": len(held),
                      "positions": len(train) + len(test), "held_out_positions": len(test),
                      "held_out_nats_uniform": round(info["uniform"], 4),
                      "held_out_nats_fitted": round(info["fitted"], 4),
                      "files": [str(f) for f in a.files], "notes": a.note,
                      "seed": a.seed}}
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    print(f"{len(games)} games of {len(deals)} deals, {len(train)} + {len(test)} "
          f"positions; held out: "
          f"{info['uniform']:.4f} nats uniform, {info['fitted']:.4f} fitted "
          f"(+{info['uniform'] - info['fitted']:.4f})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

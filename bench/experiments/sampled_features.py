"""Self-play shards whose features are those of a world the search would sample (issue 52).

The trainer reads each position's features of the *full* state, so the value learns
what a position is worth when both hands are known.  The search evaluates worlds it
sampled: the searching player's own hand is real, the other's unknown goods are dealt
uniformly from the unseen cards, which are worse than the hands players choose to keep.
A value fitted to full states is then optimistic for whoever searches (issue 53's pair
sum).  This rewrites a self-play folder with each position's features computed in a
world sampled from one player's view, the mover's or the other's (half each, drawn per
position), the target and every other column unchanged: a value fitted on it learns
what a sampled world is worth to the mover.

    PYTHONPATH=. python3 bench/experiments/sampled_features.py SRC OUT --seed SELFPLAY_SEED

SRC is a ``jaipur-ai selfplay`` folder (its rounds are replayed from the seed and the
moves recorded, each checked against the recorded features); ``--seed`` is the seed it
was played with.  OUT gets one shard for each of SRC's.
"""
from __future__ import annotations

import argparse
import glob
import os
import sys

import numpy as np

from jaipur_ai.learning.selfplay import _write_shard
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState
from jaipur_ai.search._features import features_of


def resample(d: dict, seed: int, tag: int) -> dict:
    """``d`` (one shard's arrays) with features of sampled worlds."""
    out = {k: np.array(v) for k, v in d.items()}
    feats = out["features"]
    rounds, plies, movers, actions = d["round"], d["ply"], d["mover"], d["action"]
    i, n = 0, len(rounds)
    while i < n:
        r = int(rounds[i])
        state = GameState.new(seed=derive_seed(seed, 1, r), starter=r % 2)
        while i < n and int(rounds[i]) == r:
            p = int(movers[i])
            assert state.to_move == p and int(plies[i]) >= 0
            truth = features_of(state._core, p)
            if not np.allclose(truth, feats[i], atol=1e-5):
                raise SystemExit(f"round {r} ply {plies[i]}: the replay differs from the "
                                 "recorded features (wrong --seed?)")
            rng = np.random.default_rng(derive_seed(tag, r, int(plies[i])))
            who = p if rng.random() < 0.5 else 1 - p      # whose view the world is drawn from
            world = state.view(who).sample(int(rng.integers(2**63)))
            feats[i] = features_of(world._core, p).astype(np.float32)
            state = state.apply(Move.from_action_id(int(actions[i])))
            i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, required=True, help="the self-play's seed")
    ap.add_argument("--tag", type=int, default=1, help="seed of the sampled worlds")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    files = sorted(glob.glob(os.path.join(a.src, "shard-*.npz")))
    for k, f in enumerate(files):
        with np.load(f) as z:
            d = {key: z[key] for key in z.files if key != "round_offset"}
        _write_shard(__import__("pathlib").Path(a.out), int(os.path.basename(f)[6:11]),
                     resample(d, a.seed, a.tag))
        sys.stderr.write(f"\r{k + 1}/{len(files)} shards")
    sys.stderr.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Same data, this build's features: refit a `jaipur-ai learn` folder's last generation.

The comparison behind docs/strength.md ("Features version 2"): a learn folder made by
an earlier build (features version 1) holds every searched round's moves, so its
positions can be replayed and featurized by this build without searching again;
generation 0 (informed-policy self-play) is played again with the same seed. The fit
is learn's last one (all generations, TD target, its seed and epochs), so the two
weights files differ only in the features.

    git worktree add /tmp/v1 f5d9705 && (cd /tmp/v1 && python3 setup.py build_ext --inplace
        && PYTHONPATH=. python3 -m jaipur_ai learn /tmp/learn-v1)       # about 32 minutes
    PYTHONPATH=. python3 bench/experiments/replay_features.py /tmp/learn-v1 /tmp/replayed \
        --out /tmp/replayed.npz
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil

import numpy as np

from jaipur_ai.search._features import N_FEATURES_PY, N_FEATURES_V1_PY, features_of
from jaipur_ai.search.evaluation import save_weights
from jaipur_ai.learning.pipeline import DEFAULTS
from jaipur_ai.learning.selfplay import selfplay
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.rules.position import GameState
from jaipur_ai.learning.train import fit, fit_calibration, load_shards


def replay_generation(src: str, dst: str) -> int:
    """Featurize the searched rounds of folder src into dst; returns the positions."""
    os.makedirs(dst, exist_ok=True)
    shutil.copy(os.path.join(src, "selfplay.json"), dst)
    with open(os.path.join(src, "selfplay.json")) as fh:
        seed = json.load(fh)["seed"]
    n = 0
    for f in sorted(glob.glob(os.path.join(src, "shard-*.npz"))):
        with np.load(f) as z:
            d = {k: z[k] for k in z.files}
        feats = np.zeros((len(d["round"]), N_FEATURES_PY), np.float32)
        current = None
        for i, r in enumerate(d["round"].tolist()):
            if r != current:        # a round starts: deal it as selfplay did
                current = r
                st = GameState.new(seed=derive_seed(seed, 1, r), starter=r % 2)._core.copy()
            f_i = features_of(st, int(d["mover"][i]))
            # the replay is exact: version 1's features come out as recorded
            assert np.allclose(f_i[:N_FEATURES_V1_PY], d["features"][i], atol=1e-5), (f, i)
            feats[i] = f_i
            st.apply_action(int(d["action"][i]))
        d["features"] = feats
        np.savez(os.path.join(dst, os.path.basename(f)), **d)
        n += len(feats)
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("learned", help="a learn folder of an earlier build (gen0, gen1, ...)")
    ap.add_argument("folder", help="where the refeaturized data go")
    ap.add_argument("--out", required=True, help="the weights file to write")
    args = ap.parse_args()
    cfg = DEFAULTS
    gens = cfg["generations"]
    selfplay(os.path.join(args.folder, "gen0"), cfg["policy_rounds"], "policy",
             seed=cfg["seed"], shard_rounds=5000, progress=False, workers=2)
    for g in range(1, gens + 1):
        n = replay_generation(os.path.join(args.learned, f"gen{g}"),
                              os.path.join(args.folder, f"gen{g}"))
        print(f"generation {g}: {n:,} positions replayed", flush=True)
    dirs = [os.path.join(args.folder, f"gen{g}") for g in range(gens + 1)]
    weights, rep = fit(load_shards(dirs), hidden=cfg["hidden"], epochs=cfg["epochs"],
                       target=cfg["target"], seed=cfg["seed"] + gens)
    last = load_shards(dirs[-1])
    weights["calibration"] = fit_calibration(last["value"], last["result"])
    save_weights(args.out, weights, {"command": "bench/experiments/replay_features.py",
                                     "data": args.learned, "report": rep})
    print(json.dumps({k: rep[k] for k in ("holdout_logloss", "holdout_brier",
                                          "constant_logloss", "positions")}))


if __name__ == "__main__":
    main()

"""Build the move-quality benchmark: positions from games among the gauntlet's engines,
and their reference values by rollouts with common random numbers
(jaipur_ai/matches/quality.py; docs/strength.md, "The move-quality benchmark").

    PYTHONPATH=. python3 bench/quality_reference.py --games 60 --positions 1000 \
        --worlds 4000 --procs 2 --work runs/quality --out bench/quality/positions.jsonl.gz

1. Games: each pairing of GAMES_BETWEEN plays ``--games`` mirrored deals at a small
   budget (their results files go to ``--work``; a rerun resumes them).
2. Positions: every (game, ply) whose mover has two legal moves or more, in three bands
   of the draw pile (opening: 30 cards or more, middle: 10 to 29, end: under 10), the
   same number from each band, at most ``--per-game`` from one game, drawn with
   ``--seed``.
3. Candidates: the hand-set move score's best 8 (greedy's order) and the move played.
   Each is rolled out in ``--worlds`` worlds, the same worlds for every candidate.
4. Standard errors: a position where some candidate's value against the best has a
   standard error above ``--max-se`` points is rolled out again in more worlds (the
   first worlds are the same ones), until none does.

``--top-up FILE`` does step 4 alone on an existing file.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import sys
import time
from multiprocessing import Pool

import numpy as np

from jaipur_ai.matches.quality import (PHASES, Position, phase_of, reference_values,
                                       rollout_settings, save_positions)
from jaipur_ai.matches.rating import pairing_file
from jaipur_ai.matches.runner import run_match
from jaipur_ai.matches.spec import derive_seed

#: The games the positions come from: engines of four families, at small budgets.
GAMES_BETWEEN = [
    ("default", "ismcts:iterations=1000", "pimc", "pimc:iterations=1000"),
    ("2026-12-04", "ismcts:iterations=1000,weights=2026-12-04",
     "handset", "ismcts:iterations=1000,evaluation=heuristic,settings=handset,belief=false"),
    ("expectimax", "expectimax:iterations=3000", "default", "ismcts:iterations=300"),
    ("greedy", "greedy", "pimc", "pimc:iterations=300"),
]
CANDIDATES = 8


def play_games(work: str, games: int, seed: int, workers: int) -> list[tuple[str, dict]]:
    os.makedirs(work, exist_ok=True)
    for na, a, nb, b in GAMES_BETWEEN:
        path = pairing_file(work, na, nb)
        t0 = time.time()
        res = run_match(a, b, games=games, seed=seed, workers=workers, out=path)
        print(f"{na} vs {nb}: {res.n_games} games, {time.time() - t0:.0f} s", file=sys.stderr)
    out = []
    for path in sorted(glob.glob(os.path.join(work, "*.jsonl"))):
        with open(path) as fh:
            head = json.loads(fh.readline())
            for line in fh:
                if line.strip():
                    g = json.loads(line)
                    out.append((f"{head['settings']['a']} vs {head['settings']['b']}", g))
    return out


def candidate_positions(games: list, n: int, per_game: int, seed: int) -> list[dict]:
    from jaipur_ai.rules.position import GameState
    bands: dict[str, list] = {ph: [] for ph in PHASES}
    seen: set = set()           # (the pairings play the same deals: a position once)
    for source, g in games:
        moves = g["moves"][0]
        state = GameState.new(int(g["deal_seed"]), starter=int(g["starter"]))
        here: dict[str, list] = {k: [] for k in bands}
        for ply, text in enumerate(moves):
            key = (int(g["deal_seed"]), int(g["starter"]), tuple(moves[:ply]))
            if len(state.legal_moves()) >= 2 and key not in seen:
                seen.add(key)
                pile = state.view(state.to_move).deck_size
                band = phase_of(pile)
                here[band].append({"deal_seed": int(g["deal_seed"]), "starter": int(g["starter"]),
                                   "moves": moves[:ply], "played": text, "source": source,
                                   "pile": pile})
            state = state.apply(text)
        rng = random.Random(derive_seed(seed, int(g["deal_seed"]) & 0xFFFFFFFF, g["a_seat"],
                                        sum(map(ord, source))))
        for k in bands:
            rng.shuffle(here[k])
            bands[k].extend(here[k][:per_game])
    rng = random.Random(seed)
    out = []
    for k in bands:
        rng.shuffle(bands[k])
        out.extend(bands[k][: math.ceil(n / 3)])
    rng.shuffle(out)
    return out[:n]


ROLLOUT: dict = {"weights": None, "fair": False}     # set by main (--rollout-*)


def reference(task: tuple) -> dict:
    """One position's reference; ``seed`` None: the position's own (a top-up)."""
    k, pos, worlds, seed, rollout = task
    import jaipur_ai as jp
    pseed = pos["seed"] if seed is None else derive_seed(seed, 7, k)
    p = Position(k, pos["deal_seed"], pos["starter"], pos["moves"], pseed,
                 worlds, {"-": 0.0}, played=pos["played"], source=pos["source"])
    state, _ = p.replay()
    view = state.view(state.to_move)
    greedy = jp.Engine("greedy").analyse(view, top=None, seed=1)
    moves = [str(c.move) for c in greedy.candidates[:CANDIDATES]]
    if pos["played"] not in moves:
        moves.append(pos["played"])
    sc, _mg = reference_values(view, moves, worlds, p.seed, **rollout)
    means = sc.mean(axis=1)
    best = int(np.argmax(means))
    d = sc - sc[best]
    p.values = {m: float(v) for m, v in zip(moves, means)}
    p.se = {m: 100.0 * float(d[i].std(ddof=1)) / math.sqrt(worlds)
            for i, m in enumerate(moves)}
    p.check = float(sc[best, :100].mean())
    out = p.to_dict()
    out["pile"] = pos["pile"]
    return out


def top_up(done: list[dict], max_se: float, procs: int) -> list[dict]:
    """Positions whose largest standard error exceeds max_se, rolled out again in more
    worlds (the same first worlds, so their values are refined, not replaced)."""
    while True:
        todo = [k for k, d in enumerate(done) if max(d["se"].values()) > max_se]
        if not todo:
            return done
        tasks = []
        for k in todo:
            d = done[k]
            grow = (max(d["se"].values()) / max_se) ** 2 * 1.1
            tasks.append((d["id"], d, int(d["worlds"] * grow) + 1, None, ROLLOUT))
        with Pool(procs) as pool:
            for k, d in zip(todo, pool.map(reference, tasks)):
                print(f"position {d['id']}: {done[k]['worlds']} -> {d['worlds']} worlds, "
                      f"largest SE {max(d['se'].values()):.3f}", file=sys.stderr)
                done[k] = d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=60, help="deals a pairing")
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--per-game", type=int, default=2, help="positions a game and band")
    ap.add_argument("--worlds", type=int, default=4000)
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--work", default="runs/quality")
    ap.add_argument("--out", default="bench/quality/positions.jsonl.gz")
    ap.add_argument("--max-se", type=float, default=1.0,
                    help="largest standard error (points) of a candidate against the best")
    ap.add_argument("--top-up", metavar="FILE", help="only step 4, on FILE (rewritten)")
    ap.add_argument("--rollout-weights", default=None, metavar="NAME",
                    help="shipped weights whose move policy the rollouts read (default: "
                         "the hand-set move scores alone)")
    ap.add_argument("--rollout-fair", action="store_true",
                    help="the mover, too, chooses in worlds re-dealt from what it knows")
    args = ap.parse_args()
    ROLLOUT.update(weights=args.rollout_weights, fair=args.rollout_fair)
    if args.top_up:
        import gzip
        with gzip.open(args.top_up, "rt") as fh:
            lines = fh.read().splitlines()
        meta = json.loads(lines[0])
        meta.pop("format", None)
        ROLLOUT.update(rollout_settings(meta))
        done = [json.loads(x) for x in lines[1:] if x.strip()]
        for d in done:
            if d.get("pile") is None:
                state, _ = Position.from_dict(d).replay()
                d["pile"] = state.view(state.to_move).deck_size
        done = top_up(done, args.max_se, args.procs)
        positions = [Position.from_dict(d) for d in done]
        se = np.array([max(p.se.values()) for p in positions])
        meta.update(se_max_median=float(np.median(se)), se_max_max=float(se.max()),
                    max_se=args.max_se, top_up=" ".join(sys.argv[1:]))
        save_positions(args.top_up, positions, meta)
        print(json.dumps({k: meta[k] for k in ("se_max_median", "se_max_max")}), file=sys.stderr)
        return
    games = play_games(args.work, args.games, args.seed, args.procs)
    cands = candidate_positions(games, args.positions, args.per_game, args.seed)
    print(f"{len(games)} games, {len(cands)} positions", file=sys.stderr)
    tasks = [(k, c, args.worlds, args.seed, ROLLOUT) for k, c in enumerate(cands)]
    t0 = time.time()
    done = []
    with Pool(args.procs) as pool:
        for i, d in enumerate(pool.imap(reference, tasks, chunksize=4)):
            done.append(d)
            if (i + 1) % 50 == 0:
                print(f"{i + 1}/{len(tasks)} references, {time.time() - t0:.0f} s",
                      file=sys.stderr)
    done = top_up(done, args.max_se, args.procs)
    positions = [Position.from_dict(d) for d in done]
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    se = np.array([max(v for m, v in p.se.items()) for p in positions])
    meta = {"worlds": args.worlds, "seed": args.seed, "games_between": GAMES_BETWEEN,
            "candidates": f"greedy's best {CANDIDATES} and the move played",
            "rollout": dict(ROLLOUT),
            "rollout_policy": ("informed, " + ("hand-set move scores" if ROLLOUT["weights"]
                                               is None else "the move policy of weights " +
                                               ROLLOUT["weights"]) +
                               ", epsilon 0.05, noise 1, the opponent" +
                               (" and the mover" if ROLLOUT["fair"] else "") +
                               " choosing in worlds re-dealt from what it knows"),
            "bands": {ph: sum(1 for d in done if phase_of(d["pile"]) == ph) for ph in PHASES},
            "se_max_median": float(np.median(se)), "se_max_max": float(se.max()),
            "command": " ".join(["bench/quality_reference.py"] + sys.argv[1:])}
    save_positions(args.out, positions, meta)
    print(json.dumps(meta, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()

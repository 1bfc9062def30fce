"""Speed of jaipur_ai.VectorEnv: environment steps per second, one core.

Usage:  python bench/bench_vecenv.py [--n 64 256 1024] [--seconds 2] [--repeat 5]
            [--mode mask ids policy] [--json]

A step is one move of the agent in one round, the random opponent's reply, and the
observation (64 float32) and action mask (25,499 bools) written for the next move;
finished rounds are dealt afresh inside the same call.  The agent's moves are drawn
uniformly among the legal ones by ``VectorEnv.sample_actions`` (one compiled call per
batch too), so the loop is two calls per batch and no Python per round.  For scale the
same steps through the Python API (``GameState.apply``, ``encoding.observation``,
``encoding.action_mask``, one round) are measured too.
"""
import argparse
import json
import random
import statistics
import time

import numpy as np

import jaipur_ai as jp
from jaipur_ai.rules import _movegen
from jaipur_ai.rules import encoding


def sample_from_policy(logits: np.ndarray, n_legal: np.ndarray,
                       rng: np.random.Generator) -> np.ndarray:
    """One move per round drawn from the softmax of a policy's ``logits`` over the
    round's listed legal moves (``VectorEnv(actions="index")``): the padding is masked
    out, and the Gumbel-max trick draws from the softmax without normalising it."""
    valid = np.arange(logits.shape[1]) < n_legal[:, None]
    z = np.where(valid, logits, -np.inf)
    return np.asarray((z - np.log(-np.log(rng.random(z.shape)))).argmax(axis=1))


MODES = ("mask", "ids", "policy")


def vecenv_rate(n: int, seconds: float, seed: int, mode: str = "mask",
                opponent: str = "random") -> dict:
    """``mode``: "mask" (dense ids and the dense mask), "ids" (no mask: the lists of
    legal ids, actions as indices into them, drawn by ``sample_actions``) or "policy"
    (as "ids", the actions drawn by ``sample_from_policy`` from random logits)."""
    env = jp.VectorEnv(n, seed=seed, mask=mode == "mask", opponent=opponent,
                       actions="dense" if mode == "mask" else "index")
    env.reset()
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, encoding.MAX_LEGAL)).astype(np.float32)

    def pick() -> np.ndarray:
        if mode == "policy":
            return sample_from_policy(logits, env.n_legal, rng)
        return env.sample_actions()
    for _ in range(20):                       # warm up
        env.step(pick())
    steps, start = 0, time.perf_counter()
    rounds0 = env.rounds_done
    batches = max(1, int(20000 / n))
    while True:
        for _ in range(batches):
            env.step(pick())
        steps += batches * n
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {"n": n, "mode": mode, "opponent": opponent, "steps_per_s": steps / elapsed,
            "rounds": env.rounds_done - rounds0}


def core_rate(seconds: float, seed: int) -> float:
    """Plies per second of the rules core playing random rounds (no observation, no mask):
    the speed limit of two plies per step."""
    plies, start, i = 0, time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        plies += _movegen.bench_random_rounds(2000, seed + i)[0]
        i += 2000
    return plies / (time.perf_counter() - start)


def python_api_rate(seconds: float, seed: int) -> float:
    """The same steps for one round through the Python API."""
    rng = random.Random(seed)
    steps, start, r = 0, time.perf_counter(), 0
    s = jp.GameState.new(seed=seed, starter=0)
    while time.perf_counter() - start < seconds:
        if s.is_round_over or s.to_move == 1:
            if s.is_round_over:
                r += 1
                s = jp.GameState.new(seed=seed + r, starter=r % 2)
            else:
                s = s.apply(rng.choice(s.legal_action_ids()))
            continue
        mask = encoding.action_mask(s)
        ids = encoding.legal_dense_ids(s)
        s = s.apply(encoding.move_of_dense(rng.choice(ids)))
        if not s.is_round_over and s.to_move == 1:
            s = s.apply(rng.choice(s.legal_action_ids()))
        encoding.observation(s, 0)
        del mask
        steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1, 64, 256, 1024])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mode", choices=MODES, nargs="+", default=["mask"],
                    help="mask: dense ids and mask (default); ids: the lists of legal ids "
                         "and index actions, no mask; policy: as ids, moves drawn from a "
                         "policy's logits in numpy")
    ap.add_argument("--opponent", nargs="+", default=["random"],
                    help="the opponents to time (random, greedy, learned, an engine spec)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    rows = []
    core = []
    for opponent in a.opponent:
        for mode in a.mode:
            for n in a.n:         # interleaved with the core's rate: both see the same load
                runs = []
                for i in range(a.repeat):
                    runs.append(vecenv_rate(n, a.seconds, a.seed + i, mode, opponent))
                    core.append(core_rate(a.seconds / 2, a.seed + i))
                rows.append({"n": n, "mode": mode, "opponent": opponent,
                             "steps_per_s": statistics.median(r["steps_per_s"] for r in runs),
                             "runs": [round(r["steps_per_s"]) for r in runs]})
    plies = statistics.median(core)
    api = python_api_rate(a.seconds, a.seed)
    report = {"vecenv": rows, "core_plies_per_s": plies, "python_api_steps_per_s": api,
              "repeat": a.repeat}
    if a.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{'opponent':>22}  {'mode':>6}  {'n':>6}  {'steps/s (median of ' + str(a.repeat) + ')':>26}  "
          f"{'of the core limit':>18}  {'x the Python API':>17}")
    for r in rows:
        print(f"{r['opponent'][:22]:>22}  {r['mode']:>6}  {r['n']:>6}  {r['steps_per_s']:>26,.0f}  "
              f"{r['steps_per_s'] / (plies / 2):>18.2f}  {r['steps_per_s'] / api:>16,.0f}x")
    print(f"rules core, random rounds: {plies:,.0f} plies/s (limit: 2 plies a step, "
          f"{plies / 2:,.0f} steps/s)")
    print(f"Python API (one round, GameState.apply + observation + mask): {api:,.0f} steps/s")


if __name__ == "__main__":
    main()

"""Speed of two builds of jaipur_ai side by side, in one run: what a change bought.

Usage:  python bench/bench_compare.py BEFORE AFTER [--repeat 5] [--json]

BEFORE and AFTER are source trees with their extensions built in place
(``python setup.py build_ext --inplace``), e.g. ``git archive main | tar -x -C /tmp/main``.
Every measurement runs in a fresh interpreter with that tree first on ``sys.path``; the
two builds alternate (before, after, before, ...) so that a machine shared with other
jobs slows both alike, and each figure is the median of ``--repeat`` runs.  The plain-C
limit (bench/c/limit.c, see bench/bench_core.py) runs in the same rotation.

Measured (one core):
* the rules core's random rounds, plies per second (all legal moves generated; and, where
  the build has it, counted with only the chosen move built);
* ``GameState.legal_moves()`` and ``legal_action_ids()`` on a fixed position with 40+
  legal moves (microseconds a call);
* ``best_move(view, iterations=1)`` (milliseconds: the fixed cost of any search);
* a step through the Python API (``GameState.apply`` of a random legal ``Move`` from
  ``legal_moves()``), steps per second;
* ``VectorEnv(256)`` steps per second against its random opponent;
* the default engine's ISMCTS iterations per second, 20,000 iterations from each of
  12 positions (bench_search.py's: 4 seeds, early, middle and late), seed 1;
* with the learned weights of ``--weights`` (a file with a raw network or a hidden
  layer; bench/weights/raw128-20k.npz by default), on ten positions of a greedy round:
  one value (``time_evaluation``, ns, median), one node's priors with the weights'
  ``prior_lin`` removed, so that they read the full value of each child (``time_policy``,
  microseconds, median of six), and the search with those priors at 3,000 iterations
  (iterations per second).

``--rows search,best_move`` measures only those rows (``--rows`` lists the names).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_core  # noqa: E402  (the limit's compiler and runner)

PROBE = r'''
import json, random, sys, time, timeit
import jaipur_ai as jp
from jaipur_ai.rules import _core, _movegen
what, weights = sys.argv[1], sys.argv[2]
def best(f, number, repeat=3):
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number
def position():
    s, rng = jp.GameState.new(seed=7), random.Random(3)
    while len(s.legal_action_ids()) < 40:
        s = s.apply(rng.choice(s.legal_moves()))
    return s
if what.startswith("core"):
    counted = what == "core_counted"
    if counted:
        try:
            _movegen.bench_random_rounds(1, 1, True)
        except TypeError:
            print("null"); sys.exit()
    t = time.perf_counter()
    plies, moves = _movegen.bench_random_rounds(5000, 1, counted) if counted else _movegen.bench_random_rounds(5000, 1)
    out = plies / (time.perf_counter() - t)
elif what == "legal_moves":
    s = position(); s.legal_moves()
    out = 1e6 * best(s.legal_moves, 2000)
elif what == "legal_action_ids":
    s = position()
    out = 1e6 * best(s.legal_action_ids, 2000)
elif what == "best_move":
    s = jp.GameState.new(seed=7); v = s.view(s.to_move)
    jp.best_move(v, iterations=1, seed=1)
    out = 1e3 * best(lambda: jp.best_move(v, iterations=1, seed=1), 50)
elif what == "api_step":
    rng, steps, r = random.Random(1), 0, 0
    s = jp.GameState.new(seed=1)
    t = time.perf_counter()
    while time.perf_counter() - t < 1.0:
        if s.is_round_over:
            r += 1; s = jp.GameState.new(seed=1 + r, starter=r % 2)
        s = s.apply(rng.choice(s.legal_moves())); steps += 1
    out = steps / (time.perf_counter() - t)
elif what == "search":
    g, e, its, secs = jp.Engine("greedy"), jp.Engine(), 0, 0.0
    for seed in range(4):
        s = jp.GameState.new(seed, starter=seed % 2); line = [s]
        while not s.is_round_over:
            s = s.apply(g.best_move(s, seed=seed)); line.append(s)
        for frac in (0.1, 0.5, 0.75):
            p = line[int(frac * (len(line) - 1))]
            a = e.analyse(p.view(p.to_move), iterations=20000, seed=1)
            its += a.iterations; secs += a.elapsed
    out = its / secs
elif what in ("value", "priors", "priors_search"):
    import os, statistics, tempfile
    from jaipur_ai.search._evaluation import time_evaluation
    from jaipur_ai.search._search import time_policy
    from jaipur_ai.search.evaluation import evaluation_of, load_evaluation, read_weights, save_weights
    s, g, line = jp.GameState.new(seed=3, starter=0), jp.Engine("greedy"), []
    for k in range(30):
        line.append(s); s = s.apply(g.best_move(s, seed=k))
    line = line[::3]
    w = {k: v for k, v in read_weights(weights).items() if k != "prior_lin"}
    if what == "value":
        ev = load_evaluation(weights)
        out = 1e9 * statistics.median(time_evaluation(p.core_object(), 50000, ev) for p in line)
    elif what == "priors":
        ev = evaluation_of(w)
        out = 1e6 * statistics.median(time_policy(p.core_object(), 20000, ev)[0] for p in line[:6])
    else:
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "priors.npz")
            save_weights(path, w, {"bench": "the full value in the priors"})
            e, its, secs = jp.Engine.from_options(weights=path), 0, 0.0
            for i, p in enumerate(line):
                a = e.analyse(p.view(p.to_move), iterations=3000, seed=i)
                its += a.iterations; secs += a.elapsed
        out = its / secs
elif what == "vecenv":
    env = jp.VectorEnv(256, seed=1); env.reset()
    for _ in range(20): env.step(env.sample_actions())
    t = time.perf_counter()
    for _ in range(100): env.step(env.sample_actions())
    out = 100 * 256 / (time.perf_counter() - t)
print(json.dumps(out))
'''

ROWS = (("core", "rules core, random rounds (all moves generated)", "plies/s"),
        ("core_counted", "rules core, random rounds (counted, one move built)", "plies/s"),
        ("legal_moves", "GameState.legal_moves(), 40+ moves", "us"),
        ("legal_action_ids", "GameState.legal_action_ids(), same position", "us"),
        ("best_move", "best_move(view, iterations=1)", "ms"),
        ("api_step", "a step through the Python API (legal_moves + apply)", "steps/s"),
        ("vecenv", "VectorEnv(256), random opponent", "steps/s"),
        ("search", "the default ISMCTS, 12 positions", "iterations/s"),
        ("value", "a value with --weights", "ns"),
        ("priors", "a node's priors with --weights' full value", "us"),
        ("priors_search", "ISMCTS with those priors, 3,000 iterations", "iterations/s"))


def probe(tree: str, what: str, weights: str):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
    # run from the tree itself: with -c the working directory comes first on sys.path
    out = subprocess.run([sys.executable, "-c", PROBE, what, weights], env=env, cwd=tree,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--rows", default=",".join(k for k, _, _ in ROWS),
                    help="the rows to measure, comma-separated (default: all)")
    ap.add_argument("--weights", default="bench/weights/raw128-20k.npz",
                    help="the learned weights of the value and priors rows")
    a = ap.parse_args()
    a.weights = os.path.abspath(a.weights)
    a.rows = [r for r in a.rows.split(",") if r]
    unknown = [r for r in a.rows if r not in {k for k, _, _ in ROWS}]
    if unknown:
        ap.error(f"unknown rows {unknown}; rows: {', '.join(k for k, _, _ in ROWS)}")
    with tempfile.TemporaryDirectory(prefix="jaipur-limit-") as directory:
        runs = measure(a, bench_core.compile_limit(directory))
    report(a, runs)


def measure(a: argparse.Namespace, exe: str) -> dict:
    """Every row for both builds and the plain-C limit, ``a.repeat`` times, alternating."""
    runs: dict = {k: {"before": [], "after": []} for k, _, _ in ROWS if k in a.rows}
    runs["limit"] = {"enumerate": [], "count": []}
    for _ in range(a.repeat):
        for k, _, _ in ROWS:
            if k not in a.rows:
                continue
            for side, tree in (("before", a.before), ("after", a.after)):
                runs[k][side].append(probe(tree, k, a.weights))
            if k == "core":
                t, plies, _ = bench_core.run_limit(exe, "enumerate", 5000, 1)
                runs["limit"]["enumerate"].append(plies / t)
            if k == "core_counted":
                t, plies, _ = bench_core.run_limit(exe, "count", 5000, 1)
                runs["limit"]["count"].append(plies / t)
    return runs


def report(a: argparse.Namespace, runs: dict) -> None:
    med = {k: {s: (statistics.median(v) if v and None not in v else None) for s, v in d.items()}
           for k, d in runs.items()}
    if a.json:
        print(json.dumps({"median": med, "runs": runs}, indent=2))
        return
    print(f"{'':<54}{'before':>12}{'after':>12}{'after/before':>14}")
    for k, label, unit in ROWS:
        if k not in med:
            continue
        b, f = med[k]["before"], med[k]["after"]
        fmt = (lambda x: "-" if x is None else f"{x:,.0f}") if unit.endswith("/s") or unit == "ns" \
            else (lambda x: "-" if x is None else f"{x:,.2f}")
        ratio = "-" if b is None or f is None else f"{f / b:.2f}x"
        print(f"{label + ' (' + unit + ')':<54}{fmt(b):>12}{fmt(f):>12}{ratio:>14}")
    for mode, k in (("enumerate", "core"), ("count", "core_counted")):
        if k not in med:
            continue
        lim = med["limit"][mode]
        parts = [f"{s} {med[k][s] / lim:.2f}x" for s in ("before", "after") if med[k][s]]
        print(f"plain-C limit ({mode}): {lim:,.0f} plies/s; core/limit: {', '.join(parts)}")
    print(f"(median of {a.repeat}, builds alternating)")


if __name__ == "__main__":
    main()

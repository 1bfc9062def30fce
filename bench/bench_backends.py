"""Games per second of `jaipur-ai match` on each backend, with 1 and 2 workers, same run.

Usage:  python bench/bench_backends.py [--deals 20] [--fast-deals 100] [--repeat 3] [--json]

Two matches, each played on the local backend (this process for 1 worker, a pool of
processes for 2) and on the Ray backend (Ray tasks on a Ray instance started here with
2 CPUs, no dashboard): a searching one, ``ismcts:iterations=300`` against ``greedy``
(tens of milliseconds a game: the backends' cost per game is small beside it), and
``greedy`` against ``greedy`` (about a millisecond a game: what is left is mostly the
backend's cost per game).  The games are timed by the match runner (``elapsed``: from
the first game submitted to the last one back; the start of the pool is in it, Ray's own
start is not, and is reported apart).  Every configuration plays the same seeded deals,
and the script checks that they all give the same games.  Median of ``--repeat`` runs.
"""
import argparse
import json
import os
import statistics
import time

from jaipur_ai.matches.runner import run_match

MATCHES = (("ismcts:iterations=300", "greedy", "deals"),
           ("greedy", "greedy", "fast_deals"))


def games(res) -> list:
    return [(r.deal, r.a_seat, r.winner, r.points, tuple(r.moves)) for r in res.records]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=20, help="deals of the searching match")
    ap.add_argument("--fast-deals", type=int, default=100, help="deals of greedy vs greedy")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import ray
    t0 = time.perf_counter()
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    ray_start = time.perf_counter() - t0
    for backend in ("local", "ray"):          # warm up: imports, engines, Ray's workers
        run_match(MATCHES[0][0], MATCHES[0][1], games=2, seed=args.seed, workers=2,
                  backend=backend)
    rows, same = [], True
    for a, b, deals_key in MATCHES:
        deals = getattr(args, deals_key)
        reference = None
        for backend in ("local", "ray"):
            for workers in (1, 2):
                rates = []
                for _ in range(args.repeat):
                    res = run_match(a, b, games=deals, seed=args.seed, workers=workers,
                                    backend=backend)
                    rates.append(res.n_games / res.elapsed)
                    reference = reference or games(res)
                    same = same and games(res) == reference
                rows.append({"a": a, "b": b, "games": 2 * deals, "backend": backend,
                             "workers": workers, "games_per_s": statistics.median(rates),
                             "runs": [round(x, 2) for x in rates]})
    ray.shutdown()
    out = {"ray_start_s": ray_start, "same_games": same, "rows": rows,
           "load_average": os.getloadavg(), "cpus": os.cpu_count()}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"Ray start (2 CPUs, no dashboard): {ray_start:.1f} s;  load average "
          f"{' '.join(f'{x:.2f}' for x in out['load_average'])};  same games on every "
          f"backend: {'yes' if same else 'NO'}")
    print("| match | games | backend | workers | games/s (median of "
          f"{args.repeat}) | × 1 local worker |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    base: dict = {}
    for r in rows:
        key = (r["a"], r["b"])
        if r["backend"] == "local" and r["workers"] == 1:
            base[key] = r["games_per_s"]
        print(f"| {r['a']} vs {r['b']} | {r['games']} | {r['backend']} | {r['workers']} | "
              f"{r['games_per_s']:,.1f} | {r['games_per_s'] / base[key]:.2f} |")


if __name__ == "__main__":
    main()

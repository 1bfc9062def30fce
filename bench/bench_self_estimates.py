"""Do the two players' own estimates of one game add up?  (issue 10, a search bias)

On self-play deals, the mover's win probability for its best move (from its own view)
plus the opponent's own win probability on its next turn (from its view) should sum to
1 on average if the searches were unbiased.  A sum below 1 means each search rates its
opponent stronger than itself.  Prints the mean sum over all pairs and over the first
10 plies.

    PYTHONPATH=. python3 bench/bench_self_estimates.py [--deals 40] [--iterations 3000]
        [-o opponent_view=off ...]      # engine options (jaipur_ai.Engine), as the CLI's -o
"""
from __future__ import annotations

import argparse
import statistics

import jaipur_ai as jp
from jaipur_ai.doors.cli import engine_option


def sums(deals: int, iterations: int, max_plies: int, first_seed: int = 1000,
         **options) -> list[tuple[int, float]]:
    """(ply, mover's estimate + opponent's next estimate) over self-play deals."""
    engine = jp.Engine.from_options(**options)
    out = []
    for deal in range(deals):
        s = jp.GameState.new(seed=first_seed + deal)
        for ply in range(max_plies):
            if s.is_round_over:
                break
            a = engine.analyse(s.view(s.to_move), iterations=iterations, seed=ply)
            s2 = s.apply(a.candidates[0].move)
            if s2.is_round_over:
                break
            b = engine.analyse(s2.view(s2.to_move), iterations=iterations, seed=ply + 1)
            out.append((ply, a.candidates[0].win_probability + b.candidates[0].win_probability))
            s = s2
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--iterations", type=int, default=3000)
    ap.add_argument("--plies", type=int, default=40, help="plies of each deal (default 40)")
    ap.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                    type=engine_option, help="an engine option (repeatable), read as the CLI's -o")
    a = ap.parse_args(argv)
    xs = sums(a.deals, a.iterations, a.plies, **dict(a.option))
    early = [x for p, x in xs if p < 10]
    print(f"pairs {len(xs)}: mean sum {statistics.mean(x for _, x in xs):.3f}; "
          f"first 10 plies ({len(early)} pairs): {statistics.mean(early):.3f}")


if __name__ == "__main__":
    main()

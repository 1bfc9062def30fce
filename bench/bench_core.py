"""Speed of the rules core: random full rounds per second, compiled vs reference.

Usage:  python bench/bench_core.py [--rounds 20000] [--ref-rounds 100] [--repeat 5] [--json]

Both engines play the same deals (round i is ``GameState.new(seed + i, starter=i % 2)``),
picking uniformly among all legal moves at every ply until the round ends.
"""
import argparse
import json

from jaipur_ai._bench import format_rules_report, rules_report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20000)
    ap.add_argument("--ref-rounds", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    r = rules_report(a.rounds, a.ref_rounds, a.repeat, a.seed)
    print(json.dumps(r, indent=2) if a.json else format_rules_report(r))


if __name__ == "__main__":
    main()

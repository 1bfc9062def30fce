"""How often a search's move lies outside the playout policy's candidates.

Below the root, the ISMCTS tree chooses among the informed policy's candidate moves
only (docs/search.md); at the root every legal move is a candidate.  This replays the
games of a match results file (``jaipur-ai match ... --json`` or ``--out FILE.jsonl``)
and counts, for each engine, the moves it played that the policy would not have
offered in that position, by kind: the moves the tree never considers one ply or more
below the root.

    git show 165eb4d:bench/results/feat2-1-vs-025.json > /tmp/feat2-1-vs-025.json
    PYTHONPATH=. python3 bench/bench_candidates.py /tmp/feat2-1-vs-025.json

(bench/results keeps match summaries without their games; git history keeps the games
of the match docs/strength.md measured this way.)
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import jaipur_ai as jp  # noqa: E402
from jaipur_ai.search import _search  # noqa: E402


def records(path: str) -> list[dict]:
    """The game records of a results file: a match's JSON or its JSONL."""
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith("{") and "\n{" not in text.strip():
        return list(json.loads(text)["records"])
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [r for r in rows if "deal_seed" in r]


def kind(move: jp.Move) -> str:
    """'sale' for a sale, 'exchange' for an exchange, else the move's text."""
    return {"sell": "sale", "swap": "exchange"}.get(move.kind, move.kind)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="a match's results file (.json or .jsonl)")
    args = ap.parse_args()
    seen = {"A": 0, "B": 0}
    outside: dict[str, collections.Counter] = {"A": collections.Counter(),
                                               "B": collections.Counter()}
    games = records(args.results)
    for r in games:
        s = jp.GameState.new(r["deal_seed"], starter=r["starter"])
        for rnd, moves in enumerate(r["moves"] if isinstance(r["moves"][0], list)
                                    else [r["moves"]]):
            if rnd:
                break       # a match unit's later rounds are dealt anew: first round only
            for text in moves:
                if s.is_round_over:
                    break
                move = next(m for m in s.legal_moves() if str(m) == text)
                side = "A" if s.to_move == r["a_seat"] else "B"
                seen[side] += 1
                if move.action_id not in _search.candidate_actions(s._core):
                    outside[side][kind(move)] += 1
                s = s.apply(move)
    print(f"{args.results}: {len(games)} games")
    for side in ("A", "B"):
        n, out = seen[side], sum(outside[side].values())
        parts = ", ".join(f"{k} {100 * v / n:.1f} %" for k, v in outside[side].most_common())
        print(f"  {side}: {n} moves, {100 * out / max(n, 1):.1f} % outside the candidates"
              + (f" ({parts})" if parts else ""))


if __name__ == "__main__":
    main()

"""How much is the opponent's hand worth? A match where a side sees it, and only it.

``perfect_information=true`` shows a search everything hidden: the opponent's hand,
the order of the draw pile and the bonus tokens. This benchmark shows a side the
opponent's hand alone: before each of its moves its view is given the opponent's
whole hand as "known" cards (docs/notation.md), and the engine runs its ordinary,
fair search on that view, so the draw pile and the bonus tokens are still sampled.
It measures two things no fair engine can exceed by modelling the opponent's hand:

* what the hand is worth at a budget (a peeking side against the fair default), the
  most a belief over the opponent's hand learned from its moves could add;
* how well the search scales once the hand is known (a peeking side at four times
  the budget against itself), against the fair default's own scaling.

    PYTHONPATH=. python3 bench/experiments/peek_hands.py \
        ismcts:iterations=8000 ismcts:iterations=8000 --peek a \
        --games 100 --seed 7 --workers 2 --out hands-8k-vs-default-8k.jsonl

The games are played by :func:`jaipur_ai.matches.runner.run_match` (same deals and seeds as
``jaipur-ai match`` with the same seed); the results file names a peeking side
``hands+<spec>``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from jaipur_ai import GameState, View  # noqa: E402
from jaipur_ai.matches.runner import format_result, run_match  # noqa: E402
from jaipur_ai.matches.spec import EngineSpec  # noqa: E402


def hand_revealed_view(state: GameState) -> View:
    """The mover's view of ``state`` with the opponent's whole hand among its known
    cards (camels are never in a hand: they are in the herd, which is public)."""
    me = state.to_move
    d = state.view(me).to_dict()
    d["players"][1 - me]["known"] = state.to_dict()["players"][1 - me]["hand"]
    return View.from_dict(d)


class _HandPeekingEngine:
    """A fair engine that is handed the mover's view with the opponent's hand shown."""

    def __init__(self, engine: Any):
        self._engine = engine

    def best_move(self, state: GameState, **limits: Any) -> Any:
        return self._engine.best_move(hand_revealed_view(state), **limits)


@dataclasses.dataclass(frozen=True, eq=False)     # eq=False: EngineSpec's hash of str()
class HandPeekSpec(EngineSpec):
    """An engine spec whose engine sees the opponent's hand (and nothing else hidden).

    It reports ``cheats`` so that the match runner hands it the full state, from
    which :func:`hand_revealed_view` keeps only the opponent's hand."""

    def make_engine(self) -> Any:
        return _HandPeekingEngine(EngineSpec(self.algorithm, self.time, self.iterations,
                                             self.options).make_engine())

    @property
    def cheats(self) -> bool:
        return True

    def __str__(self) -> str:
        return "hands+" + super().__str__()


def peeking_spec(spec: str) -> HandPeekSpec:
    """The fair searching engine ``spec`` (match syntax), shown the opponent's hand."""
    s = EngineSpec.parse(spec)
    if s.cheats or not s.searches:
        raise SystemExit(f"{spec}: give a fair searching engine; this script adds the peek")
    return HandPeekSpec(s.algorithm, s.time, s.iterations, s.options)


def match_parser(doc: str, option: str, what: str) -> argparse.ArgumentParser:
    """The command line of a match between specs A and B where ``--<option>`` a, b or
    both names the sides that ``what``, with the match settings every script here
    takes, as ``jaipur-ai match`` spells them."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("a", help="engine spec of A (jaipur-ai match syntax)")
    ap.add_argument("b", help="engine spec of B")
    ap.add_argument(f"--{option}", choices=("a", "b", "both"), required=True,
                    help=f"which side {what}")
    ap.add_argument("--games", type=int, default=100, help="deals, each played twice")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", help="results file (resumable, one game a line)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    return ap


def play_and_print(a: EngineSpec, b: EngineSpec, args: argparse.Namespace) -> int:
    """Play the match of ``match_parser``'s settings and print its result."""
    res = run_match(a, b, games=args.games, seed=args.seed, workers=args.workers,
                    out=args.out)
    print(json.dumps(res.to_dict(records=False)) if args.json else format_result(res))
    return 0


def main(argv=None) -> int:
    args = match_parser(__doc__, "peek", "sees the opponent's hand").parse_args(argv)
    a = peeking_spec(args.a) if args.peek in ("a", "both") else EngineSpec.parse(args.a)
    b = peeking_spec(args.b) if args.peek in ("b", "both") else EngineSpec.parse(args.b)
    return play_and_print(a, b, args)

if __name__ == "__main__":
    sys.exit(main())

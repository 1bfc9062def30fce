"""A match where a side weighs the opponent's hand by its moves (jaipur_ai.search.belief).

The library's belief (:mod:`jaipur_ai.search.belief`, ``Engine(belief=...)``) uses the measured
temperature and floor of its model; this script plays a side whose belief has others
(``--temp``, ``--floor``), to measure them. What a player does not know of its
opponent's hand is the goods of the opponent's opening hand that it still holds; the
belief weighs each possible set of them by the uniform deal times, for each of the
opponent's moves this round, P(move | its hand then) under a model of a player
(``--model``: ``moves``, ``candidates`` or ``scores``, jaipur_ai/search/belief.py). It reads
only what its player saw: its own views before every move, and the moves (the match
runner shows every move to an engine with a ``see_move`` method).

    PYTHONPATH=. python3 bench/experiments/belief.py \
        ismcts:iterations=32000 ismcts:iterations=8000 --belief both \
        --games 100 --seed 7 --workers 2 --out belief-32k-vs-belief-8k.jsonl

The games are played by :func:`jaipur_ai.matches.runner.run_match` (same deals and seeds as
``jaipur-ai match`` with the same seed); the results file names a believing side
``belief(<model>,t=<temp>,f=<floor>)+<spec>``. With the library's temperature and
floor, ``jaipur-ai match 'ismcts:time=1,belief=moves' ...`` plays the same engine
(there, before the opponent's first move the worlds are dealt as without a belief, so
the games are alike in law, not move for move).
"""
from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from jaipur_ai import Move, View  # noqa: E402
from jaipur_ai.search.belief import FLOOR, MODEL, MODELS, TEMPERATURE, HandBelief  # noqa: E402
from jaipur_ai.matches.spec import EngineSpec  # noqa: E402
from peek_hands import match_parser, play_and_print  # noqa: E402

TEMP = TEMPERATURE   # this script's name for it
SINGLE = tuple(m for m in MODELS if m != "mixed")   # the models with one temperature


class _BelievingEngine:
    """A fair engine whose sampled worlds follow its belief over the opponent's hand."""

    def __init__(self, engine: Any, temp: float, floor: float, model: str):
        self._engine = engine
        self.belief = HandBelief(model, temp, floor)

    def see_move(self, view: View, move: Move) -> None:
        self.belief.see(view, move)

    def best_move(self, view: View, **limits: Any) -> Any:
        rows, w = self.belief.prior(view)
        return self._engine.best_move(view, hand_prior=(rows, w), **limits)


@dataclasses.dataclass(frozen=True, eq=False)     # eq=False: EngineSpec's hash of str()
class BeliefSpec(EngineSpec):
    """An engine spec whose engine weighs the opponent's hand by its moves."""

    temp: float = TEMP
    floor: float = FLOOR
    model: str = MODEL

    def make_engine(self) -> Any:
        return _BelievingEngine(EngineSpec(self.algorithm, self.time, self.iterations,
                                           self.options).make_engine(),
                                self.temp, self.floor, self.model)

    def __str__(self) -> str:
        return (f"belief({self.model},t={self.temp:g},f={self.floor:g})+"
                + super().__str__())


def believing_spec(spec: str, temp: Optional[float] = None, floor: Optional[float] = None,
                   model: str = MODEL) -> BeliefSpec:
    """The fair ISMCTS engine ``spec`` (match syntax), with the belief (temperature and
    floor: the model's own unless given)."""
    s = EngineSpec.parse(spec)
    if s.cheats or s.algorithm != "ismcts":
        raise SystemExit(f"{spec}: give a fair ismcts engine; this script adds the belief")
    if model not in SINGLE:
        raise SystemExit(f"--model must be one of {', '.join(SINGLE)} (the library's "
                         "'mixed' is ismcts:...,belief=mixed in jaipur-ai match)")
    (_m, t, f, _w), = HandBelief(model, temp, floor).parts
    return BeliefSpec(s.algorithm, s.time, s.iterations, s.options, t, f, model)


def main(argv=None) -> int:
    ap = match_parser(__doc__, "belief", "weighs the opponent's hand by its moves")
    ap.add_argument("--model", choices=SINGLE, default=MODEL, help="model of the opponent")
    ap.add_argument("--temp", type=float, help="model temperature, points (default: the "
                    "model's own)")
    ap.add_argument("--floor", type=float, help="model floor (default: the model's own)")
    args = ap.parse_args(argv)

    def side(spec: str, on: bool) -> EngineSpec:
        return (believing_spec(spec, args.temp, args.floor, args.model) if on
                else EngineSpec.parse(spec))
    a = side(args.a, args.belief in ("a", "both"))
    b = side(args.b, args.belief in ("b", "both"))
    return play_and_print(a, b, args)


if __name__ == "__main__":
    sys.exit(main())

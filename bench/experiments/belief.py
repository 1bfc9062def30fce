"""A belief over the opponent's hand, learned from its moves: a match where a side uses it.

Every card that enters a hand after the deal is taken from the market in view of both
players, so what a player does not know of its opponent's hand is the goods of the
opponent's opening hand that it still holds. Today's search deals those uniformly
from the unseen cards. This side weighs them instead by the opponent's moves so far:

    P(unknown goods U | the round so far)
        ∝ P(U | what the view shows)               (the uniform deal: hypergeometric)
        × Π over the opponent's moves  P(move | its hand then)

where its hand at each earlier move follows from U and the public moves since (cards
taken, sold and given are all public), and P(move | hand) is a model of a player built
from the search's own judgement (``jaipur_ai._belief.hand_likelihoods``): a softmax at
a temperature over the values of its moves, mixed with a floor for every legal move.
Three models (``--model``): ``moves``, every legal move valued by the learned
evaluation of the position it leads to (the default, the best measured by
belief_quality.py); ``candidates``, the informed policy's candidates so valued;
``scores``, the candidates by their hand-set move scores. The search then samples its worlds from that
posterior (``Engine.best_move(..., hand_prior=...)``) and deals the rest of the unseen
cards uniformly. It reads only what its player saw: its own views, before every move,
and the moves (the match runner's ``see_move`` hook).

    PYTHONPATH=. python3 bench/experiments/belief.py \
        ismcts:iterations=32000 ismcts:iterations=8000 --belief both \
        --games 100 --seed 7 --workers 2 --out belief-32k-vs-belief-8k.jsonl

The games are played by :func:`jaipur_ai.match.run_match` (same deals and seeds as
``jaipur-ai match`` with the same seed); the results file names a believing side
``belief(<model>,t=<temp>,f=<floor>)+<spec>``.
"""
from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import os
import sys
from typing import Any, Optional

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from jaipur_ai import Move, View  # noqa: E402
from jaipur_ai._belief import hand_likelihoods  # noqa: E402
from jaipur_ai._cards import CARD_TOTALS, GOODS  # noqa: E402
from jaipur_ai.evaluation import default_evaluation  # noqa: E402
from jaipur_ai.spec import EngineSpec  # noqa: E402
from peek_hands import add_match_arguments, play_and_print  # noqa: E402

# The model of the opponent's choices (measured by belief_quality.py; docs/strength.md,
# "A belief over the opponent's hand")
MODELS = ("moves", "candidates", "scores")
MODEL = "moves"
TEMP = 2.0      # softmax temperature, points (learned values: 8 points a unit of logit)
FLOOR = 0.15    # the share of every move's probability spread over all legal moves


def _multisets(n: int) -> np.ndarray:
    """Every way to hold n goods, as rows of GOODS counts."""
    rows = []
    for combo in itertools.combinations_with_replacement(range(GOODS), n):
        row = [0] * GOODS
        for g in combo:
            row[g] += 1
        rows.append(row)
    return np.array(rows, dtype=np.int16).reshape(-1, GOODS)


_MULTISETS = {n: _multisets(n) for n in range(8)}
_LOG_COMB = np.array([[math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                       if k <= n else -np.inf for k in range(8)] for n in range(16)])


def _sides(view: View) -> tuple[np.ndarray, np.ndarray, int]:
    """(unseen goods by kind, the opponent's known goods, its unknown slots) of view."""
    raw = view._core.raw()
    me, opp = view.observer, 1 - view.observer
    known = np.array(raw["hand"][opp], dtype=np.int16)       # a view holds only the known ones
    unseen = (np.array(CARD_TOTALS[:GOODS], dtype=np.int16)
              - np.array(raw["market"][:GOODS], dtype=np.int16)
              - np.array(raw["hand"][me], dtype=np.int16) - known
              - np.array(raw["discard"], dtype=np.int16))
    slots = view.to_dict()["players"][opp]["hand_size"] - int(known.sum())
    return unseen, known, slots


def unknown_hands(view: View) -> tuple[np.ndarray, np.ndarray]:
    """The goods the opponent's unknown slots may hold in ``view``, and the log of
    each one's weight under the uniform deal (multivariate hypergeometric)."""
    unseen, _known, slots = _sides(view)
    rows = _MULTISETS[slots]
    rows = rows[np.all(rows <= unseen, axis=1)]
    logp = _LOG_COMB[unseen[None, :], rows].sum(axis=1)
    return rows, logp


def hand_change(move: Move) -> np.ndarray:
    """What ``move`` does to its player's goods (public: every card that moves is seen)."""
    d = np.zeros(GOODS, dtype=np.int16)
    if move.kind == "take":
        d[move.good] += 1
    elif move.kind == "sell":
        d[move.good] -= move.count
    elif move.kind == "swap":
        d += np.array(move.take[:GOODS], dtype=np.int16)
        d -= np.array(move.give[:GOODS], dtype=np.int16)
    return d


@dataclasses.dataclass
class _Seen:
    """One move of the opponent, as the observer saw it played."""
    view: View                  # the observer's view just before it
    action: int                 # the move's action id
    change: np.ndarray          # what it did to the opponent's goods
    known: np.ndarray           # the opponent's goods the observer knew of then
    cache: dict                 # unknown goods then (tuple) -> likelihood


class HandBelief:
    """The observer's belief over its opponent's unknown goods in the current round."""

    def __init__(self, temp: float = TEMP, floor: float = FLOOR, model: str = MODEL,
                 evaluation: Any = None):
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {model!r}")
        # the learned values of the shipped weights (or those given), except "scores"
        self.evaluation = None if model == "scores" else (
            evaluation if evaluation is not None else default_evaluation())
        self.temp, self.floor, self.model = temp, floor, model
        self.all_moves = model == "moves"
        self.round: Optional[int] = None
        self.seen: list[_Seen] = []

    def see(self, view: View, move: Move) -> None:
        """Record ``move``, played in the position the observer saw as ``view``."""
        if view.round != self.round:
            self.round, self.seen = view.round, []
        if view.to_move == view.observer:
            return                          # its own moves say nothing of the other hand
        _unseen, known, _slots = _sides(view)
        self.seen.append(_Seen(view, move.action_id, hand_change(move), known, {}))

    def posterior(self, view: View) -> tuple[np.ndarray, np.ndarray]:
        """(rows of unknown goods, weights) for the observer's ``view`` now."""
        rows, logw = unknown_hands(view)
        if view.round != self.round or not self.seen or len(rows) <= 1:
            return rows, np.exp(logw - logw.max())
        _unseen, known_now, _slots = _sides(view)
        after = np.zeros(GOODS, dtype=np.int16)      # the opponent's goods changes since
        for ev in reversed(self.seen):
            after += ev.change
            then = rows + (known_now - after - ev.known)   # its unknown goods then
            ok = np.all(then >= 0, axis=1)
            lik = np.zeros(len(rows))
            keys = [tuple(r) for r in then]
            todo = [i for i in range(len(rows)) if ok[i] and keys[i] not in ev.cache]
            if todo:
                got = hand_likelihoods(ev.view._core, ev.action, then[todo], self.evaluation,
                                       self.temp, self.floor, 0, self.all_moves)
                for i, p in zip(todo, got):
                    ev.cache[keys[i]] = float(p)
            for i in range(len(rows)):
                if ok[i]:
                    lik[i] = ev.cache[keys[i]]
            with np.errstate(divide="ignore"):
                logw = logw + np.log(lik)
        keep = np.isfinite(logw)
        if not keep.any():                 # the model rules every hand out: stay uniform
            rows, logw = unknown_hands(view)
            return rows, np.exp(logw - logw.max())
        rows, logw = rows[keep], logw[keep]
        return rows, np.exp(logw - logw.max())


class _BelievingEngine:
    """A fair engine whose sampled worlds follow its belief over the opponent's hand."""

    def __init__(self, engine: Any, temp: float, floor: float, model: str):
        self._engine = engine
        self.belief = HandBelief(temp, floor, model)

    def see_move(self, view: View, move: Move) -> None:
        self.belief.see(view, move)

    def best_move(self, view: View, **limits: Any) -> Any:
        rows, w = self.belief.posterior(view)
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


def believing_spec(spec: str, temp: float = TEMP, floor: float = FLOOR,
                   model: str = MODEL) -> BeliefSpec:
    """The fair ISMCTS engine ``spec`` (match syntax), with the belief."""
    s = EngineSpec.parse(spec)
    if s.cheats or s.algorithm != "ismcts":
        raise SystemExit(f"{spec}: give a fair ismcts engine; this script adds the belief")
    if model not in MODELS:
        raise SystemExit(f"--model must be one of {', '.join(MODELS)}")
    return BeliefSpec(s.algorithm, s.time, s.iterations, s.options, temp, floor, model)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="engine spec of A (jaipur-ai match syntax)")
    ap.add_argument("b", help="engine spec of B")
    ap.add_argument("--belief", choices=("a", "b", "both"), required=True,
                    help="which side weighs the opponent's hand by its moves")
    ap.add_argument("--model", choices=MODELS, default=MODEL, help="model of the opponent")
    ap.add_argument("--temp", type=float, default=TEMP, help="model temperature, points")
    ap.add_argument("--floor", type=float, default=FLOOR, help="model floor")
    add_match_arguments(ap)
    args = ap.parse_args(argv)

    def side(spec: str, on: bool) -> EngineSpec:
        return (believing_spec(spec, args.temp, args.floor, args.model) if on
                else EngineSpec.parse(spec))
    a = side(args.a, args.belief in ("a", "both"))
    b = side(args.b, args.belief in ("b", "both"))
    return play_and_print(a, b, args)


if __name__ == "__main__":
    sys.exit(main())

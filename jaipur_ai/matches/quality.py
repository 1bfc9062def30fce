"""The move-quality benchmark: positions with reference values for their candidate
moves, and how much win % an engine's choices lose against them (backgammon's error
rates; docs/strength.md, "The move-quality benchmark").

A position is a moment of a recorded game: the deal (``GameState.new(deal_seed,
starter)``) and the round's moves before it, so the engine under test is given the
mover's view *and* the round's public moves, as at the table.  Its reference holds,
for each candidate move, the mover's win chance after it by rollouts with common random
numbers (:func:`jaipur_ai.search._rollout.rollout_outcomes`): ``worlds`` sampled worlds,
the same for every candidate, each played to the end of the round by one fixed policy.
The reference is not the engine under test: no search, no learned weights.

A move an engine picks that the reference did not roll out is rolled out on demand in
the very same worlds (world ``w`` depends only on the position's seed and ``w``), so
its value is comparable to the stored ones.

>>> p = Position(0, deal_seed=7, starter=0, moves=[], seed=1, worlds=4,
...              values={"take G": 0.60, "camels": 0.55})
>>> p.best, round(p.loss("camels"), 2)
('take G', 5.0)
"""
from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from jaipur_ai.errors import JaipurError

__all__ = ["Position", "QualityError", "load_positions", "save_positions", "reference_values",
           "engine_move",
           "rollout_settings", "value_on_demand", "PHASES", "phase_of", "errors_by_phase",
           "summarise_losses", "paired_difference", "BLUNDER", "GROSS", "FORMAT"]

FORMAT = "jaipur-quality/1"
#: Points of win % lost by a move that counts as a blunder.
BLUNDER = 5.0
#: Points of win % lost by a move no sensible player makes (the levels' report).
GROSS = 20.0
#: The round's phases by the cards left in the draw pile.
PHASES = ("opening", "middle", "end")


def phase_of(pile: int) -> str:
    """The phase of a position with ``pile`` cards in the draw pile: the opening (30 or
    more), the middle (10 to 29) or the end (under 10)."""
    return "opening" if pile >= 30 else ("middle" if pile >= 10 else "end")


def errors_by_phase(losses: dict[int, float], piles: dict[int, Optional[int]],
                    ) -> dict[str, dict[str, Any]]:
    """The mean loss (the error rate) of the positions of each phase: ``losses`` and
    ``piles`` by position id."""
    out: dict[str, list[float]] = {ph: [] for ph in PHASES}
    for i, x in losses.items():
        pile = piles.get(i)
        if pile is not None:
            out[phase_of(pile)].append(x)
    return {ph: {"positions": len(xs), "error": sum(xs) / len(xs) if xs else None}
            for ph, xs in out.items()}


class QualityError(JaipurError):
    """A benchmark file or position that cannot be used (field and reason)."""


@dataclass
class Position:
    """One benchmark position and its reference.

    ``values``: move text -> the mover's win chance (0..1) after the move, by the
    rollouts; ``se``: move text -> the standard error of its value minus the best's
    (paired over the worlds), in points of win %."""

    id: int
    deal_seed: int
    starter: int
    moves: list[str]
    seed: int
    worlds: int
    values: dict[str, float]
    se: dict[str, float] = field(default_factory=dict)
    played: Optional[str] = None          #: the move played in the game it comes from
    source: str = ""                      #: the engines of that game
    check: Optional[float] = None         #: the best move's mean over worlds 0..99
    pile: Optional[int] = None            #: cards in the draw pile (the round's phase)
    #: the rollouts' policy (the file's, :func:`rollout_settings`): the same for a move
    #: rolled out on demand as for the stored ones
    rollout: dict[str, Any] = field(default_factory=dict)

    @property
    def best(self) -> str:
        return max(self.values, key=lambda m: (self.values[m], m))

    def loss(self, move: str) -> float:
        """Points of win % that ``move`` loses against the best reference move."""
        if move not in self.values:
            raise QualityError("move", f"{move!r} has no reference value in position "
                                       f"{self.id}")
        return 100.0 * (self.values[self.best] - self.values[move])

    def replay(self) -> tuple[Any, list[tuple[Any, Any]]]:
        """The position (a GameState) and the round's moves before it, as
        ``(state before, move)`` pairs (``Engine.analyse(history=...)``)."""
        from jaipur_ai.rules.move import Move
        from jaipur_ai.rules.position import GameState
        state = GameState.new(self.deal_seed, starter=self.starter)
        history = []
        for i, text in enumerate(self.moves):
            try:
                after = state.apply(text)
            except (JaipurError, ValueError) as e:
                raise QualityError(f"positions[{self.id}].moves[{i}]", str(e)) from None
            history.append((state, Move.parse(text)))
            state = after
        if state.is_round_over:
            raise QualityError(f"positions[{self.id}]", "the round is over")
        return state, history

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "deal_seed": self.deal_seed, "starter": self.starter,
                "moves": self.moves, "seed": self.seed, "worlds": self.worlds,
                "values": {k: round(v, 6) for k, v in self.values.items()},
                "se": {k: round(v, 4) for k, v in self.se.items()},
                "played": self.played, "source": self.source, "check": self.check,
                "pile": self.pile}

    @classmethod
    def from_dict(cls, d: Any) -> "Position":
        try:
            values = {str(k): float(v) for k, v in d["values"].items()}
            p = cls(int(d["id"]), int(d["deal_seed"]), int(d["starter"]),
                    [str(m) for m in d["moves"]], int(d["seed"]), int(d["worlds"]),
                    values, {str(k): float(v) for k, v in (d.get("se") or {}).items()},
                    d.get("played"), str(d.get("source", "")),
                    None if d.get("check") is None else float(d["check"]),
                    None if d.get("pile") is None else int(d["pile"]))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise QualityError("positions", f"not a benchmark position "
                                            f"({type(e).__name__}: {e})") from None
        if not p.values or not all(0.0 <= v <= 1.0 for v in p.values.values()):
            raise QualityError(f"positions[{p.id}].values", "expected win chances in 0..1")
        if p.worlds < 1:
            raise QualityError(f"positions[{p.id}].worlds", "expected at least 1")
        return p


def rollout_settings(meta: dict[str, Any]) -> dict[str, Any]:
    """The rollout policy a benchmark file's header names: ``weights`` (shipped weights
    whose move policy the rollouts read, or None: the hand-set move scores alone) and
    ``fair`` (the mover, too, chooses in worlds re-dealt from what it knows)."""
    r = meta.get("rollout") or {}
    if not isinstance(r, dict):
        raise QualityError("rollout", f"expected an object, got {type(r).__name__}")
    return {"weights": r.get("weights"), "fair": bool(r.get("fair", False))}


def load_positions(path: str) -> list[Position]:
    """The positions of a benchmark file (JSON lines, gzip when it ends in ``.gz``):
    a header ``{"format": "jaipur-quality/1", ...}``, then one position a line."""
    opener: Any = gzip.open if str(path).endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            lines = [ln for ln in fh.read().splitlines() if ln.strip()]
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise QualityError("positions", f"cannot read {path}: {e}") from None
    try:
        head = json.loads(lines[0]) if lines else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise QualityError("positions", f"{path} is not a benchmark file ({FORMAT})")
    rollout = rollout_settings(head)
    out = []
    for i, line in enumerate(lines[1:]):
        try:
            d = json.loads(line)
        except ValueError:
            raise QualityError("positions", f"{path}: line {i + 2} is not JSON") from None
        p = Position.from_dict(d)
        p.rollout = dict(rollout)
        out.append(p)
    return out


def save_positions(path: str, positions: Iterable[Position], meta: dict[str, Any]) -> None:
    opener: Any = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"format": FORMAT, **meta}) + "\n")
        for p in positions:
            fh.write(json.dumps(p.to_dict(), separators=(",", ":")) + "\n")


def reference_values(view: Any, moves: Sequence[Any], worlds: int, seed: int,
                     first: int = 0, weights: Optional[str] = None,
                     fair: bool = False, hands: Any = None,
                     hand_weights: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Rollout results of ``moves`` (Move objects or texts) in the mover's ``view``:
    an array (moves, worlds) of the mover's scores and one of margins.  ``weights``,
    ``fair``: the rollout policy (:func:`rollout_settings`).  ``hands``,
    ``hand_weights``: the opponent's unknown goods dealt by these rows and weights
    (``rollout_outcomes``'s belief) instead of uniformly, as the real-hand judge deals
    them (bench/experiments/true_hand_judge.py)."""
    from jaipur_ai.rules.move import Move
    from jaipur_ai.search._rollout import rollout_outcomes
    from jaipur_ai.search.evaluation import cached_evaluation
    ids = [(m if isinstance(m, Move) else Move.parse(m)).action_id for m in moves]
    core = getattr(view, "_core", view)
    ev = None if weights is None else cached_evaluation(weights)
    scores, margins = [], []
    for k in range(0, len(ids), 64):
        s, m = rollout_outcomes(core, ids[k:k + 64], worlds, seed, first, evaluation=ev,
                                fair=fair, hands=hands, weights=hand_weights)
        scores.append(s)
        margins.append(m)
    return np.concatenate(scores), np.concatenate(margins)


def engine_move(engine: Any, spec: Any, p: Position) -> str:
    """The move ``engine`` (made from the :class:`~jaipur_ai.matches.spec.EngineSpec`
    ``spec``) plays at benchmark position ``p``: the mover's view and the round's moves
    before it, the position's own search seed and the spec's fixed limits."""
    from jaipur_ai.matches.spec import derive_seed
    state, history = p.replay()
    return str(engine.best_move(state.view(state.to_move), seed=derive_seed(p.seed, 3),
                                history=history or None,
                                **spec.fixed_limits("the benchmark")))


def value_on_demand(p: Position, move: str) -> tuple[float, float]:
    """The reference value of a move the reference did not roll out, in the same worlds,
    and the standard error (points) of its difference from the best move."""
    state, _history = p.replay()
    view = state.view(state.to_move)
    sc, _ = reference_values(view, [move, p.best], p.worlds, p.seed, **p.rollout)
    d = sc[0] - sc[1]
    se = 100.0 * float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    return float(sc[0].mean()), se


def summarise_losses(losses: Sequence[float], agree: Sequence[bool]) -> dict[str, Any]:
    """The error rate (mean points of win % lost a decision) with a 95 % interval
    (normal, over the positions), the blunder rate (moves losing more than BLUNDER
    points), the gross rate (more than GROSS) and the agreement rate."""
    x = np.asarray(losses, float)
    n = len(x)
    mean = float(x.mean()) if n else float("nan")
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    return {"positions": n, "error": mean, "error_lo": mean - half, "error_hi": mean + half,
            "blunders": float(np.mean(x > BLUNDER)) if n else float("nan"),
            "gross": float(np.mean(x > GROSS)) if n else float("nan"),
            "agreement": float(np.mean(np.asarray(agree, bool))) if n else float("nan")}


def paired_difference(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Mean of a - b over the same positions and its 95 % interval."""
    d = np.asarray(a, float) - np.asarray(b, float)
    n = len(d)
    mean = float(d.mean()) if n else float("nan")
    half = 1.96 * float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    return {"diff": mean, "lo": mean - half, "hi": mean + half}

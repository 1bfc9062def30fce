"""The levels: a rated ladder of engines from a beginner to the strongest, and weaker
play that errs as a person does.

A level is the ISMCTS search with a number of iterations a move and a
``temperature`` (points of win %): it does not always play the move it values most.
A move valued ``d`` points below the best is drawn with weight ``exp(-d /
temperature)``, so a weaker level prefers the moves its search liked, as a person who
misjudges a close choice does, and never one its search found hopeless (more than
:data:`CUT` temperatures below the best, or never searched).  The draw is seeded by
the search's seed: the same seed gives the same move.

The ladder, its ratings (the rating list's Bradley-Terry scale with the default
engine at 0.1 s a move set to 2000) and what each level costs are measured data,
shipped in ``jaipur_ai/data/levels.json`` and checked when first read;
``jaipur-ai levels --rate`` measures them again (docs/levels.md).

>>> import jaipur_ai as jp
>>> [lv.name for lv in jp.levels()][:3]
['1', '2', '3']
>>> lv = jp.levels()[-1]; lv.name
'max'
>>> s = jp.GameState.new(seed=3, starter=1)
>>> e = jp.Engine(level=2)
>>> e.best_move(s, seed=4) == e.best_move(s, seed=4)
True
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Union

import numpy as np

from jaipur_ai.errors import InvalidDataError, InvalidOptionError
from jaipur_ai.options import EVALUATIONS
from jaipur_ai.rules.move import Move
from jaipur_ai.search.analysis import Analysis

__all__ = ["Level", "levels", "level", "unknown_level", "level_limits", "for_level",
           "choose", "CUT",
           "LEVELS_FILE",
           "LEVEL_FORMAT", "read_levels"]

#: Moves valued more than CUT temperatures below the best are never drawn.
CUT = 4.0
#: The shipped ladder.
LEVELS_FILE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data", "levels.json")
LEVEL_FORMAT = "jaipur-levels/1"

_TAG = 0x6C6576656C      # ("level": the draw's own stream, apart from the search's)


# ------------------------------------------------------------------- the choice
def choose(analysis: Analysis, temperature: float, key: int = 0) -> Move:
    """The move a player of ``temperature`` plays from ``analysis`` (all its
    candidates, best first).  Values are the candidates' win probabilities; a
    candidate without one (greedy, random) or never visited is not drawn, and a
    move valued above the search's best (a lucky few visits) weighs as the best.
    The draw is seeded by the search's seed and ``key`` (the position's: an engine
    given one seed for every move still draws afresh in each position)."""
    best = analysis.best
    assert best is not None
    best_value = analysis.candidates[0].win_probability if analysis.candidates else None
    if temperature <= 0 or best_value is None:
        return best
    moves, weights = [], []
    for c in analysis.candidates:
        if c.win_probability is None or (c.visits <= 0 and c.move != best):
            continue
        d = max(0.0, 100.0 * (best_value - c.win_probability)) / temperature
        if d <= CUT:
            moves.append(c.move)
            weights.append(math.exp(-d))
    if len(moves) <= 1:
        return best
    p = np.asarray(weights) / sum(weights)
    rng = np.random.default_rng([int(analysis.seed) & ((1 << 64) - 1), _TAG,
                                 int(key) & ((1 << 64) - 1)])
    return moves[int(rng.choice(len(moves), p=p))]


# -------------------------------------------------------------------- the ladder
@dataclass(frozen=True)
class Level:
    """One level of the ladder: ``iterations`` a move and ``temperature`` (the
    engine), its rating ``elo`` with the 95 % interval ``lo``..``hi``, and what was
    measured of it: ``ms`` a move, the move-quality benchmark's ``error`` (points of
    win % lost a decision) and ``gross`` (the share of its moves losing more than
    20 points); None where not measured."""

    name: str
    iterations: int
    temperature: float
    elo: float
    lo: Optional[float] = None
    hi: Optional[float] = None
    ms: Optional[float] = None
    error: Optional[float] = None
    gross: Optional[float] = None
    #: the evaluation the ladder was rated with (its file's ``evaluation``): a level keeps
    #: it when the shipped weights change, so that its rating stays true
    evaluation: str = "learned"

    @property
    def spec(self) -> str:
        """The engine spec it stands for (``ismcts:iterations=300,temperature=4``)."""
        t = f",temperature={self.temperature:g}" if self.temperature else ""
        e = f",evaluation={self.evaluation}" if self.evaluation != "learned" else ""
        return f"ismcts:iterations={self.iterations}{t}{e}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "spec": self.spec, "iterations": self.iterations,
                "temperature": self.temperature, "elo": self.elo, "lo": self.lo,
                "hi": self.hi, "ms": self.ms, "error": self.error,
                "gross": self.gross, "evaluation": self.evaluation}

    def __repr__(self) -> str:
        return f"<Level {self.name}: {self.spec}, Elo {self.elo:.0f}>"


def _number(d: dict[str, Any], key: str, where: str, none: bool = True) -> Any:
    v = d.get(key)
    if v is None and none:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InvalidDataError(f"{where}.{key}", f"expected a number, got {v!r:.40}")
    return v


def read_levels(path: str = LEVELS_FILE) -> tuple[list[Level], dict[str, str], dict[str, Any]]:
    """The ladder of a levels file (weakest first), its aliases and its header;
    InvalidDataError naming the field when the file is not a valid, monotone ladder."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InvalidDataError(path, f"not a levels file: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != LEVEL_FORMAT:
        raise InvalidDataError(f"{path}: format", f"expected {LEVEL_FORMAT!r}")
    rows = doc.get("levels")
    if not isinstance(rows, list) or not rows:
        raise InvalidDataError(f"{path}: levels", "expected a list of levels")
    evaluation = doc.get("evaluation", "learned")
    if evaluation not in EVALUATIONS:
        raise InvalidDataError(f"{path}: evaluation", f"expected one of "
                                                      f"{', '.join(EVALUATIONS)}")
    ladder: list[Level] = []
    for k, row in enumerate(rows):
        where = f"{path}: levels[{k}]"
        if not isinstance(row, dict) or not isinstance(row.get("name"), str):
            raise InvalidDataError(where, "expected an object with a name")
        it = _number(row, "iterations", where, none=False)
        if not isinstance(it, int) or not 1 <= it <= 10**7:
            raise InvalidDataError(f"{where}.iterations", "expected 1 to 10^7")
        temp = _number(row, "temperature", where, none=False)
        if not 0 <= temp <= 100:
            raise InvalidDataError(f"{where}.temperature", "expected 0 to 100")
        ladder.append(Level(row["name"], it, float(temp),
                            float(_number(row, "elo", where, none=False)),
                            evaluation=evaluation,
                            **{key: _number(row, key, where)
                               for key in ("lo", "hi", "ms", "error", "gross")}))
    names = [lv.name for lv in ladder]
    if len(set(names)) != len(names):
        raise InvalidDataError(f"{path}: levels", "a level's name given twice")
    if any(b.elo <= a.elo for a, b in zip(ladder, ladder[1:])):
        raise InvalidDataError(f"{path}: levels", "the ratings must rise level by level")
    aliases = doc.get("aliases", {})
    if not isinstance(aliases, dict) or any(v not in names for v in aliases.values()):
        raise InvalidDataError(f"{path}: aliases", "expected names of levels")
    return ladder, dict(aliases), {k: v for k, v in doc.items() if k != "levels"}


@lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[Level, ...], dict[str, str]]:
    ladder, aliases, _ = read_levels()
    return tuple(ladder), aliases


def levels() -> list[Level]:
    """The levels, weakest first (:class:`Level`: name, spec, rating and interval,
    ms a move)."""
    return list(_shipped()[0])


def names() -> list[str]:
    """Every name a level answers to: the ladder's, then the aliases."""
    ladder, aliases = _shipped()
    return [lv.name for lv in ladder] + list(aliases)


def level(name: Union[str, int]) -> Level:
    """The level called ``name`` (``3``, ``"max"``, or an alias such as ``"hard"``);
    InvalidOptionError listing the levels for any other."""
    ladder, aliases = _shipped()
    key = str(name).strip().lower() if isinstance(name, (str, int)) and \
        not isinstance(name, bool) else None
    key = aliases.get(key, key) if key is not None else None
    for lv in ladder:
        if lv.name == key:
            return lv
    raise unknown_level(name)


def unknown_level(name: object) -> InvalidOptionError:
    """The error for a name that is no level: it lists the levels and their aliases."""
    ladder, aliases = _shipped()
    shown = name if isinstance(name, (str, int)) and len(str(name)) <= 40 else type(name).__name__
    return InvalidOptionError("level", f"unknown level {shown!r} (the levels, weakest first: "
                                       f"{', '.join(lv.name for lv in ladder)}; also "
                                       + ", ".join(f"{a} = {b}" for a, b in aliases.items())
                                       + ")")


def level_limits(name: Union[None, str, int] = None,
                 elo: Optional[float] = None) -> tuple[int, float]:
    """``(iterations, temperature)`` of a level, or of the point of the ladder rated
    ``elo``: between two levels, log-iterations and temperature are interpolated
    linearly in rating (the fitted curve, docs/levels.md).  An ``elo`` outside the
    ladder's ratings is an InvalidOptionError giving the range.

    >>> lo, hi = levels()[0], levels()[1]
    >>> level_limits(elo=lo.elo) == (lo.iterations, lo.temperature)
    True
    """
    if (name is None) == (elo is None):
        raise InvalidOptionError("level", "give a level or an elo, not both")
    if name is not None:
        lv = level(name)
        return lv.iterations, lv.temperature
    ladder = _shipped()[0]
    assert elo is not None
    if not ladder[0].elo <= elo <= ladder[-1].elo:
        raise InvalidOptionError("elo", f"must be between {ladder[0].elo:.0f} (level "
                                        f"{ladder[0].name}) and {ladder[-1].elo:.0f} "
                                        f"(level {ladder[-1].name}), got {elo:g}")
    for a, b in zip(ladder, ladder[1:]):
        if elo <= b.elo:
            f = (elo - a.elo) / (b.elo - a.elo)
            it = math.exp((1 - f) * math.log(a.iterations) + f * math.log(b.iterations))
            return max(1, round(it)), round((1 - f) * a.temperature + f * b.temperature, 3)
    return ladder[-1].iterations, ladder[-1].temperature   # pragma: no cover


def for_level(name: Union[None, str, int], elo: Optional[float], *, limited: bool,
              temperature: Optional[float], algorithm: str = "ismcts",
              perfect_information: bool = False, evaluation: str = "learned",
              weights: Optional[str] = None) -> tuple[Optional[int], Optional[float], str]:
    """What a level (or an ``elo``) gives an engine: ``(iterations, temperature,
    evaluation)``, the level's iterations where the engine has no limit of its own
    (``limited``: None otherwise), its temperature where none is given, and the
    evaluation the ladder was rated with where the engine asks for the shipped weights
    (``evaluation`` "learned" without ``weights``; else ``evaluation`` as given).  The
    one rule the Python API and engine specs apply; InvalidOptionError for a level of
    another algorithm or one given perfect information.

    >>> for_level(1, None, limited=True, temperature=0.5)[:2] == (None, 0.5)
    True
    """
    field = "level" if name is not None else "elo"
    if perfect_information:
        raise InvalidOptionError(field, "the levels play fairly: not with "
                                        "perfect_information")
    if algorithm != "ismcts":
        raise InvalidOptionError(field, f"the levels are ismcts engines, not {algorithm}")
    its, temp = level_limits(name, elo)
    if evaluation == "learned" and weights is None:
        evaluation = _shipped()[0][0].evaluation
    return (None if limited else its), (temp if temperature is None else temperature), \
        evaluation

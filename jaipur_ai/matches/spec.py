"""Engine specs and seeds: how a match, a self-play run or a game names its engines.

An engine spec is the compact text ``ALGORITHM[:key=value,...]`` (``ismcts:time=1``,
``greedy``, a level such as ``hard``), checked against the one options table
(:mod:`jaipur_ai.options`); seeds of deals and searches derive from one base seed by
splitmix64, never from which process plays a game.

>>> from jaipur_ai.matches.spec import EngineSpec
>>> spec = EngineSpec.parse("ismcts:time=0.5,playout=random")
>>> spec.algorithm, spec.time, spec.options
('ismcts', 0.5, {'playout': 'random'})
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from jaipur_ai.errors import JaipurError
from jaipur_ai.options import (SPEC_OPTIONS, check, check_engine_options, describe, option,
                               parse_text, unknown)

__all__ = ["EngineSpec", "SpecError", "LEVELS", "ALGORITHMS", "DEFAULT_TIME", "derive_seed",
           "deal_seed", "deal_seeds", "game_seed", "option_value"]

ALGORITHMS = ("ismcts", "expectimax", "greedy", "random")
_SEARCHING = ("ismcts", "expectimax")

#: Named strengths, shared with ``jaipur-ai play --level``.
LEVELS = {
    "easy": "greedy",
    "medium": "ismcts:time=0.2",
    "hard": "ismcts:time=1",
    "max": "ismcts:time=3",
}

#: Seconds per move used when a searching engine is given no limit at all.
DEFAULT_TIME = 1.0

_MASK64 = (1 << 64) - 1


class SpecError(JaipurError):
    """An engine spec that cannot be read (a ValueError with field and reason)."""


# --------------------------------------------------------------------------- seeds
def _splitmix64(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def derive_seed(seed: int, *path: int) -> int:
    """A 64-bit seed from a base seed and a path of small integers (splitmix64).

    >>> derive_seed(1, 2, 3) == derive_seed(1, 2, 3) != derive_seed(1, 3, 2)
    True
    """
    x = _splitmix64(int(seed) & _MASK64)
    for p in path:
        x = _splitmix64(x ^ (int(p) & _MASK64))
    return x


def deal_seed(seed: int, deal: int) -> int:
    """The deal seed of deal ``deal`` of a match with seed ``seed``."""
    return derive_seed(seed, 0, deal)


def game_seed(seed: int, deal: int) -> int:
    """The seed of the searches in both games of deal ``deal`` of a match."""
    return derive_seed(seed, 1, deal)


def deal_seeds(seed: int, deals: int) -> list[int]:
    """The deal seeds of a match: deal ``i`` is ``deal_seed(seed, i)``."""
    return [deal_seed(seed, i) for i in range(deals)]


# --------------------------------------------------------------------- engine spec
def option_value(text: str) -> Any:
    """An option's value from its text, as in an engine spec or ``--option``:
    true/false/none words, then an int, a float, else the text itself.

    >>> option_value("yes"), option_value("12"), option_value("0.5"), option_value("random")
    (True, 12, 0.5, 'random')
    """
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("none", "null"):
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


_ALIASES = {"t": "time", "seconds": "time", "iters": "iterations", "it": "iterations",
            "n": "iterations"}


def _fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v)) if abs(v) < 1e15 else repr(v)
    return str(v)


@dataclass(frozen=True)
class EngineSpec:
    """An engine and its per-move limits, written compactly as
    ``ALGORITHM[:key=value,...]``.

    ``time`` (seconds per move) and ``iterations`` (per move) are the limits;
    every other key is passed to :class:`jaipur_ai.Engine` (``playout``,
    ``threads``, ``depth``, ...).  A level name (``easy``, ``medium``, ``hard``,
    ``max``) stands for its spec, and a bare number for ``ismcts:iterations=N``.

    >>> s = EngineSpec.parse("ismcts:iterations=5000,playout=random")
    >>> s.algorithm, s.iterations, s.time, s.options
    ('ismcts', 5000, None, {'playout': 'random'})
    >>> str(s)
    'ismcts:iterations=5000,playout=random'
    >>> str(EngineSpec.parse("hard"))
    'ismcts:time=1'
    >>> EngineSpec.parse("expectimax:time=0.5,depth=2").options
    {'depth': 2}
    """

    algorithm: str
    time: Optional[float] = None
    iterations: Optional[int] = None
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise SpecError("engine", f"unknown algorithm {self.algorithm!r} "
                                      f"(one of {', '.join(ALGORITHMS)})")
        # the limits and options of the one table (jaipur_ai.options)
        object.__setattr__(self, "time", check("time", self.time))
        object.__setattr__(self, "iterations", check("iterations", self.iterations))
        opts = dict(self.options)
        if "algorithm" in opts or "time" in opts or "iterations" in opts:
            k = next(k for k in ("algorithm", "time", "iterations") if k in opts)
            raise SpecError("engine", f"{k!r} is part of the spec itself, not an option")
        object.__setattr__(self, "options", check_engine_options(opts))

    @classmethod
    def parse(cls, text: Union[str, "EngineSpec"]) -> "EngineSpec":
        """Read ``ismcts:time=1``, ``greedy``, ``medium``, ``5000`` ...; each value is
        read as its option's type (jaipur_ai.options) and checked."""
        if isinstance(text, EngineSpec):
            return text
        if not isinstance(text, str) or not text.strip():
            raise SpecError("engine", f"expected an engine spec like 'ismcts:time=1', got "
                                      f"{describe(text)}")
        s = text.strip()
        low = s.lower()
        if low in LEVELS:
            return cls.parse(LEVELS[low])
        if low.isdigit():
            return cls("ismcts", iterations=parse_text("iterations", low))
        algo, _, rest = s.partition(":")
        algo = algo.strip().lower()
        if algo in LEVELS:
            raise SpecError("engine", f"{algo!r} is a level, which takes no options: write "
                                      f"{algo!r} alone, or the spec it stands for "
                                      f"({LEVELS[algo]!r}) with options added")
        if algo not in ALGORITHMS:
            raise SpecError("engine", f"unknown algorithm {algo[:40]!r} "
                                      f"(one of {', '.join(ALGORITHMS)}, or a level: "
                                      f"{', '.join(LEVELS)})")
        limits: dict[str, Any] = {"time": None, "iterations": None}
        options: dict[str, Any] = {}
        seen: set[str] = set()
        for item in filter(None, (x.strip() for x in rest.split(","))):
            key, eq, val = item.partition("=")
            key = key.strip().lower().replace("-", "_")
            val = val.strip()
            if not eq or not key or not val:
                raise SpecError("engine", f"expected key=value, got {item[:40]!r}")
            key = _ALIASES.get(key, key)
            if key in seen:         # (the last would win silently: say so instead)
                raise SpecError(key, "given twice in one spec")
            seen.add(key)
            if key == "algorithm":
                raise SpecError("algorithm", f"named before the colon ({algo}:...), not as "
                                             "an option")
            if key == "time":
                limits["time"] = parse_text("time", val[:-1] if val.endswith("s") else val)
            elif key == "iterations":
                limits["iterations"] = parse_text("iterations", val)
            elif key in SPEC_OPTIONS and key not in ("algorithm",):
                used_by = option(key).algorithms
                if used_by and algo not in used_by:     # (it would be ignored silently)
                    raise SpecError(key, f"not an option of {algo}: only of "
                                         f"{', '.join(used_by)}")
                options[key] = parse_text(key, val)
            else:
                raise unknown(key)
        return cls(algo, limits["time"], limits["iterations"], options)

    def __str__(self) -> str:
        parts = []
        if self.time is not None:
            parts.append(f"time={_fmt_value(self.time)}")
        if self.iterations is not None:
            parts.append(f"iterations={self.iterations}")
        parts += [f"{k}={_fmt_value(v)}" for k, v in self.options.items()]
        return self.algorithm + (":" + ",".join(parts) if parts else "")

    def __hash__(self) -> int:
        return hash(str(self))

    @property
    def searches(self) -> bool:
        return self.algorithm in _SEARCHING

    @property
    def cheats(self) -> bool:
        """``perfect_information=true``: the engine sees the hidden cards."""
        return bool(self.options.get("perfect_information"))

    @property
    def deterministic(self) -> bool:
        """Whether a seed fixes every move (no time limit on a search)."""
        return not (self.searches and self.limits()["time"] is not None)

    def limits(self) -> dict[str, Any]:
        """``time``/``iterations`` for :meth:`Engine.best_move` (a default time
        of :data:`DEFAULT_TIME` seconds for a search given no limit)."""
        t, n = self.time, self.iterations
        if self.searches and t is None and n is None:
            t = DEFAULT_TIME
        return {"time": t, "iterations": n}

    def make_engine(self) -> Any:
        """A fresh :class:`jaipur_ai.Engine` for this spec."""
        try:
            from jaipur_ai.search.engine import Engine
        except ImportError as e:  # pragma: no cover - only while the search is missing
            raise SpecError("engine", f"the search engine is not available: {e}") from None
        try:
            return Engine.from_options(self.algorithm, **self.options)
        except TypeError as e:
            m = re.search(r"unexpected keyword argument '(\w+)'", str(e))
            if m:
                raise SpecError("engine", f"{self}: {m.group(1)!r} is not an engine "
                                          f"option") from None
            raise SpecError("engine", f"{self}: {e}") from None
        except JaipurError:
            raise
        except ValueError as e:
            raise SpecError("engine", f"{self}: {e}") from None

    def to_dict(self) -> dict[str, Any]:
        return {"spec": str(self), "algorithm": self.algorithm, "time": self.time,
                "iterations": self.iterations, "options": dict(self.options)}

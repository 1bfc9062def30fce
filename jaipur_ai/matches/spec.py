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
import time
from dataclasses import dataclass, field
from typing import Any, Optional, Union

from jaipur_ai.errors import InvalidOptionError, JaipurError
from jaipur_ai.options import (SPEC_OPTIONS, check, check_applicable, check_clock,
                               check_engine_options, describe, parse_text, unknown)

__all__ = ["EngineSpec", "RoundClock", "SpecError", "LEVELS", "ALGORITHMS", "DEFAULT_TIME",
           "derive_seed", "deal_seed", "deal_seeds", "game_seed", "option_value"]

ALGORITHMS = ("ismcts", "expectimax", "pimc", "greedy", "random", "ply1")
_SEARCHING = ("ismcts", "expectimax", "pimc")

def _levels() -> dict[str, str]:
    from jaipur_ai.search.levels import level, names
    return {name: level(name).spec for name in names()}


#: The levels by name (the rated ladder, weakest first, then its aliases: easy,
#: medium, hard), each the spec it stands for; ``jaipur-ai levels`` lists them.
LEVELS = _levels()

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


_SPEC_KEYS = ("algorithm", "time", "iterations", "clock", "time_left", "increment")


def _parse_clock(text: str) -> tuple[float, float]:
    """``clock=60+0.5`` (60 s a round, 0.5 s added after each move) or ``clock=60``."""
    base, plus, inc = text.partition("+")
    if plus and not inc.strip():
        raise SpecError("clock", f"expected SECONDS or SECONDS+INCREMENT, got {text[:40]!r}")
    try:
        return (parse_text("time_left", base.rstrip("s ")),
                parse_text("increment", inc.rstrip("s ")) if plus else 0.0)
    except InvalidOptionError as e:
        raise SpecError("clock", f"expected SECONDS or SECONDS+INCREMENT ({e.reason}), "
                                 f"got {text[:40]!r}") from None


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

    ``time`` (seconds per move) and ``iterations`` (per move) are the limits, or
    ``clock=S+I`` (S seconds a round, I added after each move: :class:`RoundClock`);
    every other key is passed to :class:`jaipur_ai.Engine` (``playout``,
    ``threads``, ``depth``, ...).  A level's name (``1`` to ``7``, ``max``, or
    ``easy``, ``medium``, ``hard``: ``jaipur-ai levels``) stands for its spec, and any
    other bare number for ``ismcts:iterations=N``; ``level=3`` or ``elo=1500`` among
    the options gives that level's (or point's) iterations and temperature.

    >>> s = EngineSpec.parse("ismcts:iterations=5000,playout=random")
    >>> s.algorithm, s.iterations, s.time, s.options
    ('ismcts', 5000, None, {'playout': 'random'})
    >>> str(s)
    'ismcts:iterations=5000,playout=random'
    >>> str(EngineSpec.parse("hard"))
    'ismcts:iterations=1000'
    >>> EngineSpec.parse("expectimax:time=0.5,depth=2").options
    {'depth': 2}
    """

    algorithm: str
    time: Optional[float] = None
    iterations: Optional[int] = None
    options: dict[str, Any] = field(default_factory=dict)
    clock: Optional[tuple[float, float]] = None

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise SpecError("engine", f"unknown algorithm {self.algorithm!r} "
                                      f"(one of {', '.join(ALGORITHMS)})")
        # the limits and options of the one table (jaipur_ai.options)
        object.__setattr__(self, "time", check("time", self.time))
        object.__setattr__(self, "iterations", check("iterations", self.iterations))
        if self.clock is not None:
            if not isinstance(self.clock, (tuple, list)) or len(self.clock) != 2:
                raise SpecError("clock", f"expected (seconds, increment), got "
                                         f"{describe(self.clock)}")
            if self.time is not None:
                raise SpecError("clock", "a clock and a fixed time per move together: "
                                         "give clock= or time=, not both")
            try:
                base, inc = check_clock(*self.clock)
            except InvalidOptionError as e:
                raise SpecError("clock", f"{e.field}: {e.reason}") from None
            object.__setattr__(self, "clock", None if base is None else (base, inc))
        opts = dict(self.options)
        if any(k in opts for k in _SPEC_KEYS):
            k = next(k for k in _SPEC_KEYS if k in opts)
            raise SpecError("engine", f"{k!r} is part of the spec itself, not an option")
        opts = check_engine_options(opts)
        check_applicable(self.algorithm, opts)      # (as parse: an option it would ignore)
        object.__setattr__(self, "options", opts)

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
            elif key == "clock":
                limits["clock"] = _parse_clock(val)
            elif key == "iterations":
                limits["iterations"] = parse_text("iterations", val)
            elif key in SPEC_OPTIONS and key not in ("algorithm",):
                options[key] = parse_text(key, val)
            else:
                raise unknown(key)
        try:                                # (an option it would ignore silently)
            check_applicable(algo, options)
        except InvalidOptionError as e:
            raise SpecError(e.field, e.reason) from None
        if "level" in options or "elo" in options:      # (a level is a limit and a
            from jaipur_ai.search.levels import for_level       # temperature)
            try:
                given = options.get("evaluation", "learned")
                its, temp, ev = for_level(
                    options.pop("level", None), options.pop("elo", None),
                    limited=limits["time"] is not None or limits["iterations"] is not None
                    or limits.get("clock") is not None,
                    temperature=options.get("temperature"), algorithm=algo,
                    perfect_information=bool(options.get("perfect_information")),
                    evaluation=given, weights=options.get("weights"))
            except InvalidOptionError as e:
                raise SpecError(e.field, e.reason) from None
            if its is not None:
                limits["iterations"] = its
            if temp:
                options["temperature"] = temp
            if ev != given:                  # (the evaluation the ladder was rated with)
                options["evaluation"] = ev
        return cls(algo, limits["time"], limits["iterations"], options,
                   limits.get("clock"))

    def __str__(self) -> str:
        parts = []
        if self.time is not None:
            parts.append(f"time={_fmt_value(self.time)}")
        if self.clock is not None:
            base, inc = self.clock
            parts.append(f"clock={_fmt_value(base)}" + (f"+{_fmt_value(inc)}" if inc else ""))
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
        """Whether a seed fixes every move (no time limit or clock on a search)."""
        return not (self.searches and (self.limits()["time"] is not None
                                       or self.clock is not None))

    def limits(self) -> dict[str, Any]:
        """``time``/``iterations`` for :meth:`Engine.best_move` (a default time
        of :data:`DEFAULT_TIME` seconds for a search given no limit nor clock; a
        clock's limits are :class:`RoundClock`'s)."""
        t, n = self.time, self.iterations
        if self.searches and t is None and n is None and self.clock is None:
            t = DEFAULT_TIME
        return {"time": t, "iterations": n}

    def fixed_limits(self, where: str) -> dict[str, Any]:
        """:meth:`limits`, for a player that searches each move with fixed limits
        (``where``, e.g. "the gymnasium opponent"): a spec with a clock is a SpecError."""
        if self.clock is not None:
            raise SpecError("clock", f"{where} searches each move with a fixed limit: "
                                     "give time= or iterations=, not clock=")
        return self.limits()

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
                "iterations": self.iterations, "options": dict(self.options),
                "clock": None if self.clock is None else list(self.clock)}


class RoundClock:
    """The clock of one engine over a round, kept by whoever plays it (a match, a game
    at the command line or in the browser): the limits of each move's search, and the
    time a move took taken off the clock after it, the increment added.

    The clock starts each round full (:meth:`new_round`; a game resumed from a record
    too).  A move that takes longer than the time left is counted in ``overtime``; the
    round goes on, the clock at 0 plus the increment.  An engine without a clock gets
    its spec's fixed limits.

    >>> c = RoundClock(EngineSpec.parse("ismcts:clock=2+0.1"))
    >>> c.limits()
    {'time': None, 'iterations': None, 'time_left': 2.0, 'increment': 0.1}
    >>> c.spent(0.5); round(c.left, 3)
    1.6
    >>> RoundClock(EngineSpec.parse("ismcts:time=1")).limits()
    {'time': 1.0, 'iterations': None}
    """

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.overtime = 0
        self.left: Optional[float] = None
        self.new_round()

    def new_round(self) -> None:
        self.left = (self.spec.clock[0] if self.spec.clock is not None and
                     self.spec.searches else None)

    def limits(self) -> dict[str, Any]:
        """The keyword arguments of :meth:`jaipur_ai.Engine.best_move` for the next move."""
        lim = self.spec.limits()
        if self.left is not None and self.spec.clock is not None:
            lim.update(time_left=self.left, increment=self.spec.clock[1])
        return lim

    def best_move(self, engine: Any, position: Any, seed: Optional[int]) -> tuple[Any, float]:
        """``engine.best_move(position)`` within this clock's limits, and the seconds it
        took, taken off the clock."""
        t0 = time.perf_counter()
        move = engine.best_move(position, seed=seed, **self.limits())
        seconds = time.perf_counter() - t0
        self.spent(seconds)
        return move, seconds

    def spent(self, seconds: float) -> None:
        """A move took ``seconds``."""
        if self.left is None or self.spec.clock is None:
            return
        if seconds > self.left:
            self.overtime += 1
        self.left = max(0.0, self.left - seconds) + self.spec.clock[1]

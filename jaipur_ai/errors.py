"""Typed errors raised by jaipur_ai.

Every error is a :class:`ValueError`, so ``except ValueError`` catches bad input,
and names *what* is wrong (``field``) and *why* (``reason``).
"""
from __future__ import annotations

import math
import numbers
import reprlib
from typing import Any

__all__ = [
    "JaipurError",
    "InvalidPositionError",
    "InvalidMoveError",
    "IllegalMoveError",
    "InvalidOptionError",
    "InvalidWeightsError",
    "InvalidDataError",
    "MissingExtraError",
    "safe_repr",
    "describe",
    "is_bool",
]

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = 60
_REPR.maxother = 60


def _np_bool() -> type:
    try:
        import numpy
        return numpy.bool_
    except ImportError:  # pragma: no cover
        return bool


def is_bool(value: Any) -> bool:
    """Whether ``value`` is a boolean, Python's or numpy's."""
    return isinstance(value, (bool, _np_bool()))


def describe(value: Any) -> str:
    """A value as the user wrote it, whichever door it came through: ``true``, ``null``,
    numbers as digits, texts in double quotes, other objects by their type."""
    if value is None:
        return "null"
    if is_bool(value):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        s = str(int(value))
        return s if len(s) <= 30 else f"a {len(s)}-digit number"
    if isinstance(value, numbers.Real):
        f = float(value)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        # (a number is the same number through every door: 2 and 2.0 read alike)
        return str(int(f)) if f.is_integer() and abs(f) < 1e16 else repr(f)
    if isinstance(value, str):
        s = value if len(value) <= 40 else value[:37] + "..."
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"a {type(value).__name__}"


def safe_repr(value: Any) -> str:
    """``repr(value)`` for an error message: short, and safe for any input (a list
    nested 100,000 deep is ``[[[[...]]]]``, not a RecursionError).

    >>> safe_repr("x" * 100)[:12], safe_repr([[[[[1]]]]])
    ("'xxxxxxxxxxx", '[[[[...]]]]')
    """
    try:
        return _REPR.repr(value)
    except Exception:  # noqa: BLE001 - a repr that fails must not hide the error
        return f"a {type(value).__name__}"


class JaipurError(ValueError):
    """Base class of every error the library raises for bad input."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")

    def __reduce__(self) -> Any:
        # pickled as what it holds, whatever a subclass's __init__ takes: an error
        # raised in a worker process (a match's pool, a Ray task) comes back as itself
        return (_rebuild, (type(self), dict(self.__dict__)))


def _rebuild(cls: "type[JaipurError]", state: dict[str, Any]) -> "JaipurError":
    err = cls.__new__(cls)
    ValueError.__init__(err, f"{state.get('field')}: {state.get('reason')}")
    err.__dict__.update(state)
    return err


class InvalidPositionError(JaipurError):
    """A position (state or view) that cannot exist in a game of Jaipur.

    >>> err = InvalidPositionError("players[0].hand", "8 goods in hand, the limit is 7")
    >>> str(err)
    'players[0].hand: 8 goods in hand, the limit is 7'
    """


class InvalidMoveError(JaipurError):
    """A move text that is not a move of Jaipur at all; ``by_rule``: the text reads as a
    move that no rule allows (``sell 1S``), rather than text that is no move."""

    def __init__(self, text: str, reason: str, by_rule: bool = False) -> None:
        self.text = text
        self.by_rule = by_rule
        shown = text if len(text) <= 80 else text[:60] + f"... ({len(text)} characters)"
        super().__init__("move", f"{shown!r}: {reason}")


class IllegalMoveError(InvalidMoveError):
    """A well-formed move that the rules do not allow in this position."""


class InvalidOptionError(JaipurError):
    """An engine option or a search limit outside its domain.

    >>> str(InvalidOptionError("threads", "must be an int >= 1, got 0"))
    'threads: must be an int >= 1, got 0'
    """


class InvalidWeightsError(JaipurError):
    """A learned-evaluation weights file that is missing, unreadable or does not match
    this version's features; ``field`` is the file.

    >>> str(InvalidWeightsError("my.npz", "no such file"))
    'my.npz: no such file'
    """


class InvalidDataError(JaipurError):
    """Self-play shards for training that are missing, unreadable or of another feature
    set than the rest; ``field`` is the file or folder.

    >>> str(InvalidDataError("runs/gen0", "no shards (*.npz files)"))
    'runs/gen0: no shards (*.npz files)'
    """


class MissingExtraError(JaipurError):
    """A feature that needs an optional dependency which is not installed; ``field`` is
    the feature, ``reason`` says which extra installs it.

    >>> str(MissingExtraError("plot", 'needs matplotlib: pip install "jaipur-ai[plot]"'))
    'plot: needs matplotlib: pip install "jaipur-ai[plot]"'
    """

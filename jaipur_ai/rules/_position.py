"""What states and views share: the value base class (equality, hashing, repr, pickling
and JSON, all through the canonical one-line text form) and the table's public fields."""
from __future__ import annotations

import json
from typing import Any, Generic, Optional, TypeVar, Union

from jaipur_ai.rules import _fields as F
from jaipur_ai.rules._bridge import CoreState, CoreView
from jaipur_ai.rules._cards import BONUS_SET_IDS, GOODS, LETTERS, TOKENS
from jaipur_ai.rules._notation import RESULT_CORE

P = TypeVar("P", bound="TextValue[Any]")
C = TypeVar("C", CoreState, CoreView)     # the compiled object a position wraps

_CORE_RESULT = {v: k for k, v in RESULT_CORE.items()}
_BONUS_SET_NAMES = {v: k for k, v in BONUS_SET_IDS.items()}


class TextValue(Generic[C]):
    """Base of GameState and View: a value identified by its one-line text form.

    Subclasses hold the compiled object in ``_core`` and define ``to_dict``,
    ``from_dict``, ``to_text`` and ``from_text``."""

    __slots__ = ("_core",)
    _CORE: Any = object          # the compiled type a subclass wraps
    _BUILD = ""                  # how to build one, for the constructor's error

    def __init__(self, core: Any = None) -> None:
        """``GameState(text)`` / ``View(text)`` read the one-line text (or JSON) form, as
        ``from_text``/``from_json`` do; anything else is a TypeError that says what to
        call."""
        if isinstance(core, str):
            cls = type(self)
            read = cls.from_json if core.lstrip().startswith("{") else cls.from_text
            core = read(core).core_object()
        elif not isinstance(core, self._CORE):
            name = type(self).__name__
            raise TypeError(f"{name}() takes a position's text form; build one with "
                            f"{self._BUILD}{name}.from_text(text), {name}.from_json(text) or "
                            f"{name}.from_dict(d)")
        self._core: C = core

    def core_object(self) -> C:
        """The compiled object behind this position (for the search)."""
        return self._core

    @property
    def _raw(self) -> dict[str, Any]:
        return self._core.raw()

    # What both a full state and a view show of the table.
    @property
    def to_move(self) -> int:
        return int(self._raw["to_move"])

    @property
    def round(self) -> int:
        return int(self._raw["round_no"])

    @property
    def seals(self) -> tuple[int, int]:
        s0, s1 = self._raw["seals"]
        return int(s0), int(s1)

    @property
    def result(self) -> Union[None, int, str]:
        """``None`` while the round runs, then 0 or 1 (who won the seal) or ``"draw"``."""
        return _CORE_RESULT[self._raw["result"]]

    @property
    def is_round_over(self) -> bool:
        return bool(self._raw["result"] != -1)

    @property
    def bonus_set(self) -> str:
        return _BONUS_SET_NAMES[self._raw["bonus_set"]]

    @property
    def market(self) -> str:
        return F.letters(self._raw["market"])

    @property
    def discard(self) -> str:
        return F.letters(self._raw["discard"])

    @property
    def tokens(self) -> dict[str, tuple[int, ...]]:
        """What is left of each goods-token stack, top first."""
        raw = self._raw
        return {LETTERS[g]: TOKENS[g][raw["tok_pos"][g]:] for g in range(GOODS)}

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def from_dict(cls: type[P], d: Any) -> P:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_text(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def from_text(cls: type[P], text: str) -> P:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_json(self, indent: Optional[int] = None) -> str:
        """The JSON form (docs/notation.md)."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls: type[P], text: str) -> P:
        """Read and validate the JSON form; any failure is InvalidPositionError."""
        return cls.from_dict(F.load_json(text))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_text() == other.to_text()

    def __hash__(self) -> int:
        return hash(self.to_text())

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_text({self.to_text()!r})"

    def __getstate__(self) -> dict[str, Any]:
        return {"text": self.to_text()}

    def __setstate__(self, st: dict[str, Any]) -> None:
        self._core = type(self).from_text(st["text"])._core

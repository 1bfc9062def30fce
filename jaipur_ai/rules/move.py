"""The :class:`Move` value type: one move of Jaipur, its text and its action id.

A move is one of four kinds (see ``docs/notation.md``)::

    take X                take one good from the market
    camels                take all camels from the market
    sell nX               sell n cards of one good
    swap TAKEN for GIVEN  exchange: take k >= 2 goods, give back k cards

A :class:`Move` only checks the *shape* of a move (a sale of 1 diamond, or a swap
that gives back a type it takes, is never a move); whether a move is legal in a
position is for the game state to say.

>>> m = Move.parse("Sell 3 leather")
>>> m
Move.parse('sell 3L')
>>> str(m), m.kind, m.good, m.count, m.action_id
('sell 3L', 'sell', 5, 3, 44)
>>> Move.from_action_id(44) == m == Move.sell("L", 3)
True
>>> sorted([Move.parse("DG>LM"), Move.camels(), Move.take("G")])
[Move.parse('take G'), Move.parse('camels'), Move.parse('swap DG for LM')]
"""
from __future__ import annotations

import functools
import types
from math import comb
from typing import Any, Optional, Sequence, Union, cast

from jaipur_ai.errors import InvalidMoveError, safe_repr
from jaipur_ai.rules import _move_text as T
from jaipur_ai.rules._cards import CARD_TOTALS, GOODS, LETTERS, NAMES, TYPES
from jaipur_ai.rules import _observation

__all__ = ["Move", "N_ACTIONS"]

KINDS = ("take", "camels", "sell", "swap")

# ---------------------------------------------------------------------------
# Action-id layout (docs/notation.md, "Action ids")

_TAKE_BASE = 0          # 0..5: take X
_CAMELS_ID = 6          # 6: camels
_SELL_BASE = 7          # 7 + 7*X + (n-1): sell nX, n = 1..7
_SWAP_BASE = 49         # 49 + OFF[k] + rankT*NG[k] + rankG
_SELL_MAX, _SWAP_MIN, _SWAP_MAX = T.SELL_MAX, T.SWAP_MIN, T.SWAP_MAX

NT = {k: comb(k + GOODS - 1, GOODS - 1) for k in range(_SWAP_MIN, _SWAP_MAX + 1)}
NG = {k: comb(k + TYPES - 1, TYPES - 1) for k in range(_SWAP_MIN, _SWAP_MAX + 1)}
OFF = {_SWAP_MIN: 0}
for _k in range(_SWAP_MIN, _SWAP_MAX):
    OFF[_k + 1] = OFF[_k] + NT[_k] * NG[_k]
N_ACTIONS = _SWAP_BASE + OFF[_SWAP_MAX] + NT[_SWAP_MAX] * NG[_SWAP_MAX]
"""Size of the action space: ``N_ACTIONS == 148225``."""
assert N_ACTIONS == 148225
del _k


@functools.lru_cache(maxsize=None)
def _vectors(k: int, n: int) -> tuple[tuple[int, ...], ...]:
    """All vectors of ``n`` counts summing to ``k``, in ascending lexicographic order.

    Equal to ``sorted(v for v in itertools.product(range(k+1), repeat=n) if sum(v) == k)``.

    >>> _vectors(2, 3)
    ((0, 0, 2), (0, 1, 1), (0, 2, 0), (1, 0, 1), (1, 1, 0), (2, 0, 0))
    """
    if n == 1:
        return ((k,),)
    return tuple((first,) + rest for first in range(k + 1) for rest in _vectors(k - first, n - 1))


@functools.lru_cache(maxsize=None)
def _ranks(k: int, n: int) -> dict[tuple[int, ...], int]:
    """Vector -> its rank (index) in :func:`_vectors`."""
    return {v: i for i, v in enumerate(_vectors(k, n))}


# ---------------------------------------------------------------------------
# The Move type

class _Hybrid:
    """``Move.take(...)`` is a constructor; ``move.take`` is the taken counts."""

    def __init__(self, constructor: Any, attr: str) -> None:
        self.constructor = constructor
        self.attr = attr
        self.__doc__ = constructor.__doc__

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return types.MethodType(self.constructor, objtype)
        return getattr(obj, self.attr)


# Decoded moves by action id: a Move is immutable, so each id is decoded once (the ids
# that ever occur are a few thousand; GameState.legal_moves() reads them from here).
_BY_ID: "dict[int, Move]" = {}

_ZERO6 = (0,) * GOODS
_ZERO7 = (0,) * TYPES


class Move:
    """One move of Jaipur; immutable and hashable, ordered by :attr:`action_id`.

    Build one with :meth:`take`, :meth:`camels`, :meth:`sell`, :meth:`swap`,
    :meth:`parse` or :meth:`from_action_id`.

    >>> m = Move.swap("DG", "LM")
    >>> m
    Move.parse('swap DG for LM')
    >>> m.kind, m.good, m.count
    ('swap', None, 2)
    >>> m.take, m.give
    ((1, 1, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1, 1))
    >>> m == Move.parse("trade gold + diamond for camel, leather")
    True
    >>> m.action_id
    582
    >>> eval(repr(m)) == m
    True
    """

    __slots__ = ("_kind", "_good", "_count", "_take", "_give", "_id")
    _kind: str
    _good: Optional[int]
    _count: int
    _take: tuple[int, ...]
    _give: tuple[int, ...]
    _id: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("build a Move with Move.take, Move.camels, Move.sell, Move.swap, "
                        "Move.parse or Move.from_action_id")

    @classmethod
    def _make(cls, kind: str, good: Optional[int], count: int,
              take: Optional[Sequence[int]], give: Optional[Sequence[int]]) -> "Move":
        """Build a move whose shape has already been checked."""
        self = object.__new__(cls)
        take = _ZERO6 if take is None else tuple(take)
        give = _ZERO7 if give is None else tuple(give)
        if kind == "take" and good is not None:
            aid = _TAKE_BASE + good
        elif kind == "camels":
            aid = _CAMELS_ID
        elif kind == "sell" and good is not None:
            aid = _SELL_BASE + _SELL_MAX * good + (count - 1)
        else:
            aid = (_SWAP_BASE + OFF[count] + _ranks(count, GOODS)[take] * NG[count]
                   + _ranks(count, TYPES)[give])
        for name, value in (("_kind", kind), ("_good", good), ("_count", count),
                            ("_take", take), ("_give", give), ("_id", aid)):
            object.__setattr__(self, name, value)
        return self

    # -- constructors -------------------------------------------------------

    def _take_constructor(cls, good: Union[int, str]) -> "Move":
        """Take one good from the market: ``Move.take(good)``.

        ``good`` is a letter, a name or a goods type 0..5. On an instance, ``move.take``
        is instead the tuple of 6 goods counts taken by a swap (zeros otherwise).

        >>> Move.take("D") == Move.take("diamond") == Move.take(0)
        True
        >>> Move.take("d").action_id, Move.take("L").take
        (0, (0, 0, 0, 0, 0, 0))
        >>> Move.take("M")
        Traceback (most recent call last):
        ...
        jaipur_ai.errors.InvalidMoveError: move: "Move.take('M')": take camels with 'camels' (all of them), not 'take'
        """
        try:
            t = T.good_type(good, "take")
        except T.Reject as e:
            raise InvalidMoveError(f"Move.take({safe_repr(good)})", e.reason) from None
        return cls._make("take", t, 1, None, None)

    take = _Hybrid(_take_constructor, "_take")
    del _take_constructor

    @classmethod
    def camels(cls) -> "Move":
        """Take all camels from the market.

        >>> Move.camels(), Move.camels().action_id, Move.camels().count
        (Move.parse('camels'), 6, 0)
        """
        return cls._make("camels", None, 0, None, None)

    @classmethod
    def sell(cls, good: Union[int, str], n: int) -> "Move":
        """Sell ``n`` cards of one good (``n`` in 1..7; diamond, gold, silver need 2).

        >>> Move.sell("leather", 3)
        Move.parse('sell 3L')
        >>> Move.sell("D", 1)
        Traceback (most recent call last):
        ...
        jaipur_ai.errors.InvalidMoveError: move: "Move.sell('D', 1)": diamond needs a sale of at least 2 cards
        """
        try:
            t = T.good_type(good, "sell")
            n = T.as_int(n, "the number of cards sold")
            T.check_sell(t, n)
        except T.Reject as e:
            raise InvalidMoveError(f"Move.sell({safe_repr(good)}, {safe_repr(n)})", e.reason) from None
        return cls._make("sell", t, n, None, None)

    @classmethod
    def swap(cls, take: Any, give: Any) -> "Move":
        """Exchange: take the goods ``take`` from the market, give back ``give``.

        Each is card text (``"DG"``, ``"LM"``) or a sequence of 6 or 7 counts by type.

        >>> Move.swap([0, 0, 0, 2, 0, 0], [0, 0, 0, 0, 0, 1, 1])
        Move.parse('swap CC for LM')
        >>> Move.swap("DG", "DM")
        Traceback (most recent call last):
        ...
        jaipur_ai.errors.InvalidMoveError: move: "Move.swap('DG', 'DM')": a swap cannot give back a type it takes (D)
        """
        try:
            t6 = T.counts(take, GOODS, "take")
            g7 = T.counts(give, TYPES, "give")
            T.check_swap(t6, g7)
        except T.Reject as e:
            raise InvalidMoveError(f"Move.swap({safe_repr(take)}, {safe_repr(give)})", e.reason) from None
        return cls._make("swap", None, sum(t6), t6, g7)

    @classmethod
    def parse(cls, text: str, hand: Optional[Sequence[int]] = None) -> "Move":
        """Read a move from text; forgiving about case, spaces, names and synonyms.

        ``hand``: the mover's 7 counts by type (goods, then the herd as camels), where
        known, to read ``all`` ("sell all leather"); without it "all" is an error, since
        the text alone does not say how many cards it means.

        >>> Move.parse("take diamonds")
        Move.parse('take D')
        >>> Move.parse("  SELL  LLL ")
        Move.parse('sell 3L')
        >>> Move.parse("exchange dg-lm") == Move.parse("DG/LM") == Move.parse("swap DG LM")
        True
        >>> Move.parse("take camels")
        Move.parse('camels')
        >>> Move.parse("take X")
        Traceback (most recent call last):
        ...
        jaipur_ai.errors.InvalidMoveError: move: 'take X': unknown card letter 'X'
        >>> Move.parse("sell all leather", hand=(0, 0, 0, 0, 0, 3, 2))
        Move.parse('sell 3L')
        """
        if not isinstance(text, str):
            raise InvalidMoveError(safe_repr(text), f"a move text must be a str, "
                                               f"got {type(text).__name__}")
        try:
            return cls._make(*T.parse(text, None if hand is None else T.check_hand(hand)))
        except T.Reject as e:
            raise InvalidMoveError(text, e.reason, e.by_rule) from None

    @classmethod
    def coerce(cls, move: "Union[Move, str, int]",
               hand: Optional[Sequence[int]] = None) -> "Move":
        """``move`` as a Move: a Move itself, its text (read by :meth:`parse`, with
        ``hand``) or its action id (:meth:`from_action_id`); anything else is an
        :class:`InvalidMoveError`.

        >>> m = Move.parse("take D")
        >>> Move.coerce("take D") == Move.coerce(m) == Move.coerce(m.action_id) == m
        True
        """
        if isinstance(move, Move):
            return move
        if isinstance(move, int) and not isinstance(move, bool):
            return cls.from_action_id(move)
        # (anything else that is not a move text is refused by parse, typed)
        return cls.parse(cast(str, move), hand=hand)

    @classmethod
    def from_action_id(cls, action_id: int) -> "Move":
        """The move with this action id (see ``docs/notation.md``).

        >>> Move.from_action_id(0), Move.from_action_id(48), Move.from_action_id(49)
        (Move.parse('take D'), Move.parse('sell 7L'), Move.parse('swap LL for MM'))
        >>> Move.from_action_id(7)
        Traceback (most recent call last):
        ...
        jaipur_ai.errors.InvalidMoveError: move: 'action id 7': diamond needs a sale of at least 2 cards
        """
        if type(action_id) is int and cls is Move:
            m = _BY_ID.get(action_id)
            if m is not None:
                return m
        try:
            i = T.as_int(action_id, "an action id")
        except T.Reject as e:
            raise InvalidMoveError(repr(action_id), e.reason) from None
        try:
            m = cls._decode(i)
        except T.Reject as e:
            raise InvalidMoveError(f"action id {i}", e.reason) from None
        if cls is Move:
            _BY_ID[i] = m
        return m

    @classmethod
    def _of_ids(cls, ids: "list[int]") -> "list[Move]":
        """The moves of legal action ids (from the core), decoded once per id."""
        get = _BY_ID.get
        return [get(a) or cls.from_action_id(a) for a in ids]

    @classmethod
    def _decode(cls, i: int) -> "Move":
        if not 0 <= i < N_ACTIONS:
            raise T.Reject(f"out of range 0..{N_ACTIONS - 1}")
        if i < _CAMELS_ID:
            return cls._make("take", i - _TAKE_BASE, 1, None, None)
        if i == _CAMELS_ID:
            return cls.camels()
        if i < _SWAP_BASE:
            t, n1 = divmod(i - _SELL_BASE, _SELL_MAX)
            T.check_sell(t, n1 + 1)
            return cls._make("sell", t, n1 + 1, None, None)
        r = i - _SWAP_BASE
        k = max(k for k in OFF if OFF[k] <= r)
        rank_t, rank_g = divmod(r - OFF[k], NG[k])
        take, give = _vectors(k, GOODS)[rank_t], _vectors(k, TYPES)[rank_g]
        T.check_swap(take, give)
        return cls._make("swap", None, k, take, give)

    # -- attributes ---------------------------------------------------------

    @property
    def kind(self) -> str:
        """``"take"``, ``"camels"``, ``"sell"`` or ``"swap"``."""
        return self._kind

    @property
    def good(self) -> Optional[int]:
        """The goods type (0..5) taken or sold; ``None`` for camels and swaps."""
        return self._good

    @property
    def count(self) -> int:
        """Cards sold or swapped; 1 for take, 0 for camels."""
        return self._count

    @property
    def give(self) -> tuple[Any, ...]:
        """The 7 counts by type (camels last) a swap gives back; zeros otherwise."""
        return self._give

    @property
    def action_id(self) -> int:
        """The move's id in ``range(N_ACTIONS)``."""
        return self._id

    @property
    def dense_index(self) -> int:
        """The move's id in the dense action space of the moves some position allows
        (``jaipur_ai.rules.encoding``; docs/notation.md, "Dense action index").

        >>> Move.parse("take D").dense_index, Move.parse("sell 2D").dense_index
        (0, 7)
        >>> Move.sell("D", 7).dense_index
        Traceback (most recent call last):
        ...
        jaipur_ai.errors.InvalidMoveError: move: 'sell 7D': no position allows it (there are 6 diamond cards)
        """
        d = _observation.dense_from_action(self._id)
        if d < 0:
            good = self._good
            if good is None:     # (cannot happen: taking the camels has a dense id)
                raise InvalidMoveError(str(self), "no position allows it")
            raise InvalidMoveError(str(self), f"no position allows it (there are "
                                              f"{CARD_TOTALS[good]} {NAMES[good]} cards)")
        return d

    @classmethod
    def from_dense_index(cls, index: int) -> "Move":
        """The move of a dense id (see :attr:`dense_index`).

        >>> Move.from_dense_index(7)
        Move.parse('sell 2D')
        """
        try:
            i = int(index)
        except (TypeError, ValueError):
            raise InvalidMoveError(repr(index), "not a dense action id") from None
        if i != index or not 0 <= i < _observation.N_DENSE_PY:
            raise InvalidMoveError(f"dense id {index!r}",
                                   f"out of range 0..{_observation.N_DENSE_PY - 1}")
        return cls.from_action_id(_observation.action_from_dense(i))

    # -- value behaviour ----------------------------------------------------

    def __str__(self) -> str:
        kind, good = self._kind, self._good
        if kind == "take" and good is not None:
            return f"take {LETTERS[good]}"
        if kind == "camels":
            return "camels"
        if kind == "sell" and good is not None:
            return f"sell {self._count}{LETTERS[good]}"
        taken = "".join(LETTERS[t] * c for t, c in enumerate(self._take))
        given = "".join(LETTERS[t] * c for t, c in enumerate(self._give))
        return f"swap {taken} for {given}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._id == other._id
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._id != other._id
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._id < other._id
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._id <= other._id
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._id > other._id
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if isinstance(other, Move):
            return self._id >= other._id
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._id)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Move is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Move.from_action_id, (self._id,))

    def __copy__(self) -> "Move":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "Move":
        return self

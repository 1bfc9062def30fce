"""Reusable hypothesis strategies for jaipur_ai tests.

Keep one section per value type, each strategy with a one-line docstring.
"""
from __future__ import annotations

from hypothesis import strategies as st

from jaipur_ai._cards import CAMEL, GOODS, TYPES
from jaipur_ai.move import Move

__all__ = ["moves"]


# ---------------------------------------------------------------------------
# Moves (jaipur_ai.move)

def _counts(types: list[int], n: int) -> tuple[int, ...]:
    counts = [0] * n
    for t in types:
        counts[t] += 1
    return tuple(counts)


@st.composite
def _swaps(draw) -> Move:
    k = draw(st.integers(2, 5))
    taken = draw(st.lists(st.integers(0, GOODS - 1), min_size=k, max_size=k))
    take = _counts(taken, GOODS)
    allowed = [t for t in range(TYPES) if t == CAMEL or not take[t]]
    given = draw(st.lists(st.sampled_from(allowed), min_size=k, max_size=k))
    return Move.swap(take, _counts(given, TYPES))


@st.composite
def _sells(draw) -> Move:
    good = draw(st.integers(0, GOODS - 1))
    n = draw(st.integers(2 if good < 3 else 1, 7))
    return Move.sell(good, n)


def moves(kinds=("take", "camels", "sell", "swap")) -> st.SearchStrategy[Move]:
    """Any move of a valid shape (not necessarily legal in a position), of the given kinds."""
    options = {
        "take": st.integers(0, GOODS - 1).map(Move.take),
        "camels": st.just(Move.camels()),
        "sell": _sells(),
        "swap": _swaps(),
    }
    return st.one_of(*(options[k] for k in kinds))

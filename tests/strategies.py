"""Reusable hypothesis strategies for jaipur_ai tests.

Keep one section per value type, each strategy with a one-line docstring.
"""
from __future__ import annotations

from hypothesis import strategies as st

from jaipur_ai.rules._cards import CAMEL, GOODS, TYPES
from jaipur_ai.rules.move import Move

__all__ = ["moves", "play_randomly", "states", "running_states", "views"]


# ---------------------------------------------------------------------------
# Moves (jaipur_ai.rules.move)

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


# ---------------------------------------------------------------------------
# States and views (jaipur_ai.rules.position, jaipur_ai.rules.position)

def play_randomly(state, rng, plies: int):
    """``state`` after up to ``plies`` uniformly random legal moves drawn with
    ``rng`` (a random.Random); a finished round is followed by ``next_round``
    (one ply) unless the match is over, where play stops."""
    for _ in range(plies):
        if state.is_round_over:
            if state.is_match_over:
                break
            state = state.next_round(seed=rng.getrandbits(32))
        else:
            state = state.apply(rng.choice(state.legal_moves()))
    return state


@st.composite
def states(draw, max_plies: int = 300, bonus_sets=("standard", "pairs")):
    """A GameState reached by random legal play from a seeded deal, possibly across round ends."""
    import random

    from jaipur_ai import GameState

    seed = draw(st.integers(0, 2**32 - 1))
    starter = draw(st.sampled_from([None, 0, 1]))
    bonus_set = draw(st.sampled_from(bonus_sets))
    plies = draw(st.integers(0, max_plies))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    return play_randomly(GameState.new(seed, starter=starter, bonus_set=bonus_set), rng, plies)


def running_states(max_plies: int = 300) -> st.SearchStrategy:
    """A GameState whose round is still running, reached by random legal play."""
    return states(max_plies).filter(lambda s: not s.is_round_over)


def views(max_plies: int = 300) -> st.SearchStrategy:
    """A View of a random state (``states()``) by a random observer."""
    return st.tuples(states(max_plies), st.integers(0, 1)).map(lambda t: t[0].view(t[1]))

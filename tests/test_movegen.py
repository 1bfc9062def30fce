"""The core's move generation: its ORDER, and the counted path of random moves.

Searches and playouts pick "the k-th legal move", so the order in which ``gen_moves``
writes the moves is part of the contract (tests/test_golden.py holds seeded searches to
it). Here the order is spelled out in plain Python, independently of the core:

1. take one good, by good (not with 7 goods in hand);
2. take the camels (if the market has any);
3. sell, by good, then by count upwards (2 or more of a precious good);
4. exchange: the take vectors in odometer order over the market's goods (the first
   good counting fastest, sizes below 2 skipped), and for each the give vectors
   (hand goods not taken, then camels keeping the hand within 7) in descending
   lexicographic order over (goods..., camels).

``count_moves`` + ``nth_move`` (random playouts, VectorEnv's random opponent) must list
the same moves in the same order, and a counted random round must be the enumerated one.
"""
from __future__ import annotations

import itertools

from hypothesis import given, settings, strategies as st

from jaipur_ai.rules import _bridge

from jaipur_ai.rules import _core, _movegen
from jaipur_ai.rules.position import GameState

try:
    from strategies import states
except ImportError:  # pragma: no cover
    from tests.strategies import states

CAMEL = 6
CARDS = (6, 6, 6, 8, 8, 10, 11)


def expected_order(market: list[int], hand: list[int], herd: int) -> list[int]:
    """Action ids of the legal moves of a running round, in the documented order."""
    ids = []
    hs = sum(hand)
    if hs < 7:
        ids += [_core.move_to_action(0, g, 1, None, None) for g in range(6) if market[g]]
    if market[CAMEL]:
        ids.append(_core.move_to_action(1, 0, 0, None, None))
    for g in range(6):
        for c in range(2 if g < 3 else 1, hand[g] + 1):
            ids.append(_core.move_to_action(2, g, c, None, None))
    camel_cap = min(herd, 7 - hs)
    goods = [g for g in range(6) if market[g]]
    # odometer, goods[0] fastest: itertools.product varies its last factor fastest
    takes = [dict(zip(goods, reversed(t)))
             for t in itertools.product(*[range(market[g] + 1) for g in reversed(goods)])]
    for t in takes:
        take = [t.get(g, 0) for g in range(6)]
        k = sum(take)
        if k < 2:
            continue
        caps = [0 if take[g] else hand[g] for g in range(6)]
        gives = [(*v, k - sum(v)) for v in itertools.product(*[range(c, -1, -1) for c in caps])
                 if 0 <= k - sum(v) <= camel_cap]
        for give in gives:
            ids.append(_core.move_to_action(3, 0, k, take, list(give)))
    return ids


def core_with(market: list[int], hand: list[int], herd: int) -> _bridge.CoreState:
    raw = GameState.new(1)._core.raw()
    raw["market"] = list(market)
    raw["hand"][raw["to_move"]] = list(hand)
    raw["herd"][raw["to_move"]] = herd
    return _bridge.CoreState.from_raw(raw)


@st.composite
def positions(draw):
    """Any market (five cards), hand (up to 7 goods) and herd the cards allow."""
    market = [0] * 7
    for _ in range(5):
        market[draw(st.integers(0, 6))] += 1
    hand = [0] * 6
    for _ in range(draw(st.integers(0, 7))):
        g = draw(st.integers(0, 5))
        if hand[g] + market[g] < CARDS[g]:
            hand[g] += 1
    herd = draw(st.integers(0, CARDS[CAMEL] - market[CAMEL]))
    return market, hand, herd


@settings(max_examples=300, deadline=None)
@given(positions())
def test_generation_order_is_the_documented_one(pos):
    market, hand, herd = pos
    c = core_with(market, hand, herd)
    want = expected_order(market, hand, herd)
    assert c.generated_actions() == want
    assert c.counted_actions() == want
    assert sorted(want) == c.legal_actions()


@settings(max_examples=100, deadline=None)
@given(states())
def test_counted_moves_are_the_generated_ones(state):
    c = state._core
    assert c.counted_actions() == c.generated_actions()


def test_the_largest_position():
    # 2 diamonds, 2 gold, 1 silver in the market; a hand of 2 cloth, 2 spice, 2 leather
    # and 1 camel: 167 legal moves, the most of any position (bench/c/limit.c's bound)
    c = core_with([2, 2, 1, 0, 0, 0, 0], [0, 0, 0, 2, 2, 2], 1)
    assert len(c.generated_actions()) == 167 == len(c.counted_actions())
    assert c.generated_actions() == expected_order([2, 2, 1, 0, 0, 0, 0], [0, 0, 0, 2, 2, 2], 1)


def test_counted_random_rounds_are_the_enumerated_ones():
    assert (_movegen.bench_random_rounds(300, 5, True)
            == _movegen.bench_random_rounds(300, 5, False))

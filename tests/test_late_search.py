"""``late_search``: an ISMCTS engine that hands the late positions of a round to
expectimax (docs/search.md, "Late positions")."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import jaipur_ai as jp
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.rules._cards import TOKENS
from jaipur_ai.search.endgame import LATE_NODES_PER_ITERATION, LATE_PILE, is_late

LATE = jp.Settings().replace(late_search="expectimax")


def greedy_until(seed: int, late: bool) -> jp.GameState:
    """A round played by the greedy engine up to its first late position (or, with
    ``late=False``, a position some plies in that is not late)."""
    greedy = jp.Engine("greedy")
    k = 0
    while True:
        s = jp.GameState.new(seed=seed + 1000 * k)
        k += 1
        for _ply in range(200 if late else 6):
            if s.is_round_over or is_late(s._core):
                break
            s = s.apply(greedy.best_move(s.view(s.to_move), seed=seed))
        if not s.is_round_over and is_late(s._core) == late:
            return s


def _with(raw: dict, **changes) -> CoreState:
    return CoreState.from_raw({**raw, **changes})


def test_late_means_two_stacks_empty_or_a_short_pile():
    raw = jp.GameState.new(seed=3)._core.raw()
    assert not is_late(CoreState.from_raw(raw))
    one = [len(TOKENS[0])] + [0] * 5
    two = [len(TOKENS[0]), 0, 0, 0, len(TOKENS[4]), 0]
    assert not is_late(_with(raw, tok_pos=one))
    assert is_late(_with(raw, tok_pos=two))
    deck = raw["deck"]
    assert is_late(_with(raw, deck=deck[:LATE_PILE]))
    assert not is_late(_with(raw, deck=deck[:LATE_PILE + 1]))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 80))
def test_late_is_the_same_for_a_state_and_every_view(seed, plies):
    # what decides it is public: a searcher's view says the same as the full state
    s = jp.GameState.new(seed=seed)
    for i in range(plies):
        if s.is_round_over:
            return
        moves = s.legal_moves()
        s = s.apply(moves[(seed + i) % len(moves)])
    for p in (0, 1):
        assert is_late(s.view(p)._core) == is_late(s._core)


def _same(a, b) -> bool:
    return [(str(c.move), c.win_probability) for c in a] == \
        [(str(c.move), c.win_probability) for c in b]


def test_a_late_position_is_searched_as_the_expectimax_engine_searches_it():
    for seed in range(4):
        s = greedy_until(seed, late=True)
        v = s.view(s.to_move)
        a = jp.Engine(settings=LATE).analyse(v, iterations=500, seed=2)
        assert a.algorithm == "expectimax"
        assert a.best in s.legal_moves()
        assert a.options["late_search"] == "expectimax"
        # its iteration limit counts expectimax nodes, LATE_NODES_PER_ITERATION each
        x = jp.Engine("expectimax").analyse(v, iterations=500 * LATE_NODES_PER_ITERATION,
                                            seed=2)
        assert _same(a, x) and a.iterations == x.iterations
        # the same seed and limit: the same answer, whatever the threads
        assert _same(a, jp.Engine(settings=LATE).analyse(v, iterations=500, seed=2))
        assert _same(jp.Engine(settings=LATE, threads=2).analyse(v, iterations=500, seed=2),
                     jp.Engine(settings=LATE, threads=2).analyse(v, iterations=500, seed=2))


def test_on_a_clock_a_late_position_stays_inside_the_plan():
    s = greedy_until(2, late=True)
    a = jp.Engine(settings=LATE).analyse(s.view(s.to_move), time_left=2.0, seed=1)
    assert a.algorithm == "expectimax" and a.best in s.legal_moves()
    # expectimax's own stops (a tree would say "forced", "settled", "hard", ...)
    assert a.clock is not None and a.clock["stop"] in ("soft", "depth", "stopped")


def test_what_the_tree_keeps():
    s = greedy_until(0, late=True)
    v = s.view(s.to_move)
    e = jp.Engine(settings=LATE)
    # iterations 0 searches nothing: the round-ending moves are judged, as always
    assert e.analyse(v, iterations=0, seed=1).algorithm == "ismcts"
    # a hand_prior of the caller's is read (and checked) by the tree
    with pytest.raises(jp.InvalidPositionError, match="hand_prior"):
        e.analyse(v, iterations=200, seed=1, hand_prior=([[9, 9, 9, 9, 9, 9]], [1.0]))
    # where the exact endgame solve applies it goes first, and the tree after it
    near = greedy_until(4, late=True)
    while len(near._core.raw()["deck"]) > 3 and not near.is_round_over:
        near = near.apply(jp.Engine("greedy").best_move(near.view(near.to_move), seed=1))
    if not near.is_round_over:
        both = jp.Engine(settings=LATE.replace(endgame=True))
        assert both.analyse(near.view(near.to_move), iterations=300,
                            seed=1).algorithm in ("endgame", "ismcts")


def test_elsewhere_or_switched_off_the_search_is_unchanged():
    s = greedy_until(5, late=False)
    on = jp.Engine(settings=LATE).analyse(s.view(s.to_move), iterations=600, seed=5)
    off = jp.Engine().analyse(s.view(s.to_move), iterations=600, seed=5)
    assert on.algorithm == off.algorithm == "ismcts"
    assert [(str(c.move), c.visits) for c in on] == [(str(c.move), c.visits) for c in off]
    late = greedy_until(1, late=True)
    assert jp.Engine().analyse(late.view(late.to_move), iterations=300,
                               seed=5).algorithm == "ismcts"
    assert jp.Settings().late_search == "ismcts"
    assert "late_search" not in jp.Engine().options()


def test_the_late_search_is_fair():
    # the same view gives the same analysis whatever the real hidden cards
    for seed in range(4):
        s = greedy_until(seed, late=True)
        v = s.view(s.to_move)
        w = next((x for x in (v.sample(k) for k in range(50)) if x != s), None)
        if w is None:
            continue
        e = jp.Engine(settings=LATE)
        a, b = e.analyse(s, iterations=400, seed=3), e.analyse(w, iterations=400, seed=3)
        assert a.algorithm == b.algorithm == "expectimax"
        assert [(str(c.move), c.win_probability) for c in a] == \
            [(str(c.move), c.win_probability) for c in b]


def test_the_switch_reaches_every_door():
    e = EngineSpec.parse("ismcts:late_search=expectimax").make_engine()
    assert e.settings.late_search == "expectimax"
    assert e.options()["late_search"] == "expectimax"
    assert e.options()["samples"] == jp.Settings().samples      # expectimax's, recorded
    with pytest.raises(jp.InvalidOptionError, match="late_search"):
        jp.Settings().replace(late_search="pimc")
    with pytest.raises(jp.InvalidOptionError, match="late_search"):
        EngineSpec.parse("ismcts:late_search=nope").make_engine()

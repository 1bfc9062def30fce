"""PIMC, the gauntlet's perfect-information Monte Carlo engine: legal, fair (the same
analysis whatever the opponent's real hidden cards), deterministic with a seed, and its
worlds drawn from the view (by the belief's rows when it has one)."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.errors import InvalidPositionError
from jaipur_ai.matches.spec import EngineSpec, SpecError
from jaipur_ai.search.pimc import sample_worlds

from search_positions import mid_position
from strategies import running_states


def table(a: jp.Analysis) -> list:
    return [(str(c.move), c.visits, round(c.win_probability, 12)) for c in a.candidates]


def test_pimc_is_deterministic_with_a_seed():
    s = mid_position(11, 20)
    a = jp.analyse(s, iterations=3000, seed=4, top=None, algorithm="pimc", worlds=5)
    b = jp.analyse(s, iterations=3000, seed=4, top=None, algorithm="pimc", worlds=5)
    assert table(a) == table(b)
    assert a.iterations == 3000 and a.determinizations == 5 and a.algorithm == "pimc"
    c = jp.analyse(s, iterations=3000, seed=5, top=None, algorithm="pimc", worlds=5)
    assert table(c) != table(a)          # another seed, other worlds
    few = jp.analyse(s, iterations=3, seed=4, algorithm="pimc", worlds=5)
    assert few.determinizations == 3      # worlds that got no iteration are not counted


def test_pimc_is_fair():
    """Two states that differ only in what the mover cannot see: the same analysis."""
    s = mid_position(11, 25)
    v = s.view(s.to_move)
    others = [w for w in (v.sample(k) for k in range(50)) if w != s]
    assert others, "expected hidden cards to vary"
    for w in others[:3]:
        assert w.view(s.to_move) == v
        a = jp.analyse(s, iterations=2000, seed=3, top=None, algorithm="pimc", worlds=4)
        b = jp.analyse(w, iterations=2000, seed=3, top=None, algorithm="pimc", worlds=4)
        assert table(a) == table(b)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(running_states(max_plies=60), st.integers(0, 2**32 - 1))
def test_pimc_plays_legal_moves_and_its_worlds_match_the_view(state, seed):
    move = jp.best_move(state, iterations=200, seed=seed, algorithm="pimc", worlds=3)
    assert move in state.legal_moves()
    v = state.view(state.to_move)
    for w in sample_worlds(v._core, 3, seed):
        assert w.view(state.to_move).raw() == v._core.raw()


def test_the_worlds_follow_the_hand_prior():
    """With a prior of one row, every world gives the opponent exactly those goods."""
    s = mid_position(11, 25)
    v = s.view(s.to_move)
    truth = s._core.raw()
    opp = 1 - s.to_move
    known = truth["known"][opp]
    row = [h - k for h, k in zip(truth["hand"][opp][:6], known[:6])]
    worlds = sample_worlds(v._core, 6, 9, (np.array([row], np.uint8), np.array([1.0])))
    for w in worlds:
        hand = w.raw()["hand"][opp][:6]
        assert [h - k for h, k in zip(hand, known[:6])] == row
    with pytest.raises(InvalidPositionError):
        sample_worlds(v._core, 2, 9, (np.array([row]), np.array([-1.0])))
    with pytest.raises(InvalidPositionError):
        sample_worlds(v._core, 2, 9, (np.array([[np.inf] * 6]), np.array([1.0])))
    with pytest.raises(InvalidPositionError):
        sample_worlds(v._core, 2, 9, (None, [1.0]))


def test_pimc_stops_on_request():
    s = mid_position(11, 20)
    stop = threading.Event()
    stop.set()
    a = jp.Engine("pimc").analyse(s, iterations=10**9, seed=1, stop_event=stop)
    assert a.stopped and a.iterations < 10**6


def test_pimc_specs_and_errors():
    spec = EngineSpec.parse("pimc:time=0.5,worlds=16,cutoff=0")
    assert spec.algorithm == "pimc" and spec.options == {"worlds": 16, "cutoff": 0}
    with pytest.raises(SpecError) as e:
        EngineSpec.parse("pimc:samples=3")          # an expectimax option
    assert e.value.field == "samples"
    with pytest.raises(SpecError) as e:
        EngineSpec.parse("ismcts:worlds=3")         # a PIMC option
    assert e.value.field == "worlds"
    with pytest.raises(jp.InvalidOptionError):
        jp.Engine.from_options("pimc", worlds=0)
    with pytest.raises(InvalidPositionError):
        jp.Engine("pimc", perfect_information=True).analyse(mid_position(), iterations=10)

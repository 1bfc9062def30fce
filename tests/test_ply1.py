"""ply1, the evaluation alone as an engine: legal, deterministic with a seed, fair (the
same analysis whatever the opponent's real hidden cards), a round-ending move valued by
its result, either evaluation, and its options checked like every engine's."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.matches.spec import EngineSpec, SpecError

from search_positions import WINNING_SALE, mid_position, winning_sale
from strategies import running_states


def table(a: jp.Analysis) -> list:
    return [(str(c.move), c.visits, round(c.win_probability, 12), c.decisive)
            for c in a.candidates]


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(running_states(max_plies=60), st.integers(0, 2**32 - 1))
def test_ply1_plays_legal_moves_and_values_every_one(state, seed):
    a = jp.analyse(state, seed=seed, top=None, algorithm="ply1", samples=3)
    assert a.algorithm == "ply1" and a.determinizations == 3
    assert {c.move for c in a} == set(state.legal_moves()) and a.legal_moves == len(a)
    assert all(0.0 <= c.win_probability <= 1.0 and c.visits == 3 for c in a)
    wins = [c.win_probability for c in a]
    assert wins == sorted(wins, reverse=True)
    assert jp.best_move(state, seed=seed, algorithm="ply1", samples=3) == a.best


def test_ply1_is_deterministic_with_a_seed():
    s = mid_position(11, 20)
    a = jp.analyse(s, seed=4, top=None, algorithm="ply1", samples=6)
    b = jp.analyse(s, seed=4, top=None, algorithm="ply1", samples=6)
    assert table(a) == table(b)
    c = jp.analyse(s, seed=5, top=None, algorithm="ply1", samples=6)
    assert table(c) != table(a)          # another seed, other worlds


def test_ply1_is_fair():
    """Two states that differ only in what the mover cannot see: the same analysis."""
    s = mid_position(11, 25)
    v = s.view(s.to_move)
    others = [w for w in (v.sample(k) for k in range(50)) if w != s]
    assert others, "expected hidden cards to vary"
    a = jp.analyse(s, seed=3, top=None, algorithm="ply1", samples=8)
    assert table(jp.analyse(v, seed=3, top=None, algorithm="ply1", samples=8)) == table(a)
    for w in others[:3]:
        assert w.view(s.to_move) == v
        b = jp.analyse(w, seed=3, top=None, algorithm="ply1", samples=8)
        assert table(a) == table(b)


def test_a_round_ending_move_is_valued_by_its_result():
    s = winning_sale()
    a = jp.analyse(s, seed=1, top=None, algorithm="ply1")
    assert str(a.best) == WINNING_SALE
    assert a.candidates[0].win_probability == 1.0 and a.candidates[0].decisive == "win"
    assert all(c.decisive is None for c in a.candidates[1:])


def test_either_evaluation_and_its_options():
    s = mid_position(3, 20)
    h = jp.analyse(s, seed=2, top=None, algorithm="ply1", evaluation="heuristic")
    learned = jp.analyse(s, seed=2, top=None, algorithm="ply1")
    assert h.options["evaluation"] == "heuristic" and learned.options["evaluation"] == "learned"
    assert h.best in s.legal_moves() and table(h) != table(learned)
    spec = EngineSpec.parse("ply1:evaluation=heuristic,samples=4")
    assert (spec.algorithm, spec.options, spec.searches) == (
        "ply1", {"evaluation": "heuristic", "samples": 4}, False)
    assert spec.make_engine().best_move(s, seed=2) in s.legal_moves()
    assert EngineSpec.parse("ply1:weights=2026-12-04").make_engine().options()["weights"] \
        == "2026-12-04"


@pytest.mark.parametrize("algorithm", ["ply1", "ismcts", "expectimax"])
def test_evaluation_linear_is_the_learned_linear_model_by_name(algorithm, monkeypatch):
    # shipped weights other than the linear model's, so that "linear" must name its own
    from jaipur_ai.search import evaluation as evaluation_mod
    monkeypatch.setattr(evaluation_mod, "default_evaluation",
                        lambda: evaluation_mod.cached_evaluation("2026-12-04"))
    s = mid_position(5, 24)
    kw = dict(seed=3, top=None, algorithm=algorithm)
    if algorithm != "ply1":
        kw["iterations"] = 300
    lin = jp.analyse(s, evaluation="linear", **kw)
    named = jp.analyse(s, weights="2026-12-06", **kw)
    assert lin.options["evaluation"] == "linear"
    assert [(c.move, c.win_probability) for c in lin.candidates] == \
        [(c.move, c.win_probability) for c in named.candidates]
    for other in (jp.analyse(s, **kw), jp.analyse(s, evaluation="heuristic", **kw)):
        assert [(c.move, c.win_probability) for c in lin.candidates] != \
            [(c.move, c.win_probability) for c in other.candidates]
    with pytest.raises(jp.InvalidOptionError) as e:
        EngineSpec.parse(f"{algorithm}:evaluation=linear,weights=2026-12-04")
    assert e.value.field == "weights"


def test_bad_options_are_typed_errors():
    with pytest.raises(jp.InvalidOptionError) as e:
        jp.Engine.from_options("ply1", samples=0)
    assert e.value.field == "samples"
    with pytest.raises(jp.InvalidOptionError) as e:
        jp.Engine.from_options("ply1", evaluation="oracle")
    assert e.value.field == "evaluation"
    with pytest.raises(SpecError) as e:
        EngineSpec.parse("ply1:worlds=3")           # a PIMC option
    assert e.value.field == "worlds"
    with pytest.raises(jp.InvalidOptionError) as e:
        EngineSpec.parse("ply1:evaluation=heuristic,weights=2026-12-04")
    assert e.value.field == "weights"
    with pytest.raises(jp.InvalidPositionError):
        jp.Engine("ply1").analyse(mid_position(), seed=1, hand_prior=([[0] * 6], [1.0]))

"""The public search API (jaipur_ai.search.engine): Engine, best_move, analyse, Analysis."""
from __future__ import annotations

import json
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.search.engine import Analysis, Engine
from jaipur_ai.errors import InvalidOptionError, InvalidPositionError

from search_positions import POSITIONS, STOP_THE_THREAT_DEEP, mid_position, stop_the_threat_deep
from strategies import running_states

FAST = settings(max_examples=15, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

ALGOS = ["ismcts", "expectimax", "greedy", "random", "cheat"]
LIMITS = {"ismcts": 60, "cheat": 60, "expectimax": 400, "greedy": 1, "random": 1}


def stable(a: Analysis) -> dict:
    d = a.to_dict()
    del d["elapsed"], d["iterations_per_second"]
    return d


# ---------------------------------------------------------------------------
# Legal moves from states and views, every algorithm

@FAST
@given(running_states(max_plies=120), st.sampled_from(ALGOS), st.integers(0, 2**32 - 1))
def test_best_move_is_legal(state, algorithm, seed):
    legal = state.legal_moves()
    m = jp.best_move(state, iterations=LIMITS[algorithm], seed=seed, algorithm=algorithm)
    assert m in legal
    if algorithm != "cheat":
        v = state.view(state.to_move)
        assert jp.best_move(v, iterations=LIMITS[algorithm], seed=seed,
                            algorithm=algorithm) == m


@FAST
@given(running_states(max_plies=120), st.integers(0, 2**32 - 1))
def test_analysis_candidates_are_legal_and_ranked(state, seed):
    a = jp.analyse(state, iterations=100, seed=seed, top=None)
    legal = set(state.legal_moves())
    assert {c.move for c in a} <= legal
    assert a.best == a[0].move
    assert a.iterations == 100
    for c in a:
        assert c.pv[0] == c.move
        assert 0.0 <= c.win_probability <= 1.0


# ---------------------------------------------------------------------------
# Clear best moves, every algorithm

@pytest.mark.parametrize("algorithm", ["ismcts", "expectimax", "greedy", "cheat"])
@pytest.mark.parametrize("name,make,expected", POSITIONS)
def test_clear_best_move(algorithm, name, make, expected):
    s = make()
    it = {"ismcts": 300, "cheat": 300, "expectimax": 20000, "greedy": 1}[algorithm]
    for seed in (1, 2, 3):
        assert str(jp.best_move(s, iterations=it, seed=seed, algorithm=algorithm)) == expected
        a = jp.analyse(s, iterations=it, seed=seed, algorithm=algorithm)
        assert str(a.best) == expected, (name, str(a))
    assert str(jp.best_move(s.view(0), iterations=it, seed=1,
                            algorithm=algorithm if algorithm != "cheat" else "ismcts")) == expected


@pytest.mark.parametrize("algorithm", ["ismcts", "expectimax", "cheat"])
def test_deeper_threat(algorithm):
    s = stop_the_threat_deep()
    # expectimax must finish its third ply to see the threat (200,000 nodes; at 20,000
    # only the second completes and the leaf evaluation alone misjudges the exchanges)
    it = 200_000 if algorithm == "expectimax" else 1000
    assert str(jp.best_move(s, iterations=it, seed=1, algorithm=algorithm)) == \
        STOP_THE_THREAT_DEEP


def test_decisive_win_short_circuits_best_move():
    s = POSITIONS[0][1]()
    e = Engine()
    assert str(e.best_move(s, iterations=10**9, seed=1)) == POSITIONS[0][2]
    a = e.analyse(s, iterations=50, seed=1)
    assert a[0].decisive == "win" and a[0].win_probability == 1.0


# ---------------------------------------------------------------------------
# Determinism, seeds, limits, threads

@pytest.mark.parametrize("algorithm", ["ismcts", "expectimax", "greedy", "random"])
def test_same_seed_same_analysis(algorithm):
    s = mid_position()
    e = Engine(algorithm)
    it = 2000 if algorithm == "expectimax" else 500
    assert stable(e.analyse(s, iterations=it, seed=42)) == \
        stable(e.analyse(s, iterations=it, seed=42))


def test_seed_none_is_recorded_and_reproduces():
    s = mid_position()
    a = jp.analyse(s, iterations=300)
    assert isinstance(a.seed, int)
    b = jp.analyse(s, iterations=300, seed=a.seed)
    assert stable(a) == stable(b)


def test_engine_seed_default():
    s = mid_position()
    e = Engine(seed=5)
    assert e.analyse(s, iterations=200).seed == 5
    assert e.analyse(s, iterations=200, seed=6).seed == 6


def test_threads_reproducible_and_exact():
    s = mid_position()
    e = Engine(threads=3)
    a = e.analyse(s, iterations=1001, seed=8)
    b = e.analyse(s, iterations=1001, seed=8)
    assert a.iterations == 1001 and a.threads == 3
    assert stable(a) == stable(b)
    assert sum(c.visits for c in e.analyse(s, iterations=1001, seed=8, top=None)) == 1001


def test_expectimax_threads_split_samples():
    s = mid_position()
    a = Engine.from_options("expectimax", threads=2, samples=4, depth=2).analyse(s, seed=3, time=30)
    b = Engine.from_options("expectimax", threads=2, samples=4, depth=2).analyse(s, seed=3, time=30)
    assert a.depth == 2 and a.determinizations == 4
    assert stable(a) == stable(b)


def test_time_limit_returns_a_legal_move():
    s = mid_position()
    for alg in ("ismcts", "expectimax"):
        a = jp.analyse(s, time=0.05, seed=1, algorithm=alg)
        assert a.best in s.legal_moves()


def test_nothing_searched():
    s = mid_position()
    a = jp.analyse(s, iterations=0, seed=1)
    assert a.candidates == [] and a.best is None and a.iterations == 0
    assert json.loads(a.to_json())["best"] is None
    str(a)
    # best_move still answers: the greedy choice
    assert jp.best_move(s, iterations=0, seed=1) == \
        jp.best_move(s, seed=1, algorithm="greedy")
    stop = threading.Event()
    stop.set()
    for alg in ("ismcts", "expectimax"):
        a = jp.Engine(alg).analyse(s, iterations=10**6, seed=1, stop_event=stop)
        assert a.candidates == [] and a.stopped
    # expectimax always completes depth 1, whatever the node budget
    a = jp.analyse(s, iterations=0, seed=1, algorithm="expectimax")
    assert a.depth == 1 and {c.move for c in a} <= set(s.legal_moves())
    # a move that ends the round is judged even without a search
    w = POSITIONS[0][1]()
    a = jp.analyse(w, iterations=0, seed=1)
    assert str(a.best) == POSITIONS[0][2] and a[0].decisive == "win"


def test_default_limit_is_used(monkeypatch):
    import jaipur_ai.search.engine as E
    monkeypatch.setattr(E, "DEFAULT_TIME", 0.05)
    a = jp.analyse(mid_position(), seed=1)
    assert a.iterations > 0


def test_stop_event_ends_the_search():
    s = mid_position()
    ev = threading.Event()
    out = {}
    t = threading.Thread(target=lambda: out.setdefault(
        "a", Engine(threads=2).analyse(s, time=120, seed=1, stop_event=ev)))
    t.start()
    t.join(0.2)
    ev.set()
    t.join(30)
    assert not t.is_alive()
    assert out["a"].stopped
    assert out["a"].best in s.legal_moves()


def test_engine_stop_from_another_thread():
    s = mid_position()
    e = Engine.from_options("expectimax", depth=12)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("a", e.analyse(s, time=120, seed=1)))
    t.start()
    t.join(0.3)
    e.stop()
    t.join(30)
    assert not t.is_alive()
    assert out["a"].best in s.legal_moves()


def test_progress_reports():
    s = mid_position()
    seen = []
    a = Engine().analyse(s, iterations=3000, seed=1, on_progress=seen.append,
                         report_every=0.01)
    # slicing the search into reports does not change it
    assert stable(a) == stable(Engine().analyse(s, iterations=3000, seed=1))
    assert all(isinstance(x, Analysis) for x in seen)


# ---------------------------------------------------------------------------
# Fairness and errors

def test_same_view_same_analysis():
    s = mid_position(11, 25)
    v = s.view(s.to_move)
    others = [w for w in (v.sample(k) for k in range(50)) if w != s]
    assert others, "expected hidden cards to vary"
    w = others[0]
    assert w.view(s.to_move) == v
    for alg in ("ismcts", "expectimax", "greedy"):
        e = Engine(alg)
        assert stable(e.analyse(s, iterations=800, seed=3)) == \
            stable(e.analyse(w, iterations=800, seed=3))


def test_cheat_uses_the_hidden_cards():
    e = Engine("cheat")
    assert e.perfect_information
    a = e.analyse(mid_position(), iterations=200, seed=1)
    assert a.perfect_information and a.determinizations == 200


def test_errors():
    s = mid_position()
    with pytest.raises(InvalidPositionError):
        jp.best_move(s.view(1 - s.to_move), iterations=10)
    with pytest.raises(ValueError):
        jp.best_move(s.view(s.to_move), iterations=10, perfect_information=True)
    with pytest.raises(ValueError):
        Engine("alphazero")
    with pytest.raises(ValueError):
        Engine(threads=0)
    for bad in (dict(puct=-1.0), dict(prior_temp=0.0), dict(tree_depth=-1), dict(cutoff=-2)):
        with pytest.raises(InvalidOptionError) as e:
            Engine.from_options(**bad)
        assert e.value.field == next(iter(bad))
    with pytest.raises(ValueError):
        jp.analyse(s, iterations=-1)
    with pytest.raises(TypeError):
        jp.best_move("not a position")
    done = s
    while not done.is_round_over:
        done = done.apply(done.legal_moves()[0])
    with pytest.raises(InvalidPositionError):
        jp.best_move(done, iterations=10)


# ---------------------------------------------------------------------------
# Analysis formatting

def test_analysis_table_and_json():
    s = mid_position()
    a = jp.analyse(s, iterations=500, seed=1, top=3)
    assert len(a) <= 3
    text = str(a)
    assert "ismcts" in text and str(a.best) in text
    d = json.loads(a.to_json())
    assert d["best"] == str(a.best)
    assert d["candidates"][0]["move"] == str(a.best)
    assert all(isinstance(m, str) for m in d["candidates"][0]["pv"])
    assert d["iterations"] == 500 and d["seed"] == 1
    assert a.iterations_per_second > 0
    g = jp.analyse(s, algorithm="greedy", seed=1)
    assert g[0].score is not None
    assert "score" in str(g).splitlines()[0]
    str(jp.analyse(s, algorithm="random", seed=1))
    str(jp.analyse(s, algorithm="expectimax", iterations=500, seed=1))


def test_reward_margin_and_random_playouts():
    s = mid_position()
    for opts in ({"reward": "margin"}, {"playout": "random"}, {"widen": 0.5},
                 {"exploration": 0.0}):
        assert jp.best_move(s, iterations=200, seed=1, **opts) in s.legal_moves()


def test_one_engine_two_searches_at_once():
    s = mid_position()
    e = Engine()
    out = []
    ts = [threading.Thread(target=lambda: out.append(e.analyse(s, time=120, seed=1)))
          for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(0.2)
    e.stop()
    for t in ts:
        t.join(30)
    assert not any(t.is_alive() for t in ts)
    assert len(out) == 2 and all(a.best in s.legal_moves() for a in out)
    # a stop does not leak into the next search
    assert not e.analyse(s, iterations=100, seed=1).stopped


def test_print_analysis_is_the_cli_table():
    """One table: ``str(analysis)`` is what ``jaipur-ai analyse`` prints, with the
    move in every row and thousands separators."""
    from jaipur_ai.search._table import format_analysis
    s = mid_position()
    a = jp.analyse(s, iterations=3000, seed=1, top=3)
    text = str(a)
    assert text == format_analysis(a)
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["#", "move"] and "principal variation" in lines[0]
    rows = lines[1:1 + len(a)]
    for i, (row, c) in enumerate(zip(rows, a), 1):
        assert row.startswith(f"{i}  {c.move}")
        assert f"{c.visits:,}" in row and f"{100 * c.win_probability:.1f}%" in row
        assert row.endswith(", ".join(str(m) for m in c.pv[:8]) + (", ..." if len(c.pv) > 8 else ""))
    assert any(c.visits >= 1000 and f"{c.visits:,}" != str(c.visits) for c in a)
    assert lines[-1].startswith("algorithm ismcts, 3,000 iterations, ")
    assert lines[-1].endswith(", seed 1")


def test_the_functions_take_a_settings_object_as_the_engine_does():
    s = jp.GameState.new(seed=1, starter=0)
    tuned = jp.Settings(cutoff=8)
    a = jp.analyse(s, iterations=200, seed=3, settings=tuned)
    b = jp.Engine(settings=tuned).analyse(s, iterations=200, seed=3)
    assert a.options["cutoff"] == 8 and a.candidates == b.candidates
    # a Settings object with field changes on top, as with a settings name
    assert Engine.from_options("ismcts", settings=tuned, puct=2.0).settings == \
        tuned.replace(puct=2.0)

"""Playing on a clock (jaipur_ai.search.clock): the plan of each move, the time keeper's
stopping rules, and the clock at every door (Python API, engine specs and matches, the
command line, serve).  Nothing asserts on how long a search took: the rules are tested
on the figures they are given, the searches by what they report."""
from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

import jaipur_ai as jp
from jaipur_ai.errors import InvalidOptionError
from jaipur_ai.matches.games import GameRecord, play_round
from jaipur_ai.matches.spec import EngineSpec, RoundClock, SpecError
from jaipur_ai.search.clock import TimeKeeper, TimePlan, moves_to_go, plan_move

STATE = jp.GameState.new(seed=7, starter=0)
STOPS = {"forced", "settled", "soft", "extended", "hard", "decisive"}   # (ISMCTS's)


def only_camels() -> jp.GameState:
    """A position whose one legal move is taking the camels: an empty hand, no herd,
    a market of camels."""
    d = jp.GameState.new(seed=3, starter=0).to_dict()
    d["players"][0].update(hand="", herd=0)
    d["market"] = "MMMMM"
    deck = list(d["deck"])
    deck.remove("M")
    d["deck"] = "".join(deck) + "DC"
    d["discard"] = "GSCL"
    return jp.GameState.from_dict(d)


# ------------------------------------------------------------------ the plan
@settings(max_examples=300, deadline=None)
@given(st.floats(0, 10_000), st.floats(0, 100), st.integers(0, 40))
def test_a_move_never_plans_past_the_time_left(time_left, increment, deck):
    p = plan_move(time_left, increment, deck)
    assert 0.0 <= p.soft <= p.hard <= time_left
    if time_left > 0.1:
        assert p.hard < time_left           # something is always kept back
    assert p.hard <= max(p.soft, time_left / 2)
    assert p.check_every > 0


@settings(max_examples=200, deadline=None)
@given(st.floats(0.05, 1000), st.integers(0, 2), st.integers(1, 30))
def test_a_clock_without_increment_never_runs_out_at_the_end_of_a_round(start, deck, moves):
    # the draw pile empty or nearly, moves go on (sells and swaps draw nothing): each
    # spending its hard limit leaves at least half of the clock
    left = start
    for _ in range(moves):
        spent = plan_move(left, 0.0, deck).hard
        assert spent <= left / 2
        left -= spent
    assert left > 0


@settings(max_examples=200, deadline=None)
@given(st.floats(0.5, 10_000), st.floats(0, 10), st.integers(1, 40))
def test_more_time_or_fewer_moves_left_never_plans_less(time_left, increment, deck):
    p = plan_move(time_left, increment, deck)
    assert plan_move(time_left * 2, increment, deck).soft >= p.soft
    assert plan_move(time_left, increment, deck - 1).soft >= p.soft
    assert plan_move(time_left, increment + 1, deck).soft >= p.soft


def test_the_moves_left_follow_the_draw_pile():
    assert moves_to_go(0) == 1.0
    assert moves_to_go(40) == pytest.approx(23.0)
    # a full clock over a whole round: about one share a move, the increment spent
    p = plan_move(60.0, 0.5, 40)
    assert 60.0 / 30 < p.soft < 60.0 / 15 + 0.5 and p.hard == pytest.approx(4 * p.soft)


# ------------------------------------------------------------- the time keeper
PLAN = TimePlan(time_left=10.0, increment=0.0, soft=1.0, hard=3.0)


def decide(visits, values=None, legal=10, rate=None, elapsed=0.5):
    k = TimeKeeper(PLAN)
    values = values or [0.5] * len(visits)
    if rate is None:              # (as if the set-up took no time)
        rate = sum(visits) / elapsed if elapsed else 0.0
    return k.decide(visits, values, legal, rate, elapsed), k.reason


def test_a_forced_move_stops_at_once():
    assert decide([5], legal=1, elapsed=0.0) == (True, "forced")


def test_a_lead_no_move_can_catch_in_the_time_aimed_at_stops_the_search():
    # 1,350 iterations in 0.8 s: about 340 more by the soft limit, less than the lead
    assert decide([1200, 100, 50], elapsed=0.8) == (True, "settled")
    # 1,300 in 0.5 s: 1,300 more to come, more than a lead of 600
    assert decide([900, 300, 100], elapsed=0.5) == (False, None)


def test_at_the_soft_limit_a_clear_best_move_stops_and_a_close_one_goes_on():
    assert decide([900, 300, 100], elapsed=1.0) == (True, "soft")
    assert decide([5000, 100], elapsed=1.0) == (True, "soft")      # (however large the lead)
    # a runner-up with most of the best move's visits ...
    assert decide([900, 800, 100], elapsed=1.0) == (False, None)
    # ... or a well-searched one with a better value: searched on
    assert decide([900, 300, 100], values=[0.5, 0.6, 0.4], elapsed=1.0) == (False, None)
    # a better value on a handful of visits is not doubt
    assert decide([900, 50, 40], values=[0.5, 0.9, 0.4], elapsed=1.0) == (True, "soft")


def test_a_close_move_settles_towards_the_hard_limit_and_stops_there():
    # past soft, the lead is measured against what the hard limit still allows
    assert decide([9000, 7000], elapsed=2.9) == (True, "extended")
    assert decide([900, 800], elapsed=3.0) == (True, "hard")


def test_a_close_move_does_not_settle_against_the_soft_limit():
    # 1,750 iterations in 0.9 s: about 190 more by soft, less than the lead of 250; but
    # the runner-up is close, so the move may run to hard (about 4,000 more)
    assert decide([1000, 750], elapsed=0.9) == (False, None)
    assert decide([1000, 300], values=[0.5, 0.6], elapsed=0.9) == (False, None)
    # the same lead with a clear runner-up settles
    assert decide([1000, 500, 250], elapsed=0.9) == (True, "settled")


def test_the_rate_is_the_searchs_own():
    # a slow start (set-up) must not make a lead look safe: at 100 iterations a
    # second it is, at 10,000 it is not
    assert decide([1200, 100, 50], rate=100, elapsed=0.5) == (True, "settled")
    assert decide([1200, 100, 50], rate=10_000, elapsed=0.5) == (False, None)


# ------------------------------------------------------------- the Python API
def test_an_analysis_on_a_clock_reports_its_plan_and_why_it_stopped():
    view = STATE.view(STATE.to_move)
    a = jp.analyse(view, time_left=2.0, increment=0.1, seed=1)
    p = plan_move(2.0, 0.1, view.deck_size)
    assert a.clock is not None and a.clock["stop"] in STOPS
    assert (a.clock["soft"], a.clock["hard"]) == (p.soft, p.hard)
    assert a.to_dict()["clock"] == a.clock and a.best in view.legal_moves()
    assert "clock: 2.00 s left + 0.1 s a move" in str(a)
    assert jp.analyse(view, iterations=50, seed=1).clock is None


def test_a_forced_move_on_a_clock_is_played_at_once():
    s = only_camels()
    a = jp.Engine().analyse(s.view(0), time_left=100.0, seed=1)
    assert a.clock["stop"] == "forced" and str(a.best) == "camels"
    assert jp.best_move(s, time_left=100.0, seed=1) == jp.Move.camels()


def test_expectimax_answers_a_forced_move_on_a_clock_after_one_ply():
    # (it deepened until the plan's soft limit, every depth giving the same answer)
    a = jp.Engine("expectimax").analyse(only_camels().view(0), time_left=100.0, seed=1)
    assert (a.clock["stop"], a.depth, str(a.best)) == ("forced", 1, "camels")


def test_a_clock_with_an_iteration_limit_stops_at_the_first_of_them():
    a = jp.analyse(STATE, time_left=1000.0, iterations=300, seed=1)
    assert a.iterations == 300 and a.clock["stop"] == "iterations"


def test_a_search_on_a_clock_still_reports_its_progress():
    seen = []
    a = jp.Engine().analyse(STATE, time_left=20.0, iterations=3000, seed=1,
                            on_progress=seen.append, report_every=0.01)
    assert a.clock["stop"] in STOPS | {"iterations"}
    assert all(p.iterations <= a.iterations for p in seen)


def test_every_algorithm_on_a_clock_says_why_it_stopped():
    x = jp.analyse(STATE, algorithm="expectimax", time_left=1.0, iterations=2000, seed=1)
    assert x.clock["stop"] in ("soft", "depth") and x.best in STATE.legal_moves()
    for algorithm in ("greedy", "random"):
        a = jp.analyse(STATE, algorithm=algorithm, time_left=1.0, seed=1)
        assert a.clock["stop"] == "instant" and a.clock["soft"] > 0


def test_an_empty_clock_still_answers_a_legal_move():
    assert jp.best_move(STATE, time_left=0.0, seed=1) in STATE.legal_moves()


@pytest.mark.parametrize("kw, field", [
    ({"time_left": 5.0, "time": 1.0}, "time_left"),
    ({"increment": 1.0}, "increment"),
    ({"time_left": -1.0}, "time_left"),
    ({"time_left": float("nan")}, "time_left"),
    ({"time_left": 5.0, "increment": "1"}, "increment"),
])
def test_a_bad_clock_is_a_typed_error_naming_the_field(kw, field):
    for call in (jp.analyse, jp.best_move, jp.Engine().analyse):
        with pytest.raises(InvalidOptionError) as e:
            call(STATE, **kw)
        assert e.value.field == field


# ----------------------------------------------------- engine specs and matches
def test_a_clock_spec_round_trips_and_is_not_reproducible():
    s = EngineSpec.parse("ismcts:clock=2+0.05,cutoff=8")
    assert s.clock == (2.0, 0.05) and str(s) == "ismcts:clock=2+0.05,cutoff=8"
    assert EngineSpec.parse(str(s)) == s and not s.deterministic
    assert str(EngineSpec.parse("ismcts:clock=30")) == "ismcts:clock=30"
    assert s.to_dict()["clock"] == [2.0, 0.05]
    assert EngineSpec("ismcts", clock=[60, 1]).clock == (60.0, 1.0)   # as to_dict writes it


@pytest.mark.parametrize("text, field", [
    ("ismcts:clock=2+", "clock"), ("ismcts:clock=x", "clock"), ("ismcts:clock=-1", "clock"),
    ("ismcts:clock=2,time=1", "clock"), ("ismcts:time_left=3", "time_left"),
])
def test_a_bad_clock_spec_is_a_typed_error(text, field):
    with pytest.raises(jp.JaipurError) as e:
        EngineSpec.parse(text)
    assert e.value.field == field


def test_a_round_clock_takes_each_move_off_and_adds_the_increment():
    c = RoundClock(EngineSpec.parse("ismcts:clock=1+0.25"))
    assert c.limits() == {"time": None, "iterations": None, "time_left": 1.0,
                          "increment": 0.25}
    c.spent(0.5)
    assert c.left == pytest.approx(0.75) and c.overtime == 0
    c.spent(2.0)                      # past an empty clock: counted, the round goes on
    assert c.left == pytest.approx(0.25) and c.overtime == 1
    c.new_round()
    assert c.left == 1.0 and c.overtime == 1
    assert RoundClock(EngineSpec.parse("greedy")).limits() == {"time": None,
                                                               "iterations": None}


def test_a_match_game_on_a_clock_records_its_overtime():
    # A on a clock far too short for a search's set-up: every move past it is counted
    r = play_round("ismcts:clock=0.000001", "greedy", deal_seed=5, a_seat=1)
    d = r.to_dict()
    assert d["overtime"][0] == r.engine_moves[0] > 0 and d["overtime"][1] == 0
    assert GameRecord.from_dict(json.loads(json.dumps(d))).overtime == r.overtime
    # greedy has no clock: never overtime, however long its moves
    r = play_round("greedy", "ismcts:clock=0.000001", deal_seed=5, a_seat=0)
    assert r.overtime[0] == 0 and r.overtime[1] == r.engine_moves[1] > 0


def test_players_that_search_with_a_fixed_limit_refuse_a_clock():
    from jaipur_ai.doors.play import Game
    from jaipur_ai.doors.requests import RequestError
    from jaipur_ai.doors.webapi import WebApp
    from jaipur_ai.vecenv import VectorEnv
    with pytest.raises(SpecError) as e:
        Game(EngineSpec.parse("greedy"), EngineSpec.parse("ismcts:clock=5"), seed=1)
    assert e.value.field == "clock"
    with pytest.raises(RequestError) as e:
        WebApp(hint="ismcts:clock=5")
    assert e.value.field == "hint" and "clock" in e.value.reason
    with pytest.raises(InvalidOptionError) as e:
        VectorEnv(2, opponent="ismcts:clock=5")
    assert e.value.field == "opponent" and "clock" in e.value.reason
    assert WebApp(level="ismcts:clock=5").spec.clock == (5.0, 0.0)   # a game's engine may


# ----------------------------------------------------------- the command line
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "jaipur_ai", *args], capture_output=True,
                          text=True, timeout=300)


def test_the_command_line_analyses_on_a_clock_and_refuses_a_bad_one():
    ok = _cli("analyse", "sample", "--time-left", "1", "--increment", "0.05", "--seed", "1",
              "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["clock"]["stop"] in STOPS
    bad = _cli("analyse", "sample", "--time-left", "1", "--time", "1")
    assert bad.returncode == 2 and "--time-left:" in bad.stderr
    bad = _cli("analyse", "sample", "--increment", "1")
    assert bad.returncode == 2 and "--increment:" in bad.stderr
    bad = _cli("play", "--hint", "ismcts:clock=5")
    assert bad.returncode == 2 and "--hint" in bad.stderr and "clock" in bad.stderr


# ---------------------------------------------------------------------- serve
def _answers(lines, **kw):
    from jaipur_ai.doors.serve import Server
    out = io.StringIO()
    Server(io.StringIO("".join(json.dumps(x) + "\n" for x in lines)), out, **kw).run()
    return sorted((json.loads(x) for x in out.getvalue().splitlines()), key=lambda a: a["id"])


def test_serve_searches_on_a_clock_within_its_limits():
    from jaipur_ai.doors.limits import Limits
    text = STATE.to_text()
    got = _answers([
        {"id": 1, "position": text, "time_left": 1.0, "increment": 0.05, "seed": 1},
        {"id": 2, "position": text, "time_left": 1.0, "time": 1.0},
        {"id": 3, "position": text, "increment": 1.0},
        {"id": 4, "position": text, "time_left": 1000.0},
        {"id": 5, "position": text, "time_left": "soon"},
        # expectimax spends only the soft part of the same clock: within the limit
        {"id": 6, "position": text, "time_left": 60.0, "algorithm": "expectimax",
         "iterations": 300, "seed": 1},
    ], limits=Limits(max_time=5))
    assert got[0]["final"] and got[0]["clock"]["stop"] in STOPS
    assert got[0]["clock"]["increment"] == 0.05
    assert [g["error"]["field"] for g in got[1:5]] == ["time_left", "increment",
                                                       "time_left", "time_left"]
    assert got[3]["error"]["type"] == "LimitError"
    assert plan_move(60.0, 0.0, len(STATE.deck)).hard > 5     # (ISMCTS's: refused)
    assert got[5]["final"] and got[5]["clock"]["stop"] in ("soft", "depth")

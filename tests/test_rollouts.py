"""Rollouts of a search's best candidates (jaipur_ai.search.rollouts; docs/search.md,
"Rollouts"): the statistics, determinism, fairness, the belief, and every door."""
from __future__ import annotations

import json
import math
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaipur_ai as jp
from jaipur_ai.doors.cli import main
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.search import rollouts as R
from jaipur_ai.search._rollout import rollout_outcomes

from search_positions import mid_position


def _rolled(a: jp.Analysis) -> list[tuple]:
    return [(str(c.move), c.visits, c.rollout) for c in a]


def test_the_best_candidates_are_rolled_out_beside_the_search():
    s = mid_position(7, 15)
    a = jp.Engine.from_options(rollouts=3).analyse(s, iterations=800, seed=2, top=None)
    plain = jp.Engine().analyse(s, iterations=800, seed=2, top=None)
    assert a.rollouts is not None and a.rollouts.worlds > 0
    # the search's order and move stand; its best three carry their rollouts
    assert [(c.move, c.visits) for c in a] == [(c.move, c.visits) for c in plain]
    assert all(c.rollout is not None for c in a[:3])
    assert all(c.rollout is None for c in a[3:])
    first = a[0].rollout
    assert first.diff == 0.0 and first.diff_se == 0.0
    for c in a[1:3]:
        r = c.rollout
        assert r.worlds == a.rollouts.worlds
        assert r.diff == pytest.approx(r.win_probability - first.win_probability, abs=1e-6)
        assert r.diff_se > 0.0 and 0.0 < r.se < 0.5


def test_rollouts_are_deterministic_and_do_not_depend_on_the_threads():
    s = mid_position(3, 6)
    core = s.view(s.to_move)._core
    acts = [m.action_id for m in s.legal_moves()[:4]]
    one = R.roll_out(core, acts, seed=9, worlds=300)
    again = R.roll_out(core, acts, seed=9, worlds=300)
    two = R.roll_out(core, acts, seed=9, worlds=300, threads=2)
    for x in (again, two):
        assert np.array_equal(one[0], x[0]) and np.array_equal(one[1], x[1])
        assert one[2] == x[2]
    n = one[0].shape[1]
    assert n == 300 or (one[2] and n >= R.MIN_WORLDS)     # all the worlds, or settled
    other = R.roll_out(core, acts, seed=10, worlds=300)
    assert not np.array_equal(other[0][:, :n], one[0][:, :other[0].shape[1]])
    e = jp.Engine.from_options(rollouts=2, rollout_worlds=200)
    assert _rolled(e.analyse(s, iterations=300, seed=4)) == \
        _rolled(e.analyse(s, iterations=300, seed=4))


@pytest.mark.parametrize("seed,plies", [(3, 6), (7, 15)])
def test_rollouts_are_fair(seed, plies):
    # the same view gives the same rollouts whatever the real hidden cards
    s = mid_position(seed, plies)
    v = s.view(s.to_move)
    w = next(x for x in (v.sample(k) for k in range(50)) if x != s)
    e = jp.Engine.from_options(rollouts=3, rollout_worlds=300)
    a, b = (e.analyse(x, iterations=500, seed=3) for x in (s, w))
    assert a.rollouts is not None
    assert _rolled(a) == _rolled(b)


def test_the_belief_deals_the_rollouts_worlds():
    s = mid_position(7, 6)
    v = s.view(s.to_move)
    core = v._core
    acts = [m.action_id for m in s.legal_moves()[:3]]
    opp = s.players[1 - s.to_move]
    unknown = [list(opp.hand).count(g) - list(opp.known).count(g) for g in "DGSCPL"]
    assert sum(unknown) > 0              # (SP: the opponent holds goods the mover has not seen)
    flat = rollout_outcomes(core, acts, 200, 5, fair=True, per_ply=True)
    told = rollout_outcomes(core, acts, 200, 5, fair=True, per_ply=True,
                            hands=[unknown], weights=[1.0])
    assert not np.array_equal(flat[0], told[0])
    bad = list(unknown)
    bad[0] += 7                            # more diamonds than the game holds
    with pytest.raises(ValueError, match="hands"):
        rollout_outcomes(core, acts, 10, 5, hands=[bad], weights=[1.0])
    with pytest.raises(ValueError, match="weights"):
        rollout_outcomes(core, acts, 10, 5, hands=[unknown], weights=[-1.0])


def test_the_benchmarks_rollouts_are_unchanged_by_the_new_options():
    # per_ply off (the default) is the stream the benchmark's references were built with
    s = mid_position(3, 6)
    core = s.view(s.to_move)._core
    acts = [m.action_id for m in s.legal_moves()[:2]]
    a = rollout_outcomes(core, acts, 50, 1, fair=True)
    b = rollout_outcomes(core, acts, 50, 1, fair=True, per_ply=False, hands=None)
    c = rollout_outcomes(core, acts, 50, 1, fair=True, per_ply=True)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])


def test_settled_means_the_rollouts_best_three_standard_errors_above_the_others():
    rng = np.random.default_rng(1)
    base = rng.choice([0.0, 1.0], size=400).astype(np.float32)
    worse = base.copy()
    worse[:120] = 0.0                       # loses where the best won, in 120 worlds
    assert R.settled(np.stack([worse, base, base]))     # equal rows count as settled
    close = base.copy()
    close[:3] = 0.0
    assert not R.settled(np.stack([base, close]))
    assert not R.settled(base[None, :1].repeat(2, axis=0))   # one world says nothing


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 40), st.integers(0, 2**32 - 1))
def test_the_rollout_statistics_are_those_of_the_paired_results(k, n, seed):
    rng = np.random.default_rng(seed)
    scores = rng.choice([0.0, 0.5, 1.0], size=(k, n)).astype(np.float32)
    margins = rng.integers(-40, 40, size=(k, n)).astype(np.int16)
    stats = R.stats_of(scores, margins)
    assert stats[0].diff == 0.0 and stats[0].diff_se == 0.0
    for i, r in enumerate(stats):
        assert r.worlds == n
        assert r.win_probability == pytest.approx(float(scores[i].mean()))
        assert r.se == pytest.approx(float(scores[i].std(ddof=1)) / math.sqrt(n))
        d = scores[i] - scores[0]
        assert r.diff == pytest.approx(float(d.mean()))
        if i:
            assert r.diff_se == pytest.approx(float(d.std(ddof=1)) / math.sqrt(n))
        assert r.expected_margin == pytest.approx(float(margins[i].mean()))


def test_rollout_pick_plays_the_rollouts_best():
    # for the study of the rollouts as a judge: the rolled-out moves in the rollouts'
    # order, the differences against their best
    s = mid_position(7, 15)
    plain = jp.Engine.from_options(rollouts=3, rollout_worlds=400).analyse(
        s, iterations=800, seed=2, top=None)
    picked = jp.Engine.from_options(rollouts=3, rollout_worlds=400, rollout_pick=True).analyse(
        s, iterations=800, seed=2, top=None)
    wins = [c.rollout.win_probability for c in picked[:3]]
    assert wins == sorted(wins, reverse=True)
    assert picked.best == max(plain[:3], key=lambda c: c.rollout.win_probability).move
    assert all(c.rollout.diff <= 0.0 for c in picked[:3])
    assert {c.move for c in picked[:3]} == {c.move for c in plain[:3]}
    assert [c.move for c in picked[3:]] == [c.move for c in plain[3:]]
    assert picked.options["rollout_pick"] is True


def test_bad_rollout_options_are_typed_errors():
    with pytest.raises(jp.InvalidOptionError, match="rollouts"):
        jp.Engine.from_options(rollouts=-1)
    with pytest.raises(jp.InvalidOptionError, match="rollout_share"):
        jp.Engine.from_options(rollouts=2, rollout_share=1.0)
    with pytest.raises(jp.InvalidOptionError, match="rollouts"):
        jp.Engine.from_options("cheat", rollouts=2)
    with pytest.raises(jp.InvalidOptionError, match="rollout_worlds"):
        EngineSpec.parse("ismcts:rollouts=2,rollout_worlds=x").make_engine()


def test_a_time_limited_move_shares_its_time_and_reports_as_it_goes():
    s = mid_position(7, 15)
    seen = []
    a = jp.Engine.from_options(rollouts=3).analyse(s, time=0.6, seed=1, on_progress=seen.append,
                                                   report_every=0.05)
    assert a.rollouts is not None and a.rollouts.worlds >= R.BATCH
    assert any(x.rollouts is not None for x in seen)     # the rollouts streamed
    assert any(x.rollouts is None for x in seen)         # after the search's reports
    d = json.loads(a.to_json())
    assert d["rollouts"]["worlds"] == a.rollouts.worlds
    assert d["candidates"][0]["rollout"]["diff"] == 0.0
    assert "rollouts:" in str(a) and "vs #1" in str(a)


def test_the_command_line_rolls_out(capsys, monkeypatch):
    args = ["analyse", "sample", "--iterations", "400", "--seed", "1", "--json"]
    assert main(args + ["--rollouts", "2"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["rollouts"]["worlds"] > 0 and d["candidates"][0]["rollout"] is not None
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["rollouts"] is None
    # a long analysis rolls out by itself (LONG_ANALYSIS, made short here)
    monkeypatch.setattr("jaipur_ai.doors.commands.LONG_ANALYSIS", 0.2)
    assert main(["analyse", "sample", "--time", "0.3", "--seed", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rollouts"] is not None
    assert main(["analyse", "sample", "--time", "0.3", "--seed", "1", "--json",
                 "--rollouts", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["rollouts"] is None
    assert main(args + ["--rollouts", "65"]) == 2
    assert "--rollouts" in capsys.readouterr().err


def test_where_settled_rollouts_stop_does_not_depend_on_the_threads():
    # the ranking is looked at every BATCH worlds whatever the threads: the same stop
    s = mid_position(3, 6)
    core = s.view(s.to_move)._core
    acts = [m.action_id for m in s.legal_moves()[:4]]
    for seed in (1, 2, 3):
        one = R.roll_out(core, acts, seed=seed, worlds=3000)
        two = R.roll_out(core, acts, seed=seed, worlds=3000, threads=2)
        three = R.roll_out(core, acts, seed=seed, worlds=3000, threads=3)
        for x in (two, three):
            assert np.array_equal(one[0], x[0]) and one[2] == x[2]
        n = one[0].shape[1]
        assert n == 3000 or (one[2] and n % R.BATCH == 0 and n >= R.MIN_WORLDS)


def test_reports_are_cut_to_top_and_a_stop_ends_the_rollouts():
    s = mid_position(7, 15)
    stop = threading.Event()
    seen = []

    def report(a):
        seen.append(a)
        if a.rollouts is not None:
            stop.set()                  # stop once the rollouts have begun

    e = jp.Engine.from_options(rollouts=4, rollout_worlds=1_000_000)
    a = e.analyse(s, iterations=3000, seed=1, top=2, on_progress=report,
                  report_every=0.01, stop_event=stop)
    assert seen and all(len(x.candidates) <= 2 for x in seen)
    assert a.stopped and a.rollouts is not None and a.rollouts.worlds < 1_000_000
    assert len(a.candidates) == 2


def test_best_move_plays_the_search_unless_the_rollouts_pick():
    s = mid_position(7, 15)
    plain = jp.Engine().best_move(s, iterations=600, seed=4)
    assert jp.Engine.from_options(rollouts=3).best_move(s, iterations=600, seed=4) == plain
    picked = jp.Engine.from_options(rollouts=3, rollout_pick=True)
    assert picked.best_move(s, iterations=600, seed=4) == \
        picked.analyse(s, iterations=600, seed=4).best


def test_one_world_is_rolled_out_as_two_and_the_json_stays_valid():
    s = mid_position(7, 15)
    a = jp.Engine.from_options(rollouts=2, rollout_worlds=1).analyse(s, iterations=300, seed=1)
    assert a.rollouts.worlds == 2
    json.loads(a.to_json(), parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))


def test_a_long_analysis_asks_no_rollouts_of_a_perfect_information_search(capsys,
                                                                           monkeypatch):
    # -o perfect_information=true with a long --time: the error (the CLI analyses the
    # mover's view) is about the position, not about rollouts the user never asked for
    monkeypatch.setattr("jaipur_ai.doors.commands.LONG_ANALYSIS", 0.2)
    state = jp.GameState.new(seed=3, starter=0).to_text()
    assert main(["analyse", state, "--time", "0.3", "--seed", "1", "--json",
                 "-o", "perfect_information=true"]) == 2
    err = capsys.readouterr().err
    assert "perfect_information" in err and "rollouts" not in err


def test_truncated_rollouts_score_the_rounds_still_running_by_the_evaluation():
    s = mid_position(3, 6)
    core = s.view(s.to_move)._core
    acts = [m.action_id for m in s.legal_moves()[:3]]
    full = rollout_outcomes(core, acts, 100, 4, fair=True, per_ply=True)
    short = rollout_outcomes(core, acts, 100, 4, fair=True, per_ply=True, cutoff=4)
    assert set(np.unique(full[0])) <= {0.0, 0.5, 1.0}
    assert ((short[0] > 0.0) & (short[0] < 1.0)).any()       # win chances, not results
    assert ((short[0] >= 0.0) & (short[0] <= 1.0)).all()
    assert short[0].std() < full[0].std()
    assert np.array_equal(short[0], rollout_outcomes(core, acts, 100, 4, fair=True,
                                                     per_ply=True, cutoff=4)[0])
    with pytest.raises(ValueError, match="cutoff"):
        rollout_outcomes(core, acts, 10, 4, cutoff=-1)
    a = jp.Engine.from_options(rollouts=2, rollout_worlds=300, rollout_cutoff=4).analyse(
        s, iterations=300, seed=1)
    assert a.options["rollout_cutoff"] == 4 and a[0].rollout is not None

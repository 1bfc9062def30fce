"""Training games that teach the game, not the engine's habits: the belief shown the
round's moves in self-play, a league of other engines met in a share of the rounds, and
expert iteration's generations playing that league."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.errors import InvalidDataError, InvalidOptionError, JaipurError
from jaipur_ai.learning.expert import check_league, improve, league_specs
from jaipur_ai.learning.selfplay import SHARD_KEYS, league_round, play_shard, selfplay
from jaipur_ai.learning.train import fit, load_shards
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.search import evaluation

from bench_scripts import bench_module


# ------------------------------------------------------------------ who plays a round
@settings(max_examples=50)
@given(st.integers(0, 2**32), st.integers(0, 10**6), st.integers(1, 5),
       st.floats(0.0, 1.0))
def test_a_rounds_opponent_depends_on_the_seed_and_round_alone(seed, r, size, share):
    opp, seat = league_round(seed, r, size, share)
    assert (opp, seat) == league_round(seed, r, size, share)
    assert 0 <= opp <= size and seat in (0, 1)
    if share == 0.0:
        assert opp == 0
    if share == 1.0:
        assert opp >= 1


def test_the_league_plays_about_its_share_in_both_seats():
    draws = [league_round(7, r, 3, 0.25) for r in range(4000)]
    met = [(o, s) for o, s in draws if o]
    assert 0.22 < len(met) / len(draws) < 0.28
    assert {o for o, _ in met} == {1, 2, 3} and {s for _, s in met} == {0, 1}


# ------------------------------------------------------------------ the shards
def test_league_rows_are_value_rows_and_the_engines_keep_their_targets(tmp_path):
    selfplay(str(tmp_path), rounds=4, engine="ismcts:iterations=40", seed=3,
             shard_rounds=2, workers=1, league=["greedy"], league_share=1.0)
    d = load_shards(str(tmp_path))
    assert set(SHARD_KEYS) <= set(d)
    own, theirs = d["player"] == 0, d["player"] == 1
    assert own.any() and theirs.any()
    # every round has the engine in one seat and greedy in the other
    for r in np.unique(d["round"]):
        at = d["round"] == r
        seats = {int(m): set(d["player"][at & (d["mover"] == m)].tolist()) for m in (0, 1)}
        assert sorted(seats.values(), key=min) == [{0}, {1}]
    # the league's moves carry no search targets (the policy reads only the engine's) ...
    assert np.isnan(d["value"][theirs]).all() and (d["visits"][theirs] == 0).all()
    assert (d["child_action"][theirs] == -1).all() and (d["child_visits"][theirs] == 0).all()
    assert (d["visits"][own] > 0).all() and np.isfinite(d["value"][own]).all()
    # ... and both players' positions are value rows with the round's result
    assert set(np.unique(d["result"][theirs])) <= {0.0, 0.5, 1.0}
    params, rep = fit(d, hidden=0, epochs=1, target="td", seed=1)
    assert rep["positions"] == len(d["result"])


def test_the_belief_is_shown_the_rounds_moves_in_self_play():
    # a searched move's recorded value is the one the search gives with the round's
    # moves as its history; without them it differs somewhere in the round
    spec, seed = "ismcts:iterations=60", 5
    d = play_shard(spec, seed, 0, 1)
    eng = jp.Engine.from_options("ismcts")
    state = jp.GameState.new(seed=derive_seed(seed, 1, 0), starter=0)
    history: list = []
    differs = 0
    for ply, action in enumerate(d["action"][:12]):
        view = state.view(state.to_move)
        s = derive_seed(seed, 2, 0, ply)
        with_moves = eng.analyse(view, iterations=60, seed=s, top=1, history=history)
        blind = eng.analyse(view, iterations=60, seed=s, top=1)
        assert with_moves.candidates[0].move.action_id == action
        assert with_moves.candidates[0].win_probability == pytest.approx(d["value"][ply])
        differs += blind.candidates[0].win_probability != with_moves.candidates[0].win_probability
        move = with_moves.candidates[0].move
        history.append((state, move))
        state = state.apply(move)
    assert differs > 0


def test_a_folder_of_another_league_is_refused(tmp_path):
    selfplay(str(tmp_path), rounds=2, engine="ismcts:iterations=20", seed=1,
             shard_rounds=2, league=["greedy"])
    with pytest.raises(InvalidDataError, match="other settings"):
        selfplay(str(tmp_path), rounds=2, engine="ismcts:iterations=20", seed=1,
                 shard_rounds=2, league=["random"])


@pytest.mark.parametrize("kw, field", [
    (dict(engine="policy", league=["greedy"]), "league"),
    (dict(league=["greedy"], league_share=1.5), "league_share"),
    (dict(league=["greedy"], league_share=float("nan")), "league_share"),
    (dict(league=["ismcts:clock=60+1"]), "clock"),
    (dict(league=["nosuch"]), None),
    (dict(league=["pimc"]), "league"),                         # would search by the clock
    (dict(league=["pimc:time=0.1"]), "league"),
    (dict(league=["ismcts:iterations=10,weights=/no/such.npz"]), None),
    (dict(league=None), "league"),
    (dict(league=["greedy"] * 101), "league"),
    (dict(league=["greedy"], league_share=True), "league_share"),
])
def test_a_bad_league_is_a_typed_error_before_any_work(tmp_path, kw, field):
    kw = {"engine": "ismcts:iterations=20", **kw}
    with pytest.raises(JaipurError) as e:
        selfplay(str(tmp_path / "d"), rounds=2, seed=1, shard_rounds=2, **kw)
    if field is not None:
        assert e.value.field == field
    assert not (tmp_path / "d").exists() or not list((tmp_path / "d").glob("*.npz"))


def test_cli_selfplay_with_a_league(tmp_path, capsys):
    from jaipur_ai.doors.cli import main
    assert main(["selfplay", str(tmp_path / "s"), "--rounds", "2", "--shard-rounds", "2",
                 "--engine", "ismcts:iterations=20", "--league", "greedy", "random",
                 "--league-share", "1", "-q"]) == 0
    d = load_shards(str(tmp_path / "s"))
    assert set(np.unique(d["player"])) <= {0, 1, 2} and (d["player"] > 0).any()
    assert main(["selfplay", str(tmp_path / "t"), "--league", "greedy",
                 "--league-share", "2", "-q"]) == 2
    assert "league_share: expected a share from 0 to 1" in capsys.readouterr().err


# ------------------------------------------------------------------ expert iteration
def test_one_spec_is_a_league_of_one(tmp_path):
    selfplay(str(tmp_path), rounds=2, engine="ismcts:iterations=20", seed=1,
             shard_rounds=2, league="greedy", league_share=1.0)
    assert set(np.unique(load_shards(str(tmp_path))["player"])) == {0, 1}


def test_a_league_is_gauntlet_names_and_past():
    assert check_league("greedy,past") == ("greedy", "past")
    for bad in (None, 5, [1, 2]):
        with pytest.raises(InvalidOptionError, match="league"):
            check_league(bad)
    with pytest.raises(InvalidOptionError, match="'magic' is not a gauntlet engine"):
        check_league(["pimc", "magic"])
    p = evaluation.DEFAULT_WEIGHTS
    specs = league_specs(("pimc", "past", "greedy"), [p, p], 300)
    assert specs[0] == "pimc:iterations=300" and specs[-1] == "greedy"
    assert specs[1:3] == [f"ismcts:iterations=300,weights={p.resolve()}"] * 2
    assert league_specs(("past",), [], 300) == []


def test_a_training_chunk_with_a_league_opponent_runs_end_to_end(tmp_path):
    # one generation of expert iteration whose self-play meets greedy in half its rounds,
    # fitted to the TD return, gated over the gauntlet and calibrated
    kw = dict(generations=1, rounds=6, iterations=80, gate_deals=1, gate_iterations=60,
              epochs=1, seed=4, calibration_rounds=2, calibration_iterations=40,
              league=("greedy",), league_share=0.5, target="td")
    s = improve(tmp_path, parts=("value",), workers=1, quiet=True, **kw)
    d = load_shards(str(tmp_path / "gen1" / "selfplay"))
    assert (d["player"] == 1).any() and (d["player"] == 0).any()
    assert s["settings"]["league"] == ("greedy",)
    rep = s["generations"][0]["report"]["value"]
    assert rep["target"] == "td" and rep["positions"] == len(d["result"])
    assert evaluation.load_evaluation(tmp_path / "evaluation.npz").has_policy
    # its learning curve: the start and the candidate scored on the benchmark, the gate read
    curve = bench_module("learning_curve.py", "bench_learning_curve")
    rows = curve.generations(str(tmp_path))
    assert [r["generation"] for r in rows] == [0, 1]
    assert rows[1]["accepted"] == s["generations"][0]["accepted"]
    assert rows[1]["gate"] == s["generations"][0]["paired_difference"]
    curve.score(rows, positions=3, procs=1)
    assert all(r["error_ci95"][0] <= r["error"] <= r["error_ci95"][1] and r["error"] >= 0
               for r in rows)
    assert rows[0]["vs_start"] is None and len(rows[1]["vs_start"]) == 3
    pytest.importorskip("matplotlib", reason="the plot needs the plot extra")
    curve.plot(rows, str(tmp_path / "curve.png"), "test")
    assert (tmp_path / "curve.png").stat().st_size > 1000
    # a rerun with another league is refused before any work
    with pytest.raises(InvalidDataError, match="other settings"):
        improve(tmp_path, parts=("value",), workers=1, quiet=True,
                **{**kw, "league": ("pimc",)})
    with pytest.raises(InvalidOptionError, match="league_share"):
        improve(tmp_path / "x", workers=1, quiet=True, **{**kw, "league_share": -1})


def test_a_folder_of_an_older_improve_resumes_with_the_new_settings_defaults(tmp_path):
    import json
    kw = dict(generations=0, rounds=2, iterations=20, gate_deals=1, gate_iterations=20,
              epochs=1, seed=4, calibration_rounds=1, calibration_iterations=20)
    improve(tmp_path, parts=("value",), workers=1, quiet=True, **kw)
    rec = json.loads((tmp_path / "improve.json").read_text())
    for k in ("target", "league", "league_share"):       # as a build before them wrote it
        del rec["settings"][k]
    (tmp_path / "improve.json").write_text(json.dumps(rec))
    improve(tmp_path, parts=("value",), workers=1, quiet=True, **kw)
    with pytest.raises(InvalidDataError, match="other settings"):
        improve(tmp_path, parts=("value",), workers=1, quiet=True, **{**kw, "target": "td"})

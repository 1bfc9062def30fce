"""The learned evaluation: features, weights files, the trainer, the pipeline."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.search import _features
from jaipur_ai.learning import _selfplay
from jaipur_ai.search import evaluation
from jaipur_ai.learning import train
from jaipur_ai.search._evaluation import heuristic_value
from jaipur_ai.errors import InvalidDataError, InvalidWeightsError
from jaipur_ai.learning.selfplay import SHARD_KEYS, selfplay
from search_positions import mid_position
from strategies import running_states

N = _features.N_FEATURES_PY
ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ features
@settings(max_examples=60)
@given(running_states(max_plies=120))
def test_features_are_deterministic_bounded_and_antisymmetric(state):
    f0 = _features.features_of(state._core, 0)
    f1 = _features.features_of(state._core, 1)
    assert f0.shape == (N,) and np.all(np.isfinite(f0))
    assert np.array_equal(f0, _features.features_of(state._core, 0))
    assert np.allclose(f0, -f1)
    assert np.all(np.abs(f0) <= 10.0)


def test_features_do_not_read_what_they_are_not_given():
    # the features of a state are a function of that state only: two full states
    # with equal hands, herds, market, tokens and deck size give equal features
    s = mid_position(5, 20)
    v = s.view(s.to_move)
    w = v.sample(3)
    same = (w.to_dict()["players"] == s.to_dict()["players"])
    assert same == np.array_equal(_features.features_of(s._core, 0),
                                  _features.features_of(w._core, 0)) or not same


def test_feature_names_match_the_vector():
    assert len(_features.FEATURE_NAMES) == N


# ------------------------------------------------------------------ weights files
def _random_weights(h=3, seed=0):
    r = np.random.default_rng(seed)
    return {"lin": r.normal(size=N), "margin": r.normal(size=N),
            "hidden_w": r.normal(size=(h, N)), "hidden_b": r.normal(size=h),
            "out_w": r.normal(size=h)}


def test_python_and_core_evaluations_agree(tmp_path):
    w = _random_weights()
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, w, {"test": True})
    ev = evaluation.load_evaluation(path)
    for seed in range(5):
        s = mid_position(seed, 15)
        for p in (0, 1):
            f = _features.features_of(s._core, p)
            win, mg = ev.value(s._core, p)
            assert win == pytest.approx(float(train.predict(w, f[None])[0]), rel=1e-9)
            assert mg == pytest.approx(float(f @ w["margin"]), rel=1e-9, abs=1e-9)
            # the two players' values add up to one
            assert win + ev.value(s._core, 1 - p)[0] == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(running_states(max_plies=120), st.integers(1, 64), st.integers(0, 2**32 - 1))
def test_a_hidden_layer_evaluates_as_numpy_does_and_is_antisymmetric(state, h, seed):
    # any width up to MAX_HIDDEN (the core sums the units in blocks of eight and skips
    # the features that are 0): the same value as numpy's, and the two players' values
    # add up to one
    r = np.random.default_rng(seed)
    w = {"lin": r.normal(size=N), "margin": r.normal(size=N),
         "hidden_w": r.normal(size=(h, N)), "hidden_b": r.normal(size=h),
         "out_w": r.normal(size=h) / 8}
    ev = evaluation.evaluation_of(w)
    for p in (0, 1):
        f = _features.features_of(state._core, p)
        win = ev.value(state._core, p)[0]
        assert win == pytest.approx(float(train.predict(w, f[None])[0]), rel=1e-9, abs=1e-12)
        assert win + ev.value(state._core, 1 - p)[0] == pytest.approx(1.0, abs=1e-9)


def test_shipped_weights_load_and_evaluate():
    ev = evaluation.default_evaluation()
    assert ev is evaluation.default_evaluation()        # loaded once
    s = mid_position(3, 10)
    win, _ = ev.value(s._core, 0)
    assert 0.0 < win < 1.0
    # the shipped weights give the same values in Python (numpy) and in the core
    with np.load(evaluation.DEFAULT_WEIGHTS) as z:
        w = {k: z[k] for k in ("lin", "margin", "hidden_w", "hidden_b", "out_w")}
    assert ev.n_features == len(w["lin"])
    for seed in range(4):
        st = mid_position(seed, 12)
        f = _features.features_of(st._core, st.to_move)[:ev.n_features]
        assert ev.value(st._core, st.to_move)[0] == pytest.approx(
            float(train.predict(w, f[None])[0]), rel=1e-9)
    meta = evaluation.read_meta(evaluation.DEFAULT_WEIGHTS)
    assert "generations" in meta and meta["command"] in ("jaipur-ai learn", "jaipur-ai improve")


def test_weights_of_features_version_1_read_its_29_features(tmp_path):
    # version 2 appends features to version 1's, so a version-1 file still evaluates:
    # on the first 29 features, as numpy computes it
    n1 = _features.N_FEATURES_V1_PY
    assert _features.FEATURE_NAMES[:n1] == evaluation.FEATURE_SETS[1]
    r = np.random.default_rng(4)
    w = {"lin": r.normal(size=n1), "margin": r.normal(size=n1),
         "hidden_w": r.normal(size=(2, n1)), "hidden_b": r.normal(size=2),
         "out_w": r.normal(size=2)}
    path = tmp_path / "v1.npz"
    evaluation.save_weights(path, w, {})
    with np.load(path) as z:
        assert int(z["features_version"]) == 1 and len(z["feature_names"]) == n1
    ev = evaluation.load_evaluation(path)
    assert ev.n_features == n1
    for seed in range(4):
        st = mid_position(seed, 14)
        f = _features.features_of(st._core, 1)
        assert ev.value(st._core, 1)[0] == pytest.approx(
            float(train.predict(w, f[None, :n1])[0]), rel=1e-9)
    # the previous defaults' weights (bench/weights) are of version 1 and load
    for name in ("previous.npz", "view.npz"):
        prev = evaluation.load_evaluation(ROOT / "bench" / "weights" / name)
        assert prev.n_features == n1
    with pytest.raises(ValueError, match="30 features"):
        evaluation.save_weights(tmp_path / "x.npz", {**w, "lin": np.zeros(30)}, {})


def test_missing_file_is_a_typed_error(tmp_path):
    with pytest.raises(InvalidWeightsError, match="nope.npz: no such file"):
        evaluation.load_evaluation(tmp_path / "nope.npz")
    with pytest.raises(InvalidWeightsError, match="nope.npz"):
        jp.Engine(evaluation="learned", weights=str(tmp_path / "nope.npz"))


def test_truncated_file_is_a_typed_error(tmp_path):
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, _random_weights(), {})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InvalidWeightsError, match="w.npz: not a readable weights file"):
        evaluation.load_evaluation(path)


def test_a_folder_or_a_text_file_is_a_typed_error_in_plain_words(tmp_path):
    with pytest.raises(InvalidWeightsError, match="a folder, not a weights file"):
        evaluation.load_evaluation(tmp_path)
    text = tmp_path / "notes.npz"
    text.write_text("these are not weights\n")
    with pytest.raises(InvalidWeightsError) as e:
        evaluation.load_evaluation(text)
    assert e.value.reason == "not a readable weights file: not an .npz archive"


def test_mismatched_features_are_a_typed_error(tmp_path):
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, _random_weights(), {})
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["features_version"] = np.array(999)
    np.savez(path, **arrays)
    with pytest.raises(InvalidWeightsError, match="features version 999"):
        evaluation.load_evaluation(path)
    arrays["features_version"] = np.array(_features.FEATURES_VERSION_PY)
    arrays["lin"] = np.zeros(N + 1)
    np.savez(path, **arrays)
    with pytest.raises(InvalidWeightsError, match="shapes"):
        evaluation.load_evaluation(path)
    arrays["lin"] = np.full(N, np.nan)
    np.savez(path, **arrays)
    with pytest.raises(InvalidWeightsError, match="not finite"):
        evaluation.load_evaluation(path)


@pytest.mark.parametrize("change,why", [
    (lambda a: a.update(version=np.array([1, 2])), "malformed contents"),
    (lambda a: a.update(lin=np.array("abc")), "malformed contents"),
    (lambda a: a.update(lin=np.full(N, 1e308)), "beyond"),
    (lambda a: a.update(extra=np.zeros(3)), "unknown arrays: extra"),
    (lambda a: a.update(meta=np.zeros(1 << 18)), "bytes, at most"),
])
def test_malformed_contents_are_a_typed_error(tmp_path, change, why):
    """Every door that takes weights reads them here: a wrong shape, type or size of any
    array is an InvalidWeightsError naming the file, and an unknown or oversized array is
    refused before it is read."""
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, _random_weights(), {})
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    np.savez(path, **arrays)
    with pytest.raises(InvalidWeightsError, match=why) as e:
        evaluation.load_evaluation(path)
    assert e.value.field == str(path)


def test_a_single_array_file_is_a_typed_error(tmp_path):
    path = tmp_path / "w.npy"
    np.save(path, np.zeros(3))
    with pytest.raises(InvalidWeightsError, match="not an .npz archive"):
        evaluation.load_evaluation(path)


def test_not_a_zip_is_a_typed_error(tmp_path):
    path = tmp_path / "w.npz"
    path.write_text("hello")
    with pytest.raises(InvalidWeightsError, match="not a readable"):
        evaluation.load_evaluation(path)


def test_engine_options_for_the_learned_evaluation():
    with pytest.raises(jp.InvalidOptionError, match="evaluation"):
        jp.Engine(evaluation="magic")
    with pytest.raises(jp.InvalidOptionError, match="weights"):
        jp.Engine(evaluation="heuristic", weights="x.npz")
    with pytest.raises(jp.InvalidOptionError, match="priors"):        # retired
        jp.Engine.from_options(evaluation="heuristic", priors="learned")
    with pytest.raises(jp.InvalidOptionError, match="playout"):      # retired
        jp.Engine.from_options(playout="learned")


@pytest.mark.parametrize("opts", [
    dict(evaluation="learned"),
    dict(evaluation="learned", opponent_view="off"),
    dict(evaluation="learned", opponent_stats="pooled"),
    dict(evaluation="learned", opponent_values="redealt"),
    dict(evaluation="learned", opponent_stats="pooled", opponent_values="redealt"),
    dict(evaluation="heuristic", settings="handset"),
    dict(algorithm="expectimax", evaluation="learned", depth=2),
])
def test_learned_search_is_fair_and_deterministic(opts):
    # the same view gives the same analysis whatever the real hidden cards
    s = mid_position(11, 25)
    v = s.view(s.to_move)
    w = next(x for x in (v.sample(k) for k in range(50)) if x != s)
    e = jp.Engine.from_options(**opts)
    a = e.analyse(s, iterations=600, seed=3)
    b = e.analyse(w, iterations=600, seed=3)
    assert [(str(c.move), c.visits, c.win_probability) for c in a] == \
        [(str(c.move), c.visits, c.win_probability) for c in b]
    assert a.best in s.legal_moves()


def test_the_opponent_view_changes_the_search():
    assert jp.Engine().settings.opponent_view == "all"
    assert jp.Engine(settings="handset").settings.opponent_view == "off"

    def runs(s):
        return [[(str(c.move), c.visits) for c in
                 jp.Engine.from_options(opponent_view=v).analyse(s, iterations=2000, seed=1)]
                for v in ("off", "all")]
    off, all_ = runs(mid_position(3, 6))    # the mover holds a card unseen
    assert off != all_
    # the opponent has seen every card of the mover's hand: nothing to re-deal
    off, all_ = runs(mid_position(3, 20))
    assert off == all_
    assert jp.Engine().options()["opponent_view"] == "all"


def test_learned_evaluation_changes_the_search():
    s = mid_position(3, 20)
    h = jp.Engine(evaluation="heuristic").analyse(s, iterations=2000, seed=1)
    l_ = jp.Engine(evaluation="learned").analyse(s, iterations=2000, seed=1)
    assert [c.visits for c in h] != [c.visits for c in l_]


def test_heuristic_value_is_the_hand_set_evaluation():
    s = mid_position(3, 20)
    w0, m0 = heuristic_value(s._core, 0)
    w1, m1 = heuristic_value(s._core, 1)
    assert w0 + w1 == pytest.approx(1.0) and m0 == pytest.approx(-m1)


# ------------------------------------------------------------------ data and training
def test_policy_rounds_are_seeded_and_labelled():
    a = _selfplay.policy_rounds(5, 20)
    b = _selfplay.policy_rounds(5, 20)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert set(np.unique(a["round"])) == set(range(20))
    assert set(np.unique(a["result"])) <= {0.0, 0.5, 1.0}
    # within a round, the two movers' results are complementary
    r0 = a["round"] == 0
    res = {int(m): float(x) for m, x in zip(a["mover"][r0], a["result"][r0])}
    assert len(res) == 2 and res[0] + res[1] == 1.0


def test_selfplay_resumes_without_replaying(tmp_path):
    d = tmp_path / "sp"
    s1 = selfplay(str(d), rounds=4, engine="ismcts:iterations=30", seed=2, shard_rounds=2,
                  workers=1, progress=False)
    assert s1["played_shards"] == 2
    first = (d / "shard-00000.npz").read_bytes()
    (d / "shard-00001.npz").unlink()              # as if interrupted
    s2 = selfplay(str(d), rounds=4, engine="ismcts:iterations=30", seed=2, shard_rounds=2,
                  workers=1, progress=False)
    assert s2["played_shards"] == 1
    assert (d / "shard-00000.npz").read_bytes() == first
    with np.load(d / "shard-00000.npz") as z:
        assert set(SHARD_KEYS) <= set(z.files)
        assert np.all(z["visits"] > 0) and np.all((z["value"] >= 0) & (z["value"] <= 1))
    with pytest.raises(ValueError, match="other settings"):
        selfplay(str(d), rounds=4, engine="greedy", seed=2, shard_rounds=2, progress=False)


def test_selfplay_to_train_to_engine_end_to_end(tmp_path):
    selfplay(str(tmp_path / "g0"), rounds=300, engine="policy", seed=1, shard_rounds=100,
             progress=False)
    selfplay(str(tmp_path / "g1"), rounds=4, engine="ismcts:iterations=40", seed=1,
             shard_rounds=2, progress=False)
    data = train.load_shards([str(tmp_path / "g0"), str(tmp_path / "g1")])
    # both runs number their rounds from 0: loaded together, every round keeps its own id
    assert len(np.unique(data["round"])) == 304
    weights, rep = train.fit(data, hidden=4, epochs=3, seed=1)
    assert rep["rounds"] == 304
    assert rep["holdout_logloss"] < rep["constant_logloss"]
    assert rep["holdout_brier"] < rep["constant_brier"]
    path = tmp_path / "mine.npz"
    evaluation.save_weights(path, weights, {"report": rep})
    e = jp.Engine(evaluation="learned", weights=str(path))
    s = mid_position(2, 12)
    assert e.best_move(s, iterations=300, seed=1) in s.legal_moves()
    assert json.loads(str(np.load(path)["meta"]))["report"]["hidden"] == 4


def test_bad_training_data_is_a_typed_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InvalidDataError, match="empty: no shards"):
        train.load_shards(str(tmp_path / "empty"))
    with pytest.raises(InvalidDataError, match="nope: no such file or folder"):
        train.load_shards(str(tmp_path / "nope"))
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "shard-00000.npz").write_bytes(b"not a zip")
    with pytest.raises(InvalidDataError, match="shard-00000.npz: not a readable shard"):
        train.load_shards(str(bad))
    selfplay(str(tmp_path / "g0"), rounds=20, engine="policy", seed=1, shard_rounds=10,
             progress=False)
    with np.load(tmp_path / "g0" / "shard-00000.npz") as z:
        arrays = {k: z[k] for k in z.files}
    old = tmp_path / "old"
    old.mkdir()
    np.savez(old / "shard-00000.npz", **{**arrays, "features": arrays["features"][:, :29]})
    with pytest.raises(InvalidDataError, match="features of 29 columns, the shards before "
                                               f"it have {N}"):
        train.load_shards([str(tmp_path / "g0"), str(old)])
    np.savez(old / "shard-00000.npz", **{k: v for k, v in arrays.items() if k != "margin"})
    with pytest.raises(InvalidDataError, match="missing arrays: margin"):
        train.load_shards(str(old))
    # the command line says the same, in one line, with exit status 2
    from jaipur_ai.doors.cli import main
    assert main(["train", str(tmp_path / "empty"), "--out", str(tmp_path / "w.npz")]) == 2
    assert not (tmp_path / "w.npz").exists()


def test_td_targets_end_at_the_result():
    data = {"round": np.array([0, 0, 0, 1, 1]), "mover": np.array([0, 1, 0, 1, 0]),
            "result": np.array([1.0, 0.0, 1.0, 0.5, 0.5])}
    g = train.td_targets(data, np.array([0.6, 0.3, 0.8, 0.5, 0.5]), lam=0.5)
    assert g[2] == 1.0 and g[4] == 0.5
    # position 1 (player 1): next value 0.8 for player 0 is 0.2 for player 1
    assert g[1] == pytest.approx(0.5 * 0.2 + 0.5 * 0.0)


# ------------------------------------------------------------------ calibration, pipeline
def test_calibration_is_fitted_and_checked(tmp_path):
    rng = np.random.default_rng(3)
    v = rng.uniform(0.05, 0.95, 4000)
    truth = 1 / (1 + np.exp(-(0.5 * np.log(v / (1 - v)) - 0.2)))   # overconfident values
    y = (rng.uniform(size=4000) < truth).astype(float)
    a, b = train.fit_calibration(v, y)
    assert abs(a - 0.5) < 0.15 and abs(b + 0.2) < 0.15
    w = {**_random_weights(), "calibration": (a, b)}
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, w, {})
    assert evaluation.load_evaluation(path).calibration == pytest.approx((a, b))
    evaluation.save_weights(path, {**w, "calibration": (-1.0, 0.0)}, {})
    with pytest.raises(InvalidWeightsError, match="calibration"):
        evaluation.load_evaluation(path)
    # the map of a search that read the round's moves: absent, the other one serves it
    evaluation.save_weights(path, w, {})
    assert evaluation.load_evaluation(path).calibration_moves == pytest.approx((a, b))
    evaluation.save_weights(path, {**w, "calibration_moves": (1.2, -0.1, 0.01, 0.02)}, {})
    ev = evaluation.load_evaluation(path)
    assert ev.calibration == pytest.approx((a, b))
    assert ev.calibration_moves == pytest.approx((1.2, -0.1, 0.01, 0.02))
    assert evaluation.read_weights(path)["calibration_moves"] == pytest.approx(
        [1.2, -0.1, 0.01, 0.02])
    for bad, why in (((0.0, 0.1), "calibration_moves must be two numbers a > 0"),
                     ((1.0, 0.0, 1.0), "calibration_moves must be two numbers"),
                     ((1.0, float("nan")), "calibration_moves holds a value that is not finite")):
        evaluation.save_weights(path, {**w, "calibration_moves": bad}, {})
        with pytest.raises(InvalidWeightsError, match=why):
            evaluation.load_evaluation(path)


def test_reported_win_probability_is_calibrated(tmp_path):
    # the shipped weights with two calibrations: the same search, only the reported
    # win probability is mapped
    with np.load(evaluation.DEFAULT_WEIGHTS) as z:
        w = {k: z[k] for k in ("lin", "margin", "hidden_w", "hidden_b", "out_w")}
    s = mid_position(4, 16)
    out = {}
    for name, cal in (("none", (1.0, 0.0)), ("half", (0.5, 0.0))):
        path = tmp_path / f"{name}.npz"
        evaluation.save_weights(path, {**w, "calibration": cal}, {})
        out[name] = jp.Engine(weights=str(path)).analyse(s, iterations=500, seed=2)
    assert [c.visits for c in out["none"]] == [c.visits for c in out["half"]]
    for a, b in zip(out["none"], out["half"]):
        if a.decisive is None:
            assert b.win_probability == pytest.approx(
                evaluation.calibrated(a.win_probability, (0.5, 0.0)), rel=1e-9)


def test_a_search_that_read_the_moves_reports_by_its_own_map(tmp_path):
    # two files alike but for the map of a search that read the round's moves: given the
    # round's moves, the same search reports by that map; given the position alone, by
    # the other; the moves and visits are the same whatever the maps
    from test_history import played
    with np.load(evaluation.DEFAULT_WEIGHTS) as z:
        w = {k: z[k] for k in ("lin", "margin", "hidden_w", "hidden_b", "out_w")}
    s, pairs = played(5, 9, "greedy")
    v = s.view(s.to_move)
    out = {}
    for name, moves_map in (("same", (1.0, 0.0)), ("own", (0.5, 0.3))):
        path = tmp_path / f"{name}.npz"
        evaluation.save_weights(path, {**w, "calibration": (1.0, 0.0),
                                       "calibration_moves": moves_map}, {})
        eng = jp.Engine(weights=str(path))
        out[name] = (eng.analyse(v, iterations=400, seed=2, history=pairs),
                     eng.analyse(v, iterations=400, seed=2))
    for k in (0, 1):
        assert [(c.move, c.visits) for c in out["same"][k]] == \
            [(c.move, c.visits) for c in out["own"][k]]
    searched = [(a, b) for a, b in zip(out["same"][0], out["own"][0]) if a.decisive is None]
    assert searched
    for a, b in searched:
        assert b.win_probability == pytest.approx(
            evaluation.calibrated(a.win_probability, (0.5, 0.3)), rel=1e-9)
        assert b.win_probability != pytest.approx(a.win_probability)
    for a, b in zip(out["same"][1], out["own"][1]):
        assert b.win_probability == a.win_probability


def test_learn_pipeline_end_to_end(tmp_path):
    from jaipur_ai.learning.pipeline import learn
    meta = learn(str(tmp_path / "run"), workers=1, quiet=True, policy_rounds=300,
                 generations=1, rounds=4, iterations=30, last_rounds=6, last_iterations=20,
                 epochs=2, calibration_rounds=3, calibration_iterations=40)
    out = tmp_path / "run" / "evaluation.npz"
    ev = evaluation.load_evaluation(out)
    assert [g["generation"] for g in meta["generations"]] == [0, 1]
    # the last generation is played with its own settings
    assert "iterations=20," in meta["generations"][1]["engine"]
    assert meta["generations"][1]["rounds"] == 300 + 6
    assert meta["generations"][0]["holdout_logloss"] < meta["generations"][0]["constant_logloss"]
    assert len(ev.calibration) == 2 and ev.calibration[0] > 0
    assert len(ev.calibration_moves) == 2 and ev.calibration_moves != ev.calibration
    saved = evaluation.read_meta(out)
    assert saved["settings"]["policy_rounds"] == 300
    # the map is fitted on the final weights' own play by the default engine
    assert saved["calibration"] == pytest.approx(list(ev.calibration))
    assert saved["calibration_moves"] == pytest.approx(list(ev.calibration_moves))
    assert saved["calibration_data"]["rounds"] == 3
    assert saved["calibration_data"]["iterations"] == 40


def _shipped_arrays():
    with np.load(evaluation.DEFAULT_WEIGHTS) as z:
        return {k: z[k] for k in ("lin", "margin", "hidden_w", "hidden_b", "out_w")}


def test_calibrate_fits_the_raw_estimates_whatever_map_the_file_holds(tmp_path):
    from jaipur_ai.learning.calibration import calibrate
    w = _shipped_arrays()
    recs = {}
    for name, cal in (("plain", (1.0, 0.0)), ("mapped", (0.5, 0.3))):
        path = tmp_path / f"{name}.npz"
        evaluation.save_weights(path, {**w, "calibration": cal}, {"made": name})
        recs[name] = calibrate(path, tmp_path / f"cal-{name}", rounds=3, iterations=60,
                               seed=5, workers=1, quiet=True)
    # the self-play records the search's raw estimates, so the old map does not matter
    for k in ("calibration", "calibration_moves"):
        assert recs["plain"][k] == pytest.approx(recs["mapped"][k])
        assert recs["plain"][k] != pytest.approx([1.0, 0.0])
    # two maps: the cold one on the positions analysed again without the moves, the other
    # on the self-play's own values after the round's first move
    assert recs["plain"]["calibration"] != pytest.approx(recs["plain"]["calibration_moves"])
    data = recs["plain"]["calibration_data"]
    assert 0 < data["moves"]["positions_fitted"] <= data["moves"]["positions"] < data["positions"]
    ev = evaluation.load_evaluation(tmp_path / "mapped.npz")
    assert ev.calibration == pytest.approx(tuple(recs["mapped"]["calibration"]))
    assert ev.calibration_moves == pytest.approx(tuple(recs["mapped"]["calibration_moves"]))
    # resumed: the cold analyses are kept, and a rerun fits the same maps from them
    assert len(list((tmp_path / "cal-plain" / "selfplay" / "cold").glob("*.npz"))) == 1
    again = calibrate(tmp_path / "plain.npz", tmp_path / "cal-plain", rounds=3, iterations=60,
                      seed=5, workers=1, quiet=True)
    assert again["calibration"] == recs["plain"]["calibration"]
    meta = evaluation.read_meta(tmp_path / "mapped.npz")
    assert meta["made"] == "mapped" and meta["calibration_data"]["rounds"] == 3
    assert meta["calibration_data"]["positions"] > 3 * 20
    with np.load(tmp_path / "mapped.npz") as z:      # the evaluation itself is unchanged
        assert all(np.array_equal(z[k], w[k]) for k in w)
    # asked for fewer rounds than its folder holds, it fits on those rounds only
    fewer = calibrate(tmp_path / "plain.npz", tmp_path / "cal-plain", rounds=2, iterations=60,
                      seed=5, workers=1, quiet=True)
    assert (0 < fewer["calibration_data"]["positions"]
            < recs["plain"]["calibration_data"]["positions"])
    # asked for more than a short last shard of an earlier run holds: refused, not fitted
    # on fewer rounds than it says
    with pytest.raises(InvalidDataError, match="holds 3 of the 5 rounds asked for"):
        calibrate(tmp_path / "plain.npz", tmp_path / "cal-plain", rounds=5, iterations=60,
                  seed=5, workers=1, quiet=True)


def test_cold_values_do_not_depend_on_the_chunks_nor_the_workers(tmp_path):
    # each cold analysis has its own seed: the values are the same however the positions
    # are cut into chunks and spread over processes
    from jaipur_ai.learning.calibration import cold_values, moves_read
    folder = tmp_path / "sp"
    selfplay(str(folder), 2, "ismcts:iterations=40", seed=3, shard_rounds=1, workers=1)
    d = train.load_shards(str(folder))
    rows = np.flatnonzero(np.isfinite(d["value"]))[:9]
    assert moves_read(d)[rows].tolist() == (d["ply"][rows] >= 1).tolist()
    one, fb1 = cold_values(tmp_path / "a", "ismcts:iterations=40", d, rows, 7, workers=1)
    two, fb2 = cold_values(tmp_path / "b", "ismcts:iterations=40", d, rows, 7, workers=2,
                           chunk=4)
    assert np.isfinite(one).all() and (0 < one).all() and (one < 1).all()
    assert np.array_equal(one, two) and fb1 == fb2
    other, _ = cold_values(tmp_path / "c", "ismcts:iterations=40", d, rows, 8, workers=1)
    assert not np.array_equal(one, other)


def test_calibrate_command(tmp_path, capsys):
    from jaipur_ai.doors.cli import main
    src = tmp_path / "w.npz"
    evaluation.save_weights(src, {**_shipped_arrays(), "calibration": (0.7, 0.1)}, {})
    out = tmp_path / "out.npz"
    assert main(["calibrate", str(src), str(tmp_path / "cal"), "--rounds", "2",
                 "--iterations", "40", "--workers", "1", "--out", str(out), "-q"]) == 0
    printed = capsys.readouterr().out
    assert "calibration (cold) a=" in printed and "calibration_moves a=" in printed
    assert evaluation.load_evaluation(src).calibration == pytest.approx((0.7, 0.1))
    assert evaluation.load_evaluation(out).calibration != pytest.approx((0.7, 0.1))
    # a bad weights file is refused by name, before any self-play
    assert main(["calibrate", str(tmp_path / "nope.npz"), str(tmp_path / "cal2")]) == 2
    assert "nope.npz: no such file" in capsys.readouterr().err
    assert not (tmp_path / "cal2").exists()
    with np.load(src) as z:
        np.savez(tmp_path / "badmeta.npz", **{**{k: z[k] for k in z.files},
                                              "meta": np.array("[1]")})
    assert main(["calibrate", str(tmp_path / "badmeta.npz"), str(tmp_path / "cal3")]) == 2
    assert "badmeta.npz: meta is not a JSON object" in capsys.readouterr().err
    # the same folder with other weights is refused, not reused for them
    other = tmp_path / "other.npz"
    evaluation.save_weights(other, _random_weights(), {})
    assert main(["calibrate", str(other), str(tmp_path / "cal"), "--rounds", "2",
                 "--iterations", "40", "--workers", "1", "-q"]) == 2
    assert "made with other settings" in capsys.readouterr().err
    # and an --out in a folder that does not exist, before any self-play
    assert main(["calibrate", str(src), str(tmp_path / "cal4"), "--out",
                 str(tmp_path / "no" / "w.npz")]) == 2
    assert "its folder does not exist" in capsys.readouterr().err
    assert not (tmp_path / "cal4").exists()


def test_a_map_that_moves_with_the_search_size(tmp_path):
    # estimates that are more optimistic at small budgets: the fitted map's slope grows
    # with the budget, and at 1,000 iterations it is the (a, b) part alone
    rng = np.random.default_rng(5)
    n = 20000
    its = rng.choice([1000.0, 8000.0, 64000.0], n)
    truth = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < truth).astype(float)
    lg = np.log(truth / (1 - truth))
    raw = 1 / (1 + np.exp(-lg * (1.6 - 0.1 * np.log(its / 1000))))   # overconfident
    cal = train.fit_calibration(raw, y, its)
    assert len(cal) == 4 and cal[2] > 0
    for budget in (1000.0, 8000.0, 64000.0):
        m = its == budget
        mapped = np.array([evaluation.calibrated(p, cal, budget) for p in raw[m]])
        assert train.reliability(mapped, y[m])["ece"] < 0.02
    assert evaluation.calibrated(0.7, cal, 1000) == pytest.approx(
        evaluation.calibrated(0.7, cal[:2]), rel=1e-12)
    # a weights file holds the four numbers, and the search reads them
    w = {**_shipped_arrays(), "calibration": cal}
    path = tmp_path / "w4.npz"
    evaluation.save_weights(path, w, {})
    assert evaluation.load_evaluation(path).calibration == pytest.approx(cal)
    evaluation.save_weights(path, {**w, "calibration": (1.0, 0.0, 0.1)}, {})
    with pytest.raises(InvalidWeightsError, match="calibration"):
        evaluation.load_evaluation(path)


def test_calibrate_at_several_budgets(tmp_path):
    from jaipur_ai.learning.calibration import calibrate
    src = tmp_path / "w.npz"
    evaluation.save_weights(src, _shipped_arrays(), {})
    rec = calibrate(src, tmp_path / "cal", rounds=10, iterations=[300, 1000], seed=2,
                    workers=1, quiet=True)
    assert len(rec["calibration"]) == 4
    data = rec["calibration_data"]
    assert data["iterations"] == [300, 1000] and set(data["by_budget"]) == {"300", "1000"}
    assert (tmp_path / "cal" / "selfplay-300").is_dir()
    assert evaluation.load_evaluation(src).calibration == pytest.approx(rec["calibration"])
    # the reported win probability reads the search's size
    e = jp.Engine(weights=str(src))
    a = e.analyse(mid_position(), iterations=300, seed=1, top=1)
    raw = jp.Engine(weights=str(tmp_path / "cal" / next(
        p.name for p in (tmp_path / "cal").glob("uncalibrated-*.npz")))).analyse(
        mid_position(), iterations=300, seed=1, top=1)
    assert a.candidates[0].win_probability == pytest.approx(evaluation.calibrated(
        raw.candidates[0].win_probability, tuple(rec["calibration"]), 300), rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(p=st.floats(0.01, 0.99), a=st.floats(0.2, 2.5), b=st.floats(-2.0, 2.0),
       c=st.floats(-0.2, 0.2), d=st.floats(-0.2, 0.2), n=st.floats(10.0, 1e6))
def test_uncalibrated_undoes_the_map_at_any_budget(p, a, b, c, d, n):
    # bench/bench_calibration.py re-scores values reported under one map with another
    # (within these bounds the mapped logit stays below 22, where a double still tells
    # the reported value from 1 closely enough to take it back)
    for cal in ((a, b), (a, b, c, d)):
        assert evaluation.uncalibrated(evaluation.calibrated(p, cal, n), cal, n) == \
            pytest.approx(p, abs=1e-7)
    slope, offset = evaluation.map_coefficients((a, b, c, d), n)
    assert slope >= evaluation.MIN_SLOPE
    assert evaluation.map_coefficients((a, b), n) == (a, b)


# ------------------------------------------------------------------ .npz members' headers
# (issue 51, item 8): a member's .npy header is checked against its data before any array
# is made, so a header that claims more than the file holds is a typed error, not a
# MemoryError

def _npy(descr: str, shape: tuple, data: bytes, fortran: bool = False) -> bytes:
    import io
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": fortran,
                                               "shape": shape})
    return buf.getvalue() + data


def _rewrite_npz(path, arrays: dict, members: list) -> None:
    """``path`` as an .npz of ``arrays`` (np.save'd) and then the raw ``members``."""
    import io
    import warnings
    import zipfile
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # (zipfile warns of a duplicate name)
        with zipfile.ZipFile(path, "w") as z:
            for k, v in arrays.items():
                buf = io.BytesIO()
                np.save(buf, v)
                z.writestr(k + ".npy", buf.getvalue())
            for name, data in members:
                z.writestr(name, data)


BAD_MEMBERS = [
    ("lin.npy", _npy("<f8", (10**12,), b"\0" * 16), "header claims shape (1000000000000,)"),
    ("lin.npy", _npy("<f8", (10**6, 10**6), b"\0" * 16, fortran=True), "header claims"),
    ("lin.npy", _npy("<f8", (3,), b"\0" * 16), "the member holds 16"),
    ("lin.npy", _npy("|O", (2,), b"\0" * 16), "not of numbers or text"),
    ("lin.npy", _npy("<f8", (-2,), b""), "header claims shape (-2,)"),
    ("lin.npy", b"\x93NUMPY\x01\x00\x05\x00{'de", "not a readable"),
    ("lin", b"\0" * 8, "not an array"),
    ("lin.npy", b"\x93NUMPY\x01\x00\x1c\x00{'descr': '<f8', 'shape': (\n", "numpy cannot read"),
]


@pytest.mark.parametrize("member, data, why", BAD_MEMBERS,
                         ids=["huge", "fortran", "short", "object", "negative", "torn", "raw",
                              "unparsable"])
def test_a_weights_member_is_checked_before_it_is_read(tmp_path, member, data, why):
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, _random_weights(), {})
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "lin"}
    _rewrite_npz(path, arrays, [(member, data)])
    with pytest.raises(InvalidWeightsError, match=re.escape(why)) as e:
        evaluation.load_evaluation(path)
    assert e.value.field == str(path)
    with pytest.raises(InvalidWeightsError):
        jp.Engine(evaluation="learned", weights=str(path))


def test_a_weights_file_with_a_member_twice_is_refused(tmp_path):
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, _random_weights(), {})
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    _rewrite_npz(path, arrays, [("lin.npy", _npy("<f8", (10**12,), b"\0" * 16))])
    with pytest.raises(InvalidWeightsError, match="lin: the archive holds two members"):
        evaluation.load_evaluation(path)
    # the command line reports it in one line, exit status 2, before any game
    from jaipur_ai.doors.cli import main
    assert main(["match", f"ismcts:iterations=10,weights={path}", "greedy", "--games", "1",
                 "--quiet"]) == 2


def test_a_fortran_ordered_weights_file_still_loads(tmp_path):
    path = tmp_path / "w.npz"
    w = _random_weights()
    w["hidden_w"] = np.asfortranarray(w["hidden_w"])
    evaluation.save_weights(path, w, {})
    assert np.array_equal(evaluation.read_weights(path)["hidden_w"], w["hidden_w"])


@pytest.fixture(scope="module")
def shard_arrays(tmp_path_factory):
    d = tmp_path_factory.mktemp("shards")
    selfplay(str(d), rounds=4, engine="policy", seed=1, shard_rounds=4, progress=False)
    with np.load(d / "shard-00000.npz") as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("change, why", [
    (lambda a: [("result.npy", _npy("<f4", (10**12,), b"\0" * 16))], "result: its header claims"),
    (lambda a: [("result.npy", _npy("<f4", (10**5, 10**7), b"", fortran=True))], "header claims"),
    (lambda a: [("result.npy", _npy("<f4", (10**8,), b"\0" * 16))], "the member holds 16"),
    (lambda a: a.update(result=np.array(0.5)), "one row per position"),
    (lambda a: a.update(round=np.array(["a"] * len(a["result"]))), "round holds <U1, not whole"),
    (lambda a: a.update(features=a["features"].astype(str)), "features holds"),
    (lambda a: a.update(round_offset=np.array([1, 2])), "round_offset has shape"),
    (lambda a: a.update(visits=a["visits"][:3]), "visits has shape"),
    (lambda a: a.update(state=a["state"].reshape(len(a["result"]), 2, -1)), "state has shape"),
], ids=["huge", "fortran", "over", "0-d", "text-round", "text-features", "offset", "short", "3-d"])
def test_a_bad_shard_is_an_invalid_data_error(tmp_path, shard_arrays, change, why):
    arrays = dict(shard_arrays)
    members = change(arrays) or []
    if members:
        arrays.pop(members[0][0][:-4])
    path = tmp_path / "shard-00000.npz"
    _rewrite_npz(path, arrays, members)
    with pytest.raises(InvalidDataError, match=re.escape(why)) as e:
        train.load_shards(str(tmp_path))
    assert e.value.field == str(path)


def test_shards_whose_arrays_differ_in_width_are_an_invalid_data_error(tmp_path, shard_arrays):
    np.savez(tmp_path / "shard-00000.npz", **shard_arrays)
    np.savez(tmp_path / "shard-00001.npz", **{**shard_arrays,
                                               "child_action": shard_arrays["child_action"][:, :5]})
    with pytest.raises(InvalidDataError, match="child_action of 5 columns, the shards before "
                                               "it have 32"):
        train.load_shards(str(tmp_path))


# ------------------------------------------------------------------ output paths
# (issue 51, item 1: train --out /nonexistent/w.npz failed after training, --out /tmp left
# /tmp.tmp, selfplay /dev/null raised FileExistsError): checked before the work

def test_train_out_is_checked_before_training(tmp_path, capsys, monkeypatch):
    from jaipur_ai.doors.cli import main
    from jaipur_ai.learning import pipeline

    def no_work(*a, **kw):
        raise AssertionError("trained before the output path was checked")
    monkeypatch.setattr(pipeline, "load_shards", no_work)
    for out, why in [(str(tmp_path / "nope" / "w.npz"), "cannot write it: no such folder"),
                     (str(tmp_path), "a folder, not a weights file name")]:
        assert main(["train", str(tmp_path), "--out", out]) == 2
        o, err = capsys.readouterr()
        assert o == "" and err.count("\n") == 1 and f"{out}: {why}" in err
    assert not (tmp_path.parent / (tmp_path.name + ".tmp")).exists()


def test_weights_that_cannot_be_written_after_training_follow_the_report(tmp_path, capsys,
                                                                         monkeypatch):
    import errno
    import os
    from jaipur_ai.doors.cli import main
    from jaipur_ai.learning import pipeline
    selfplay(str(tmp_path / "d"), rounds=10, engine="policy", seed=1, shard_rounds=10,
             progress=False)

    def disk_full(path, *a):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(pipeline, "save_weights", disk_full)
    out = str(tmp_path / "w.npz")
    assert main(["train", str(tmp_path / "d"), "--out", out, "--epochs", "1"]) == 2
    o, err = capsys.readouterr()
    assert "held out" in o and err.count("\n") == 1
    assert f"{out}: cannot write it: No space left on device (the weights of the fit above " \
           "are not saved)" in err
    # and a save that fails leaves no FILE.tmp beside the path
    (tmp_path / "taken").mkdir()
    with pytest.raises(OSError):
        evaluation.save_weights(tmp_path / "taken", _random_weights(), {})
    assert not (tmp_path / "taken.tmp").exists()


@pytest.mark.parametrize("command", ["selfplay", "learn", "improve"])
def test_an_output_folder_that_is_a_file_is_refused_before_the_work(tmp_path, capsys, command):
    from jaipur_ai.doors.cli import main
    with pytest.raises(InvalidDataError, match="/dev/null: not a folder"):
        selfplay("/dev/null", rounds=2, engine="policy", progress=False)
    assert main([command, "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "/dev/null: not a folder" in err
    (tmp_path / "f").write_text("")
    assert main([command, str(tmp_path / "f" / "sub")]) == 2
    assert "cannot make the folder" in capsys.readouterr().err


def test_train_refuses_a_hidden_layer_the_engine_could_not_load(tmp_path, capsys):
    from jaipur_ai.doors.cli import main
    assert main(["train", str(tmp_path), "--hidden", "65", "--out",
                 str(tmp_path / "w.npz")]) == 2
    assert "--hidden" in capsys.readouterr().err and not (tmp_path / "w.npz").exists()


def test_train_from_a_start_adds_a_hidden_layer_and_keeps_the_policy(tmp_path, capsys):
    # a hidden layer fitted on top of the shipped linear weights: the fit starts from
    # their value, the result keeps their move policy and calibration map, and the
    # tree's priors go on reading the linear value the policy was fitted to
    from jaipur_ai.doors.cli import main
    selfplay(str(tmp_path / "d"), rounds=10, engine="policy", seed=1, shard_rounds=10,
             progress=False)
    out = str(tmp_path / "deep.npz")
    assert main(["train", str(tmp_path / "d"), "--start", str(evaluation.DEFAULT_WEIGHTS),
                 "--hidden", "8", "--epochs", "1", "--out", out]) == 0
    start = evaluation.read_weights(evaluation.DEFAULT_WEIGHTS)
    got = evaluation.read_weights(out)
    assert got["hidden_w"].shape == (8, N)
    np.testing.assert_array_equal(got[evaluation.PRIOR_LIN], start["lin"])
    for k in evaluation.POLICY_ARRAYS + ("calibration",):
        np.testing.assert_array_equal(got[k], start[k])
    assert not np.array_equal(got["lin"], start["lin"])          # the value was fitted
    ev = evaluation.load_evaluation(out)
    assert ev.has_policy and ev.has_prior_lin and ev.n_hidden == 8
    # --init-seed draws the new layer's first weights apart from the fit's seed
    other = str(tmp_path / "other.npz")
    assert main(["train", str(tmp_path / "d"), "--start", str(evaluation.DEFAULT_WEIGHTS),
                 "--hidden", "8", "--epochs", "1", "--init-seed", "5", "--out", other]) == 0
    assert not np.array_equal(evaluation.read_weights(other)["hidden_w"], got["hidden_w"])
    # from a start with a hidden layer, --hidden defaults to its width
    again = str(tmp_path / "again.npz")
    assert main(["train", str(tmp_path / "d"), "--start", out, "--epochs", "1",
                 "--out", again]) == 0
    assert evaluation.read_weights(again)["hidden_w"].shape == (8, N)
    np.testing.assert_array_equal(evaluation.read_weights(again)[evaluation.PRIOR_LIN],
                                  start["lin"])
    # refused with a typed error: a start that is not a weights file (before any
    # training), a start of another feature set than the data, --init-seed alone
    capsys.readouterr()
    assert main(["train", str(tmp_path / "d"), "--start", str(tmp_path / "none.npz"),
                 "--out", out]) == 2
    assert "none.npz: no such file" in capsys.readouterr().err
    v1 = ROOT / "bench" / "weights" / "previous.npz"
    assert main(["train", str(tmp_path / "d"), "--start", str(v1), "--out", out]) == 2
    assert f"{v1}: weights of 29 features; the data has {N}" in capsys.readouterr().err
    assert main(["train", str(tmp_path / "d"), "--init-seed", "3", "--out", out]) == 2
    assert "--init-seed" in capsys.readouterr().err


def test_a_copy_with_another_calibration_keeps_prior_lin_and_the_fingerprint_sees_it(tmp_path):
    w = evaluation.read_weights(evaluation.DEFAULT_WEIGHTS)
    with_lin, without = tmp_path / "with.npz", tmp_path / "without.npz"
    evaluation.save_weights(with_lin, {**w, evaluation.PRIOR_LIN: w["lin"] / 2}, {})
    evaluation.save_weights(without, w, {})
    assert evaluation.fingerprint(with_lin) != evaluation.fingerprint(without)
    assert evaluation.fingerprint(without) == evaluation.fingerprint(evaluation.DEFAULT_WEIGHTS)
    out = tmp_path / "recal.npz"
    evaluation.with_calibration(with_lin, (1.2, -0.3), out, {"why": "test"})
    got = evaluation.read_weights(out)
    np.testing.assert_array_equal(got[evaluation.PRIOR_LIN], w["lin"] / 2)
    assert tuple(got["calibration"]) == (1.2, -0.3)
    assert evaluation.fingerprint(out) == evaluation.fingerprint(with_lin)


@pytest.mark.parametrize("h", [1, 7, 8, 9, 63, 64])
def test_a_hidden_layer_of_each_edge_width_evaluates_as_numpy_does(h):
    # widths around the core's blocks of eight units
    r = np.random.default_rng(h)
    w = {"lin": r.normal(size=N), "margin": r.normal(size=N),
         "hidden_w": r.normal(size=(h, N)), "hidden_b": r.normal(size=h),
         "out_w": r.normal(size=h) / 8}
    ev = evaluation.evaluation_of(w)
    for seed in range(3):
        st = mid_position(seed, 14)
        f = _features.features_of(st._core, 0)
        assert ev.value(st._core, 0)[0] == pytest.approx(float(train.predict(w, f[None])[0]),
                                                         rel=1e-9, abs=1e-12)

"""The learned move policy (expert iteration): move features, weights, training rows,
the fit, the search reading it, and a small generation of ``improve`` end to end."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import jaipur_ai as jp
from jaipur_ai.errors import InvalidDataError, InvalidWeightsError
from jaipur_ai.learning import policy as pol
from jaipur_ai.learning.expert import improve
from jaipur_ai.learning.selfplay import selfplay
from jaipur_ai.learning.train import load_shards
from jaipur_ai.rules._cards import HAND_LIMIT, TOKENS
from jaipur_ai.search import _movefeatures as mf
from jaipur_ai.search import evaluation
from jaipur_ai.search._evaluation import Evaluation
from jaipur_ai.search._search import prior_logits
from search_positions import mid_position
from strategies import running_states

M = mf.N_MOVE_FEATURES_PY


def reference_move_features(raw: dict, move: jp.Move) -> np.ndarray:
    """The move features computed from the rules' plain data (the compiled ones must
    agree to the last bit of a float64)."""
    p = raw["to_move"]
    o = 1 - p
    hand = sum(raw["hand"][p])
    herd = raw["herd"][p]
    camels = raw["market"][6]
    late = 1.0 - len(raw["deck"]) / 40.0
    f = np.zeros(M)
    kinds = {"take": 0, "camels": 1, "sell": 2, "swap": 3}
    f[kinds[move.kind]] = 1.0
    if move.kind == "take":
        f[4 + move.good] = 1.0
        hand += 1
        f[25] = late
    elif move.kind == "camels":
        f[16] = camels / 5.0
        herd += camels
        camels = 0
        f[27] = late
    elif move.kind == "sell":
        g, n = move.good, move.count
        f[10 + g] = n
        f[18], f[19], f[20] = float(n >= 3), float(n >= 4), float(n >= 5)
        pos = raw["tok_pos"][g]
        stack = TOKENS[g]
        if pos < len(stack):
            f[21] = sum(stack[pos:pos + n]) / 10.0
            f[28] = float(pos + n >= len(stack))
        hand -= n
        f[24] = late
    else:
        for g in range(6):
            f[4 + g] = move.take[g]
            f[10 + g] = move.give[g]
        f[17] = move.give[6] / 5.0
        hand += move.give[6]
        herd -= move.give[6]
        camels += move.give[6]
        f[26] = late
    f[22] = hand / HAND_LIMIT
    f[23] = herd / 11.0
    f[29] = camels / 5.0
    f[30] = float(hand >= HAND_LIMIT)
    f[31] = (herd - raw["herd"][o]) / 5.0
    return f


@settings(max_examples=40, deadline=None)
@given(running_states(max_plies=120))
def test_move_features_equal_the_reference(state):
    raw = state._core.raw()
    for a in state._core.legal_actions()[:60]:
        got = mf.move_features_of(state._core, a)
        want = reference_move_features(raw, jp.Move.from_action_id(a))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_move_features_refuse_an_illegal_action():
    s = mid_position()
    illegal = next(a for a in range(200) if a not in s._core.legal_actions())
    with pytest.raises(ValueError, match="not legal"):
        mf.move_features_of(s._core, illegal)


# ------------------------------------------------------------------ weights files
def _policy(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {"prior_scale": 0.5, "prior_w": rng.normal(0, 0.3, M),
            "playout_w": rng.normal(0, 2.0, M)}


def _value_only() -> dict:
    """The shipped weights without their move policy (if they hold one)."""
    w = evaluation.read_weights(evaluation.DEFAULT_WEIGHTS)
    return {k: v for k, v in w.items() if k not in evaluation.POLICY_ARRAYS}


@pytest.fixture()
def plain(tmp_path):
    path = tmp_path / "plain.npz"
    evaluation.save_weights(path, _value_only(), {})
    return path


def test_weights_with_a_policy_round_trip(tmp_path, plain):
    w = _value_only()
    pol_arrays = _policy()
    path = tmp_path / "p.npz"
    evaluation.save_weights(path, {**w, **pol_arrays}, {"test": 1})
    back = evaluation.read_weights(path)
    for k, v in pol_arrays.items():
        np.testing.assert_array_equal(back[k], v)
    assert evaluation.load_evaluation(path).has_policy
    assert not evaluation.load_evaluation(plain).has_policy
    # the policy is part of what the fingerprint names; the calibration map is not
    assert evaluation.fingerprint(path) != evaluation.fingerprint(plain)
    evaluation.with_calibration(path, (0.9, 0.1), tmp_path / "c.npz", {})
    assert evaluation.fingerprint(tmp_path / "c.npz") == evaluation.fingerprint(path)
    np.testing.assert_array_equal(evaluation.read_weights(tmp_path / "c.npz")["prior_w"],
                                  pol_arrays["prior_w"])


@pytest.mark.parametrize("change, reason", [
    (lambda a: a.update(prior_w=np.zeros(M + 1)), "prior_w must be"),
    (lambda a: a.pop("prior_scale"), "go together"),
    (lambda a: a.update(prior_scale=np.array(-1.0)), "at least 0"),
    (lambda a: a.update(playout_w=np.full(M, np.nan)), "not finite"),
    (lambda a: a.update(move_feature_names=np.array(["x"] * M)), "move features version"),
])
def test_bad_policy_arrays_are_refused_by_name(tmp_path, change, reason):
    w = _value_only()
    path = tmp_path / "p.npz"
    evaluation.save_weights(path, {**w, **_policy()}, {})
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(InvalidWeightsError, match=reason) as e:
        evaluation.load_evaluation(bad)
    assert str(bad) in str(e.value)


# ------------------------------------------------------------------ the search reads it
def _engine(ev_path, **kw):
    return jp.Engine(weights=str(ev_path), threads=1, seed=5, **kw)


def test_a_zero_policy_searches_as_no_policy(tmp_path, plain):
    # scale 1, no feature weights: the priors and playouts the search had before
    w = _value_only()
    path = tmp_path / "zero.npz"
    evaluation.save_weights(path, {**w, "prior_scale": 1.0, "prior_w": np.zeros(M),
                                   "playout_w": np.zeros(M)}, {})
    view = mid_position().view(0)
    a = _engine(path).analyse(view, iterations=1500, top=None)
    b = _engine(plain).analyse(view, iterations=1500, top=None)
    assert [(c.move, c.visits) for c in a.candidates] == [(c.move, c.visits)
                                                          for c in b.candidates]


def test_a_policy_changes_the_search_and_the_switch_turns_it_off(tmp_path, plain):
    w = _value_only()
    path = tmp_path / "p.npz"
    evaluation.save_weights(path, {**w, **_policy(3)}, {})
    view = mid_position().view(0)

    def visits(e):
        return [(c.move, c.visits) for c in e.analyse(view, iterations=1500,
                                                      top=None).candidates]
    base = visits(_engine(plain))
    assert visits(_engine(path)) != base
    assert visits(_engine(path, settings=jp.Settings().replace(policy=False))) == base
    # and the searches with a policy stay deterministic
    assert visits(_engine(path)) == visits(_engine(path))


# ------------------------------------------------------------------ the fit
@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    d = tmp_path_factory.mktemp("sp")
    selfplay(str(d), 24, "ismcts:iterations=300", seed=4, shard_rounds=12, workers=1,
             progress=False)
    return load_shards(str(d))


def test_policy_rows_cover_the_candidates_with_visit_shares(searched):
    rows = pol.rows_of(searched, evaluation.default_evaluation())
    starts = pol._starts(rows["position"])
    sums = np.add.reduceat(rows["target"], starts)
    np.testing.assert_allclose(sums, 1.0)
    assert rows["features"].shape == (len(rows["target"]), M)
    assert np.all(rows["target"] >= 0)
    # every searched position of a running round has rows (some candidate was visited)
    assert len(starts) > 0.9 * len(searched["result"])


def test_the_fitted_prior_predicts_the_search_better_than_the_prior_it_started_from(searched):
    rows = pol.rows_of(searched, evaluation.default_evaluation())
    weights, rep = pol.fit_policy(rows, seed=1, holdout=0.25)
    before, after = rep["prior_before"], rep["prior_after"]
    assert after["cross_entropy"] < before["cross_entropy"]
    assert after["top1"] >= before["top1"]
    assert weights["prior_w"].shape == (M,) and weights["playout_w"].shape == (M,)
    assert weights["prior_scale"] >= 0


def test_fitted_logits_equal_the_search_priors(searched, tmp_path):
    # the trained model as numpy evaluates it, and as the compiled search reads it
    rows = pol.rows_of(searched, evaluation.default_evaluation())
    w, _ = pol.fit_policy(rows, seed=1)
    ev = Evaluation(*[_value_only()[k] for k in
                      ("lin", "margin", "hidden_w", "hidden_b", "out_w")], **w)
    s = mid_position(seed=9)._core
    got = prior_logits(s, ev)
    acts = [a for a, _ in got]
    one = pol.rows_of({"state": np.frombuffer(_state(s), np.uint8)[None, :],
                       "child_action": np.array([acts + [-1] * (32 - len(acts))], np.int32),
                       "child_visits": np.ones((1, 32), np.int32), "round": np.zeros(1)},
                      evaluation.default_evaluation())
    want = w["prior_scale"] * one["prior_score"] + one["features"].astype(np.float64) @ w["prior_w"]
    np.testing.assert_allclose([z for _, z in got], want, rtol=1e-5, atol=1e-5)


def _one_position_rows(core, ev):
    """The policy's rows of one position, every candidate visited once."""
    acts = [a for a, _ in prior_logits(core, ev)]
    return pol.rows_of({"state": np.frombuffer(_state(core), np.uint8)[None, :],
                        "child_action": np.array([acts + [-1] * (32 - len(acts))], np.int32),
                        "child_visits": np.ones((1, 32), np.int32), "round": np.zeros(1)}, ev)


def test_the_priors_read_prior_lin_in_place_of_the_full_value(tmp_path):
    # a hidden layer's value at the leaves, a linear one of its own for the priors: the
    # leaf value is unchanged, and the priors are those of the linear model alone
    w = _value_only()
    n = len(w["lin"])
    r = np.random.default_rng(5)
    deep = {**w, "hidden_w": r.normal(size=(8, n)), "hidden_b": r.normal(size=8),
            "out_w": r.normal(size=8) / 4}
    path = tmp_path / "deep.npz"
    evaluation.save_weights(path, {**deep, evaluation.PRIOR_LIN: w["lin"]}, {})
    both = evaluation.load_evaluation(path)
    full = evaluation.evaluation_of(deep)
    linear = evaluation.evaluation_of(w)
    assert both.has_prior_lin and not full.has_prior_lin and both.n_hidden == 8
    np.testing.assert_array_equal(evaluation.read_weights(path)[evaluation.PRIOR_LIN], w["lin"])
    for seed in (3, 9):
        core = mid_position(seed=seed)._core
        assert both.value(core, 0) == full.value(core, 0)
        got = _one_position_rows(core, both)["prior_score"]
        np.testing.assert_array_equal(got, _one_position_rows(core, linear)["prior_score"])
        assert not np.array_equal(got, _one_position_rows(core, full)["prior_score"])


def test_a_prior_lin_of_the_wrong_length_is_a_typed_error(tmp_path):
    w = _value_only()
    path = tmp_path / "bad.npz"
    evaluation.save_weights(path, {**w, evaluation.PRIOR_LIN: w["lin"][:5]}, {})
    with pytest.raises(InvalidWeightsError, match="prior_lin"):
        evaluation.load_evaluation(path)


def _state(core) -> bytes:
    from jaipur_ai.learning._selfplay import state_bytes
    return state_bytes(core)


def test_softmax_fit_recovers_known_weights():
    rng = np.random.default_rng(0)
    n, k, d = 400, 6, 3
    x = rng.normal(size=(n * k, d))
    theta = np.array([1.5, -0.5, 0.8])
    z = (x @ theta).reshape(n, k)
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    starts = np.arange(0, n * k, k)
    got = pol.softmax_fit(x, p.ravel(), starts, np.zeros(d), l2=0.0)
    np.testing.assert_allclose(got, theta, atol=1e-6)


# ------------------------------------------------------------------ a small generation
def test_a_small_generation_plays_fits_gates_and_resumes(tmp_path):
    kw = dict(generations=1, rounds=6, iterations=120, gate_deals=2, gate_iterations=120,
              epochs=1, seed=3, calibration_rounds=3, calibration_iterations=60)
    s = improve(tmp_path, workers=1, quiet=True, **kw)
    g = s["generations"][0]
    # the gate: both weights against the gauntlet's other families on the same deals,
    # kept by the joint rating, not by a match against the parent
    assert g["games"] == 12 and g["gate"] == ["pimc", "handset", "expectimax"]
    assert g["accepted"] == (g["ratings"]["candidate"] > g["ratings"]["current"])
    assert g["ratings"]["pimc"] == 0.0
    assert (tmp_path / "gen0-gauntlet").is_dir() and (tmp_path / "gen1" / "gauntlet").is_dir()
    cand = evaluation.load_evaluation(tmp_path / "gen1" / "candidate.npz")
    assert cand.has_policy
    rep = g["report"]["policy"]
    assert rep["prior_after"]["cross_entropy"] <= rep["prior_before"]["cross_entropy"]
    kept = tmp_path / ("gen1/candidate.npz" if g["accepted"] else "gen0.npz")
    assert evaluation.fingerprint(tmp_path / "evaluation.npz") == evaluation.fingerprint(kept)
    # its reported win probability calibrated on its own play, last
    assert s["calibration_data"]["rounds"] == 3
    assert evaluation.load_evaluation(tmp_path / "evaluation.npz").calibration == \
        pytest.approx(tuple(s["calibration"]))
    # a second run finds the generation done and plays nothing again
    again = improve(tmp_path, workers=1, quiet=True, **kw)
    assert again["generations"] == s["generations"]
    log = (tmp_path / "generations.jsonl").read_text().splitlines()
    assert len(log) == 1
    # the folder holds that run: other settings are refused before any work
    with pytest.raises(InvalidDataError, match="other settings"):
        improve(tmp_path, workers=1, quiet=True, **{**kw, "rounds": 7})


def test_a_search_with_a_policy_is_fair(tmp_path):
    # the same view gives the same analysis whatever the real hidden cards
    w = _value_only()
    path = tmp_path / "p.npz"
    evaluation.save_weights(path, {**w, **_policy(5)}, {})
    s = mid_position(11, 25)
    v = s.view(s.to_move)
    other = next(x for x in (v.sample(k) for k in range(50)) if x != s)
    e = _engine(path)
    a = e.analyse(s, iterations=800, seed=3, top=None)
    b = e.analyse(other, iterations=800, seed=3, top=None)
    assert [(c.move, c.visits, c.win_probability) for c in a.candidates] == \
        [(c.move, c.visits, c.win_probability) for c in b.candidates]


def test_improve_refuses_bad_input_by_name(tmp_path, capsys):
    from jaipur_ai.doors.cli import main
    assert main(["improve", str(tmp_path / "a"), "--parts", "value,magic", "-q"]) == 2
    assert "parts: expected some of value, policy" in capsys.readouterr().err
    assert main(["improve", str(tmp_path / "b"), "--start", str(tmp_path / "no.npz"),
                 "-q"]) == 2
    assert "no.npz: no such file" in capsys.readouterr().err
    assert main(["improve", str(tmp_path / "c"), "--rounds", "0"]) == 2
    assert not (tmp_path / "b" / "gen1").exists()

"""The raw-input network beside the features, and the lookahead targets it is fitted to
(docs/search.md, "Raw inputs and lookahead targets")."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.errors import InvalidDataError, InvalidOptionError, InvalidWeightsError
from jaipur_ai.learning import train
from jaipur_ai.learning._selfplay import state_bytes, state_of_bytes
from jaipur_ai.learning.lookahead import lookahead, position_value
from jaipur_ai.learning.selfplay import selfplay
from jaipur_ai.rules._cards import TOKENS
from jaipur_ai.search import _features, evaluation
from jaipur_ai.search._rawinputs import N_RAW_PY as R, RAW_NAMES, raw_inputs_of, raw_rows
from search_positions import mid_position
from strategies import running_states

N = _features.N_FEATURES_PY


def reference_raw(raw: dict, p: int) -> np.ndarray:
    """The raw inputs as docs/search.md lists them, from the state's raw fields."""
    o = 1 - p
    h = raw["hand"]
    pts = [0, 0]
    x = list(np.array(h[p]) / 3) + list(np.array(h[o]) / 3)
    x += [raw["herd"][p] / 5, raw["herd"][o] / 5] + list(np.array(raw["market"]) / 2)
    left, top, next3, empty = [], [], [], 0
    for g in range(6):
        pos = raw["tok_pos"][g]
        rest = TOKENS[g][pos:]
        left.append(len(rest) / 5)
        top.append((rest[0] if rest else 0) / 5)
        next3.append(sum(rest[:3]) / 15)
        empty += not rest
        for i in range(pos):
            pts[(raw["tok_owner"][g] >> i) & 1] += TOKENS[g][i]
    bonus_left = []
    for k in range(3):
        for i in range(raw["bonus_pos"][k]):
            pts[(raw["bonus_owner"][k] >> i) & 1] += raw["bonus"][k][i]
        bonus_left.append((len(raw["bonus"][k]) - raw["bonus_pos"][k]) / 5)
    x += left + top + next3 + bonus_left
    x += [pts[p] / 50, pts[o] / 50, len(raw["deck"]) / 40, float(raw["to_move"] == p),
          raw["seals"][p], raw["seals"][o], empty / 3, sum(h[p]) / 7, sum(h[o]) / 7]
    return np.array(x)


@settings(max_examples=60, deadline=None)
@given(running_states(max_plies=120))
def test_raw_inputs_are_the_documented_counts(state):
    core = state._core
    rows = raw_rows(np.frombuffer(state_bytes(core), np.uint8)[None])
    mover = state.to_move
    for p in (0, 1):
        x = raw_inputs_of(core, p)
        assert x.shape == (R,) and len(RAW_NAMES) == R
        assert np.allclose(x, reference_raw(core.raw(), p), atol=1e-12)
        # the batch form: the mover's side first, then the other's (float32)
        assert np.allclose(rows[0, 0 if p == mover else 1], x, atol=1e-6)


def _raw_weights(r: np.random.Generator, units: int, hidden: int = 0) -> dict:
    return {"lin": r.normal(size=N), "margin": r.normal(size=N),
            "hidden_w": r.normal(size=(hidden, N)), "hidden_b": r.normal(size=hidden),
            "out_w": r.normal(size=hidden) / 8,
            "raw_w": r.normal(size=(units, R)), "raw_b": r.normal(size=units),
            "raw_out": r.normal(size=units) / 8}


@settings(max_examples=40, deadline=None)
@given(running_states(max_plies=120), st.integers(1, 128), st.integers(0, 8),
       st.integers(0, 2**32 - 1))
def test_a_raw_network_evaluates_as_numpy_does_and_is_antisymmetric(state, units, hidden,
                                                                     seed):
    # any width up to 128 units (summed in blocks of eight, inputs that are 0 skipped),
    # beside a hidden layer or not: the trainer's value, and the two players' add up to one
    w = _raw_weights(np.random.default_rng(seed), units, hidden)
    ev = evaluation.evaluation_of(w)
    assert ev.n_raw_hidden == units
    core = state._core
    for p in (0, 1):
        f = _features.features_of(core, p)
        raw = np.stack([raw_inputs_of(core, p), raw_inputs_of(core, 1 - p)])[None]
        win = ev.value(core, p)[0]
        assert win == pytest.approx(float(train.predict(w, f[None], raw)[0]), rel=1e-9,
                                    abs=1e-12)
        assert win + ev.value(core, 1 - p)[0] == pytest.approx(1.0, abs=1e-9)


def test_raw_weights_round_trip_and_are_checked(tmp_path):
    w = _raw_weights(np.random.default_rng(1), 12)
    path = tmp_path / "w.npz"
    evaluation.save_weights(path, w, {"test": True})
    back = evaluation.read_weights(path)
    for k in evaluation.RAW_ARRAYS:
        assert np.array_equal(back[k], w[k])
    s = mid_position(4, 18)
    assert evaluation.load_evaluation(path).value(s._core, 0) == \
        evaluation.evaluation_of(w).value(s._core, 0)
    # a weights file's value without the network is another value
    plain = {k: v for k, v in w.items() if not k.startswith("raw_")}
    assert evaluation.evaluation_of(plain).value(s._core, 0) != \
        evaluation.evaluation_of(w).value(s._core, 0)
    z = dict(np.load(path))

    def refused(change: dict, why: str, drop: tuple = ()) -> None:
        bad = {k: v for k, v in {**z, **change}.items() if k not in drop}
        p = tmp_path / "bad.npz"
        np.savez(p, **bad)
        with pytest.raises(InvalidWeightsError, match=re.escape(why)) as e:
            evaluation.load_evaluation(p)
        assert e.value.field == str(p)
    refused({"raw_names": np.array(RAW_NAMES[::-1])}, "raw inputs version 1 (51 of them)")
    refused({"raw_version": np.array(9)}, "this build computes version 1")
    refused({}, "raw_w, raw_b and raw_out go together", drop=("raw_out",))
    refused({"raw_w": np.zeros((12, R - 1))}, "raw network shapes")
    refused({"raw_w": np.zeros((129, R)), "raw_b": np.zeros(129), "raw_out": np.zeros(129)},
            "129 raw-network units, at most 128")
    refused({"raw_b": np.full(12, np.nan)}, "raw_b holds a value that is not finite")


def test_lookahead_targets_mix_the_value_and_the_result():
    data = {"result": np.array([1.0, 0.0, 0.5]), "lookahead": np.array([0.6, np.nan, 0.2])}
    assert train.lookahead_targets(data, 0.25).tolist() == pytest.approx([0.9, 0.0, 0.425])
    assert train.lookahead_targets(data, 1.0).tolist() == pytest.approx([0.6, 0.0, 0.2])
    with pytest.raises(InvalidOptionError, match="lookahead_mix"):
        train.lookahead_targets(data, 1.5)
    with pytest.raises(InvalidDataError, match="jaipur-ai lookahead"):
        train.lookahead_targets({"result": data["result"]}, 0.5)


def _forced(core, types):
    """A copy of a full state whose draw pile yields ``types`` first, in that order."""
    from jaipur_ai.rules._bridge import CoreState
    raw = core.raw()
    deck = list(raw["deck"])
    for j, t in enumerate(types):
        pos = len(deck) - 1 - j
        i = max(k for k in range(pos + 1) if deck[k] == t)
        deck[i], deck[pos] = deck[pos], deck[i]
    raw["deck"] = deck
    return CoreState.from_raw(raw)


def test_position_value_is_the_best_move_by_exact_draws():
    # one ply of lookahead by hand: each move's value is its refill's outcomes (at most
    # two cards here, so enumerated exactly) weighted by their hypergeometric chances,
    # each valued by the evaluation from the mover's side; the position's value is the
    # best of them
    from jaipur_ai.search._search import refill_outcomes
    ev = evaluation.default_evaluation()
    checked = 0
    for seed in range(40):
        s = mid_position(seed, 12)
        core = s._core
        raw = core.raw()
        if raw["market"][6] > 2 or any(s.apply(m).result is not None
                                       for m in s.legal_moves()):
            continue
        me = raw["to_move"]
        best = 0.0
        for a in core.legal_actions():
            outs = refill_outcomes(core, a, samples=4, top=8) or [((), 1.0)]
            assert sum(q for _, q in outs) == pytest.approx(1.0)
            v = 0.0
            for types, q in outs:
                after = _forced(core, types)
                after.apply_action(a)
                v += q * ev.value(after, me)[0]
            best = max(best, v)
        assert position_value(core, 1, ev, seed=seed) == pytest.approx(best, abs=1e-12)
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_lookahead_writes_resumes_and_feeds_a_raw_network(tmp_path):
    d = tmp_path / "g"
    selfplay(str(d), rounds=4, engine="ismcts:iterations=30", seed=2, shard_rounds=2,
             workers=1, progress=False)
    s = lookahead(str(d), depth=1, workers=1, progress=False)
    assert s["shards"] == 2 and s["valued"] > 0
    data = train.load_shards(str(d))
    la = data["lookahead"]
    assert len(la) == len(data["result"])
    ok = np.isfinite(la)
    assert ok.sum() == s["valued"] and np.all((la[ok] >= 0) & (la[ok] <= 1))
    # a rerun keeps the finished shards; other settings are refused
    before = (d / "lookahead" / "shard-00000.npz").stat().st_mtime_ns
    assert lookahead(str(d), depth=1, workers=1, progress=False)["valued"] == s["valued"]
    assert (d / "lookahead" / "shard-00000.npz").stat().st_mtime_ns == before
    with pytest.raises(InvalidOptionError, match="other settings"):
        lookahead(str(d), depth=2, workers=1, progress=False)
    for bad in (0, 9, True, "2"):
        with pytest.raises(InvalidOptionError, match="depth"):
            lookahead(str(d), depth=bad, workers=1, progress=False)
    with pytest.raises(InvalidDataError, match="no self-play shards"):
        lookahead(str(tmp_path / "nothing"), progress=False)
    # a lookahead file of another length is named
    np.savez(d / "lookahead" / "shard-00001.npz", value=np.zeros(3))
    with pytest.raises(InvalidDataError, match="each of the shard's") as e:
        train.load_shards(str(d))
    assert e.value.field.endswith("shard-00001.npz")
    (d / "lookahead" / "shard-00001.npz").unlink()
    data = train.load_shards(str(d))                    # (that shard's rows then NaN)
    # fitted beside a linear start, the network leaves the priors on the start's value
    start = evaluation.read_weights(evaluation.DEFAULT_WEIGHTS)
    init, kept = train.start_from(start, 0, seed=1, raw_hidden=8)
    w, rep = train.fit(data, hidden=0, epochs=2, seed=1, init=init, target="lookahead",
                       mix=0.5)
    assert w["raw_w"].shape == (8, R) and np.all(np.isfinite(w["raw_out"]))
    assert np.array_equal(kept["prior_lin"], start["lin"])
    path = tmp_path / "raw.npz"
    evaluation.save_weights(path, {**kept, **w}, {"report": rep})
    ev = evaluation.load_evaluation(path)
    assert ev.n_raw_hidden == 8 and ev.has_prior_lin and ev.has_policy
    # the engine plays with it, fairly (the same analysis whatever the hidden cards)
    # and deterministically
    e = jp.Engine(weights=str(path))
    s = mid_position(11, 25)
    v = s.view(s.to_move)
    other = next(x for x in (v.sample(k) for k in range(50)) if x != s)
    a = e.analyse(s, iterations=400, seed=3)
    b = e.analyse(other, iterations=400, seed=3)
    assert [(str(c.move), c.visits, c.win_probability) for c in a] == \
        [(str(c.move), c.visits, c.win_probability) for c in b]
    assert a.best in s.legal_moves()


def test_train_command_with_a_raw_network(tmp_path, capsys):
    from jaipur_ai.doors.cli import main
    d = tmp_path / "g"
    selfplay(str(d), rounds=2, engine="ismcts:iterations=30", seed=4, shard_rounds=2,
             workers=1, progress=False)
    assert main(["lookahead", str(d), "--depth", "1", "--workers", "1", "-q", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["valued"] > 0
    out = tmp_path / "w.npz"
    assert main(["train", str(d), "--target", "lookahead", "--raw-hidden", "4",
                 "--epochs", "1", "--out", str(out), "--json"]) == 0
    capsys.readouterr()
    assert evaluation.load_evaluation(out).n_raw_hidden == 4
    for flag, value, why in [("--raw-hidden", "129", "expected 0 to 128 units"),
                             ("--lookahead-mix", "2", "expected a share from 0 to 1")]:
        assert main(["train", str(d), flag, value, "--out", str(tmp_path / "x.npz")]) == 2
        assert why in capsys.readouterr().err
    # shards without stored states (the policy engine's) cannot feed a raw network, nor
    # be looked ahead from
    selfplay(str(tmp_path / "p"), rounds=20, engine="policy", seed=1, shard_rounds=20,
             progress=False)
    assert main(["lookahead", str(tmp_path / "p"), "-q"]) == 2
    assert "store no states" in capsys.readouterr().err
    assert main(["train", str(tmp_path / "p"), "--raw-hidden", "4", "--epochs", "1",
                 "--out", str(tmp_path / "y.npz")]) == 2
    assert "stored states" in capsys.readouterr().err


def test_rollout_targets_are_the_played_moves_rollouts_and_feed_train(tmp_path):
    """bench/experiments/rollout_targets.py: each running position's value is the mean of
    its played move's rollouts in the mover's view (the same as asking the rollouts
    directly), NaN where the round is over; train reads them as the lookahead target;
    a rerun values nothing again."""
    from bench_scripts import bench_module
    from jaipur_ai.matches.spec import derive_seed
    from jaipur_ai.search._rollout import rollout_outcomes
    mod = bench_module("experiments/rollout_targets.py", "rollout_targets")
    d = tmp_path / "g"
    selfplay(str(d), rounds=2, engine="ismcts:iterations=30", seed=4, shard_rounds=2,
             workers=1, progress=False)
    out = tmp_path / "roll"
    assert mod.rollout_targets(str(d), str(out), 6, None, procs=1, progress=False) == 1
    data = train.load_shards(str(out))
    la = data["lookahead"]
    ok = np.isfinite(la)
    assert len(la) == len(data["result"]) and ok.sum() > 0
    assert np.all((la[ok] >= 0) & (la[ok] <= 1))
    with np.load(d / "shard-00000.npz") as z:
        i = int(np.flatnonzero(ok)[len(np.flatnonzero(ok)) // 2])
        core = state_of_bytes(z["state"][i].tobytes())
        sc, _ = rollout_outcomes(core.view(int(z["mover"][i])), [int(z["action"][i])], 6,
                                 derive_seed(mod.SALT, 0, i), fair=True)
    assert la[i] == pytest.approx(float(sc.mean()))
    # the values are what the rollouts say, not the round's result
    assert not np.array_equal(la[ok], data["result"][ok])
    assert mod.rollout_targets(str(d), str(out), 6, None, procs=1, progress=False) == 0
    w, _rep = train.fit(data, hidden=0, epochs=1, seed=1, target="lookahead", mix=1.0)
    assert np.all(np.isfinite(w["lin"]))


def test_rollout_targets_against_results_recovers_a_known_miscalibration(tmp_path,
                                                                        monkeypatch):
    """--against: results drawn with win chance sigmoid(2 * logit(value) - 0.5) give
    back a slope near 2 and an offset near -0.5."""
    from bench_scripts import bench_module
    mod = bench_module("experiments/rollout_targets.py", "rollout_targets")
    r = np.random.default_rng(3)
    p = r.uniform(0.05, 0.95, 40000)
    x = np.log(p / (1 - p))
    y = (r.random(len(p)) < 1 / (1 + np.exp(-(2 * x - 0.5)))).astype(float)
    monkeypatch.setattr(train, "predict", lambda w, f, raw=None: p)
    np.savez(tmp_path / "w.npz", lin=np.zeros(N))
    out = mod.against_results(str(tmp_path / "w.npz"), {"features": np.zeros((len(p), N)),
                                                        "result": y})
    assert out["slope"] == pytest.approx(2.0, abs=0.1)
    assert out["offset"] == pytest.approx(-0.5, abs=0.06)
    assert out["positions"] == len(p) and 0 < out["logloss"] < 0.7


@settings(max_examples=40, deadline=None)
@given(running_states(max_plies=120), st.integers(1, 128), st.integers(0, 2**32 - 1))
def test_the_priors_update_the_parents_raw_sums_to_the_childrens_values(state, units, seed):
    # without prior_lin the tree's priors value every candidate's position with the
    # raw network, its sums updated from the parent's (child_logit): the same logits
    # as the full evaluation of each child, up to the order of the sums
    from jaipur_ai.search._search import prior_logits
    w = _raw_weights(np.random.default_rng(seed), units)
    w["lin"] *= 0.0           # (logits within the clamp, so that the win chance inverts)
    ev = evaluation.evaluation_of(w)
    assert not ev.has_prior_lin
    for action, z in prior_logits(state._core, ev, 1.0, False):
        child = state.apply(action)
        if child.is_round_over:
            continue                          # scored exactly, not by the network
        win = ev.value(child._core, state.to_move)[0]
        expected = 8.0 * np.log(win / (1.0 - win))
        if z < -500.0:
            z += 800.0                        # a move that lets the opponent end and win
        assert z == pytest.approx(expected, abs=1e-6)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 128))
def test_raw_sums_moved_from_position_to_position_stay_the_fresh_sums(seed, units):
    # the tree moves one set of sums from the priors of one position to the next,
    # across moves, re-dealt worlds and new rounds (raw_sync): they stay the sums
    # computed afresh, whatever the path
    from jaipur_ai.search._evaluation import raw_sums_drift
    r = np.random.default_rng(seed)
    ev = evaluation.evaluation_of(_raw_weights(r, units))
    path = []
    for deal in range(3):
        s = jp.GameState.new(seed=int(r.integers(1 << 30)), starter=deal & 1)
        while not s.is_round_over:
            path.append(s._core)
            if r.random() < 0.3:                      # a world re-dealt from the mover's view
                path.append(s.view(s.to_move).sample(int(r.integers(1 << 30)))._core)
            moves = s.legal_moves()
            s = s.apply(moves[int(r.integers(len(moves)))])
    drift = raw_sums_drift(ev, path)
    assert len(drift) == len(path) and max(drift) < 1e-9


def test_a_search_with_the_raw_network_in_its_priors_is_fair_and_deterministic(tmp_path):
    # the sums the tree carries from one position's priors to the next read the
    # sampled worlds only: the same view gives the same analysis whatever the real
    # hidden cards, and the same seed the same statistics
    w = _raw_weights(np.random.default_rng(5), 32)
    w["lin"] *= 0.01
    path = tmp_path / "raw-priors.npz"
    evaluation.save_weights(path, w, {"test": True})
    assert not evaluation.load_evaluation(path).has_prior_lin
    s = mid_position(11, 25)
    other = next(x for x in (s.view(s.to_move).sample(k) for k in range(50)) if x != s)
    e = jp.Engine.from_options(weights=str(path))
    a, b, c = (e.analyse(x, iterations=1500, seed=3) for x in (s, other, s))
    rows = [[(str(m.move), m.visits, m.win_probability) for m in r] for r in (a, b, c)]
    assert rows[0] == rows[1] == rows[2]
    assert a.best in s.legal_moves()


_VALUES = """
import sys, numpy as np
import jaipur_ai as jp
from jaipur_ai.search import _evaluation, evaluation
w = np.load(sys.argv[1])
ev = evaluation.evaluation_of({k: w[k] for k in w.files})
out = [_evaluation.KERNELS]
for deal in range(4):
    s = jp.GameState.new(seed=deal, starter=deal & 1)
    while not s.is_round_over:
        out += [ev.value(s._core, p)[0].hex() for p in (0, 1)]
        s = s.apply(s.legal_moves()[len(out) % len(s.legal_moves())])
a = jp.Engine.from_options(weights=sys.argv[2]).analyse(jp.GameState.new(seed=9), iterations=600,
                                                          seed=1)
out += [f"{m.move} {m.visits} {m.win_probability.hex()}" for m in a]
print(" ".join(out))
"""


def test_every_vector_width_gives_the_same_bits(tmp_path):
    # the evaluation's loops are made for four doubles (AVX2) and for two, the first
    # picked where the processor has it (_kernels.h); each sum in one fixed order, so
    # values and searches are the same to the bit whichever runs
    r = np.random.default_rng(8)
    w = _raw_weights(r, 100, hidden=13)
    w["lin"] *= 0.05
    arrays, priors = tmp_path / "w.npz", tmp_path / "priors.npz"
    np.savez(arrays, **w)
    evaluation.save_weights(priors, w, {"test": True})
    runs = {}
    for kernels in ("", "generic"):
        env = dict(os.environ, JAIPUR_AI_KERNELS=kernels)
        out = subprocess.run([sys.executable, "-c", _VALUES, str(arrays), str(priors)],
                             env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr
        runs[kernels] = out.stdout.split()
    assert runs["generic"][0] == "generic" and runs[""][0] in ("avx2", "generic")
    if runs[""][0] == "generic":
        pytest.skip("this processor (or build) has no AVX2 loops: one version, nothing to compare")
    assert len(runs[""]) > 100 and runs[""][1:] == runs["generic"][1:]

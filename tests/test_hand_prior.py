"""The prior over the opponent's unknown goods learned from the hands players keep
(jaipur_ai.search.handprior, hidden_hands="kept"): its file, its fit, the belief that
reads it, and that a search with it stays fair and deterministic."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaipur_ai as jp
from jaipur_ai.errors import InvalidDataError, InvalidWeightsError
from jaipur_ai.matches.runner import run_match
from jaipur_ai.search import handprior as H
from jaipur_ai.search.belief import HandBelief, opponent_unknown, unknown_hands

from bench_scripts import bench_module
from search_positions import fair_analysis, mid_position

def _fit_script():
    return bench_module("fit_hand_prior.py", "fit_hand_prior")


def test_the_shipped_prior_is_read_and_checked(tmp_path):
    theta = H.read()
    assert theta.shape == (len(H.FEATURES),) and np.isfinite(theta).all()
    good = json.loads(Path(H.DEFAULT_FILE).read_text())
    for name, change, what in [
            ("format", {"format": "other/1"}, "not a jaipur-hand-prior/1"),
            ("features", {"features": ["count:D"]}, "other features"),
            ("theta", {"theta": [1.0] * 3}, "finite numbers"),
            ("nan", {"theta": [float("nan")] * len(H.FEATURES)}, "finite numbers")]:
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps({**good, **change}))
        with pytest.raises(InvalidWeightsError, match=what):
            H.read(str(p))
    with pytest.raises(InvalidWeightsError, match="cannot read"):
        H.read(str(tmp_path / "missing.json"))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=6, max_size=6), min_size=1,
                max_size=30))
def test_the_tilt_is_theta_dot_the_features(rows):
    rows = np.array(rows)
    x = H.features(rows)
    assert x.shape == (len(rows), len(H.FEATURES))
    assert (x[:, :6] == rows).all() and (x[:, 6:12] == (rows >= 2)).all()
    assert (x[:, 12:] == (rows >= 3)).all()
    theta = np.arange(len(H.FEATURES), dtype=float) / 10
    assert np.allclose(H.log_tilt(rows, theta), x @ theta)


def test_the_fit_finds_the_tilt_that_made_the_hands():
    # hands drawn from a known tilt of a flat base: the fit moves toward that tilt and
    # explains the hands better than no tilt
    rng = np.random.default_rng(3)
    true = np.zeros(len(H.FEATURES))
    true[0], true[9] = 1.0, -1.0                    # more diamonds, fewer cloth pairs
    data = []
    for _ in range(400):
        rows = rng.integers(0, 4, size=(12, 6))
        x, lp = H.features(rows), np.zeros(12)
        p = np.exp(x @ true)
        data.append((x, lp, int(rng.choice(12, p=p / p.sum()))))
    theta, nll = H.fit(data, steps=200)
    assert nll < H.mean_nll(np.zeros(len(H.FEATURES)), data)
    assert theta[0] > 0.5 and theta[9] < -0.3
    with pytest.raises(InvalidDataError, match="no position"):
        H.fit([])


def test_the_belief_deals_kept_hands_before_any_move():
    s = mid_position(7, 6)
    v = s.view(s.to_move)
    rows, logp = unknown_hands(v)
    assert len(rows) > 1
    uniform = HandBelief().prior(v)
    kept = HandBelief(kept=True).prior(v)
    assert np.array_equal(uniform[0], rows) and np.array_equal(kept[0], rows)
    assert np.allclose(uniform[1], np.exp(logp - logp.max()))
    tilt = logp + H.log_tilt(rows)
    assert np.allclose(kept[1], np.exp(tilt - tilt.max()))
    # the hand the opponent holds is one of the rows
    assert (rows == opponent_unknown(s, v)).all(axis=1).sum() == 1


@pytest.mark.parametrize("seed,plies", [(3, 6), (7, 6)])
def test_a_search_with_kept_hands_is_fair_and_deterministic(seed, plies):
    s = mid_position(seed, plies)
    e = jp.Engine.from_options(hidden_hands="kept")
    key = fair_analysis(e, s, iterations=600, seed=3)
    assert key != fair_analysis(jp.Engine(), s, iterations=600, seed=3)
    assert e.options()["hidden_hands"] == "kept"
    # with the belief off the deal stays uniform, whatever hidden_hands says
    off = jp.Engine.from_options(hidden_hands="kept", belief=False)
    assert [(str(c.move), c.visits) for c in off.analyse(s, iterations=600, seed=3)] == \
        [(str(c.move), c.visits) for c in
         jp.Engine(belief=False).analyse(s, iterations=600, seed=3)]


def test_a_bad_hidden_hands_is_a_typed_error():
    with pytest.raises(jp.InvalidOptionError, match="hidden_hands"):
        jp.Engine.from_options(hidden_hands="peek")


def test_the_fit_command_writes_a_file_the_engine_reads(tmp_path):
    games = tmp_path / "games.jsonl"
    run_match("greedy", "random", games=3, seed=5, out=str(games))
    out = tmp_path / "prior.json"
    assert _fit_script().main([str(games), "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["fitted"]["games"] == 6 and d["fitted"]["positions"] > 20
    assert H.read(str(out)).shape == (len(H.FEATURES),)


def test_kept_hands_with_the_rounds_moves_stay_fair():
    # the belief reads the moves and the tilt; neither the real hidden cards
    s0 = jp.GameState.new(seed=11, starter=1)
    history, s = [], s0
    for _ in range(5):
        m = jp.Engine("greedy").best_move(s, seed=1)
        history.append((s, m))
        s = s.apply(m)
    v = s.view(s.to_move)
    w = next(x for x in (v.sample(k) for k in range(50)) if x != s)
    e = jp.Engine.from_options(hidden_hands="kept")
    a, b = (e.analyse(x, iterations=500, seed=2, history=history) for x in (s, w))
    assert [(str(c.move), c.visits) for c in a] == [(str(c.move), c.visits) for c in b]


def test_a_missing_prior_file_fails_when_the_engine_is_made(monkeypatch, tmp_path):
    monkeypatch.setattr(H, "DEFAULT_FILE", str(tmp_path / "gone.json"))
    with pytest.raises(InvalidWeightsError, match="gone.json"):
        jp.Engine.from_options(hidden_hands="kept")
    jp.Engine()                                     # the uniform deal reads no file


def test_hidden_hands_is_checked_at_the_spec_door():
    from jaipur_ai.matches.spec import EngineSpec
    with pytest.raises(jp.InvalidOptionError, match="hidden_hands"):
        EngineSpec.parse("ismcts:hidden_hands=maybe").make_engine()
    assert EngineSpec.parse("ismcts:hidden_hands=kept").make_engine().options()[
        "hidden_hands"] == "kept"


def test_the_kept_prior_against_the_belief_script(capsys):
    """bench/experiments/hand_prior_moves.py: every position scored holds the hand the
    opponent really held, with a finite weight under the belief, and on 30 games of the
    rating list the belief from the moves tells more about it than the uniform deal."""
    mod = bench_module("experiments/hand_prior_moves.py", "hand_prior_moves")
    games_file = str(Path(__file__).resolve().parents[1] / "bench" / "results"
                     / "rating-0.1" / "default--pimc.jsonl.gz")
    games = mod._games(games_file)[:30]
    n_seen = 0
    for seen, (ux, ulp, ui), (bx, blp, bi) in mod.positions(games[0]):
        assert np.isfinite(ulp[ui]) and np.isfinite(blp[bi])
        assert len(ux) == len(ulp) and len(bx) == len(blp) >= 2
        n_seen += seen
    assert n_seen > 0
    assert mod.main([games_file, "--max-games", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 30 and len(out["theta_refit"]) == len(H.FEATURES)
    m = out["moves_seen"]
    assert m["positions"] > 0 and m["belief"] < m["uniform"]

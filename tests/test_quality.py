"""The move-quality benchmark: its loader, its error-rate arithmetic on hand-made
positions, and the rollouts with common random numbers its references come from."""
from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

import jaipur_ai as jp
from jaipur_ai.matches.quality import (BLUNDER, FORMAT, Position, QualityError,
                                       load_positions, paired_difference, reference_values,
                                       save_positions, summarise_losses, value_on_demand)
from jaipur_ai.matches.runner import run_match


def hand_made() -> Position:
    s = jp.GameState.new(7, starter=0)
    moves = [str(m) for m in s.legal_moves()[:3]]
    return Position(3, deal_seed=7, starter=0, moves=[], seed=11, worlds=64,
                    values={moves[0]: 0.62, moves[1]: 0.50, moves[2]: 0.615},
                    se={moves[0]: 0.0, moves[1]: 1.0, moves[2]: 0.8}, played=moves[1])


def test_losses_are_points_of_win_chance_below_the_best():
    p = hand_made()
    a, b, c = list(p.values)
    assert p.best == a
    assert p.loss(a) == 0.0
    assert p.loss(b) == pytest.approx(12.0)
    assert p.loss(c) == pytest.approx(0.5)
    with pytest.raises(QualityError):
        p.loss("take Z")


def test_the_summary_arithmetic():
    losses = [0.0, 12.0, 0.5, 6.0]
    s = summarise_losses(losses, [True, False, False, False])
    assert s["positions"] == 4
    assert s["error"] == pytest.approx(4.625)
    assert s["blunders"] == pytest.approx(0.5)            # 12 and 6 lose more than 5
    assert s["agreement"] == pytest.approx(0.25)
    half = 1.96 * np.std(losses, ddof=1) / 2
    assert s["error_lo"] == pytest.approx(4.625 - half)
    d = paired_difference([1.0, 2.0, 3.0], [0.0, 2.0, 1.0])
    assert d["diff"] == pytest.approx(1.0) and d["lo"] < 1.0 < d["hi"]
    assert BLUNDER == 5.0


def test_the_loader_round_trips_and_refuses_what_is_not_a_benchmark(tmp_path):
    path = str(tmp_path / "q.jsonl.gz")
    save_positions(path, [hand_made()], {"worlds": 64})
    (p,) = load_positions(path)
    assert p.to_dict() == hand_made().to_dict()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "other"}\n')
    with pytest.raises(QualityError):
        load_positions(str(bad))
    bad.write_text(json.dumps({"format": FORMAT}) + "\n" + json.dumps(
        {**hand_made().to_dict(), "values": {"take G": 1.5}}) + "\n")
    with pytest.raises(QualityError) as e:
        load_positions(str(bad))
    assert "values" in e.value.field
    with gzip.open(tmp_path / "x.gz", "wt") as fh:
        fh.write(json.dumps({"format": FORMAT}) + "\nnot json\n")
    with pytest.raises(QualityError):
        load_positions(str(tmp_path / "x.gz"))


def test_a_position_replays_its_game_with_the_moves_as_history():
    res = run_match("greedy", "random", games=1, seed=3)
    g = res.records[0]
    moves = g.rounds_moves()[0]
    p = Position(0, g.deal_seed, g.starter, moves[:10], 1, 8, {moves[10]: 0.5})
    state, history = p.replay()
    assert len(history) == 10 and str(history[-1][1]) == moves[9]
    assert state.is_legal(moves[10])
    a = jp.Engine().analyse(state.view(state.to_move), iterations=100, seed=1,
                            history=history)
    assert a.best in state.legal_moves()
    with pytest.raises(QualityError):
        Position(0, g.deal_seed, g.starter, ["take Z"], 1, 8, {"x": 0.5}).replay()


def test_rollouts_use_the_same_worlds_for_every_move():
    """A move's results in world w do not depend on which other moves are rolled out
    with it, nor on where the call starts: the common random numbers of the reference,
    and why a move rolled out on demand is comparable to the stored ones."""
    s = jp.GameState.new(5, starter=1)
    view = s.view(s.to_move)
    moves = [str(m) for m in s.legal_moves()[:4]]
    sc, mg = reference_values(view, moves, 40, seed=9)
    assert sc.shape == mg.shape == (4, 40)
    assert set(np.unique(sc)) <= {0.0, 0.5, 1.0}
    # a round won is one ahead on points (or level, won on the tie-breaks)
    assert np.all(mg[sc == 1.0] >= 0) and np.all(mg[sc == 0.0] <= 0)
    alone, _ = reference_values(view, moves[2:3], 20, seed=9, first=20)
    assert np.array_equal(alone[0], sc[2, 20:])
    again, _ = reference_values(view, moves, 40, seed=9)
    assert np.array_equal(again, sc)
    other, _ = reference_values(view, moves, 40, seed=10)
    assert not np.array_equal(other, sc)
    p = Position(0, 5, 1, [], 9, 40, {m: float(v) for m, v in zip(moves, sc.mean(1))})
    extra = str(s.legal_moves()[5])
    value, se = value_on_demand(p, moves[1])
    assert value == pytest.approx(p.values[moves[1]])
    value, se = value_on_demand(p, extra)
    assert 0.0 <= value <= 1.0 and math.isfinite(se)


def test_rollouts_refuse_illegal_moves():
    s = jp.GameState.new(5, starter=1)
    with pytest.raises(ValueError):
        reference_values(s.view(s.to_move), ["sell 5D"], 4, seed=1)
    with pytest.raises(ValueError):
        reference_values(s.view(1 - s.to_move), [str(s.legal_moves()[0])], 4, seed=1)


def test_a_files_rollout_policy_is_the_one_moves_are_rolled_out_with_on_demand(tmp_path):
    """The header names the rollout policy (the move policy of frozen weights, the mover
    too in re-dealt worlds); a move rolled out on demand uses it, so its value is the
    one the reference would have stored, and another policy gives other values."""
    s = jp.GameState.new(5, starter=1)
    view = s.view(s.to_move)
    moves = [str(m) for m in s.legal_moves()[:3]]
    policy = {"weights": "2026-12-06", "fair": True}
    sc, _ = reference_values(view, moves, 30, seed=4, **policy)
    plain, _ = reference_values(view, moves, 30, seed=4)
    assert not np.array_equal(sc, plain)
    alone, _ = reference_values(view, moves[1:2], 10, seed=4, first=20, **policy)
    assert np.array_equal(alone[0], sc[1, 20:])            # the same worlds, fair or not
    p = Position(0, 5, 1, [], 4, 30, {moves[0]: float(sc[0].mean()),
                                      moves[2]: float(sc[2].mean())})
    path = str(tmp_path / "q.jsonl")
    save_positions(path, [p], {"rollout": policy})
    (q,) = load_positions(path)
    assert q.rollout == policy
    value, _se = value_on_demand(q, moves[1])
    assert value == pytest.approx(float(sc[1].mean()))
    with pytest.raises(QualityError):
        save_positions(path, [p], {"rollout": "fair"})
        load_positions(path)


SHIPPED = Path(__file__).resolve().parents[1] / "bench" / "quality" / "positions.jsonl.gz"


@pytest.mark.skipif(not SHIPPED.exists(), reason="the benchmark file ships in the repository only")
def test_the_shipped_benchmark_holds_and_reproduces():
    """At least 1,000 distinct positions over the three phases, every candidate's
    standard error against the best at most 1 point, and the reference reproduces: the
    best move's mean over the first 100 worlds is the one stored (``check``)."""
    ps = load_positions(str(SHIPPED))
    assert len(ps) >= 1000
    assert len({(p.deal_seed, p.starter, tuple(p.moves)) for p in ps}) == len(ps)
    assert max(max(p.se.values()) for p in ps) <= 1.0
    piles = [p.pile for p in ps]
    assert min(sum(1 for x in piles if x >= 30), sum(1 for x in piles if 10 <= x < 30),
               sum(1 for x in piles if x < 10)) >= 300
    for p in ps[:3]:
        state, _ = p.replay()
        sc, _ = reference_values(state.view(state.to_move), [p.best], 100, p.seed,
                                 **p.rollout)
        assert float(sc[0].mean()) == pytest.approx(p.check)


def test_the_data_curve_pairs_each_point_with_the_base(tmp_path, capsys):
    """bench/experiments/data_curve.py: a point's paired difference is the mean of its
    losses minus the base's over the positions both scored, and its ratio its error
    over the base's."""
    from bench_scripts import bench_module
    mod = bench_module("experiments/data_curve.py", "data_curve")
    base = {"spec": "ply1", "error": 4.0, "error_lo": 3.0, "error_hi": 5.0,
            "losses": {"0": 4.0, "1": 2.0, "2": 6.0}}
    better = {"spec": "ply1:weights=w.npz", "error": 3.0, "error_lo": 2.0, "error_hi": 4.0,
              "losses": {"0": 3.0, "1": 2.0, "2": 4.0, "3": 9.0}}
    f = tmp_path / "q.json"
    f.write_text(json.dumps({"engines": [base, better]}))
    assert mod.main([str(f), "--base", "ply1", "--point", "4000=ply1:weights=w.npz",
                     "--json"]) == 0
    (p,) = json.loads(capsys.readouterr().out)["points"]
    assert p["rounds"] == 4000 and p["ratio"] == 0.75
    assert p["diff"] == -1.0 and p["diff_lo"] < -1.0 < p["diff_hi"]


def test_rollouts_dealt_with_a_hand_hold_it_in_every_world():
    # reference_values(hands=...) deals the opponent's unknown goods as the row says: with
    # the hand it really holds the rollouts are those of the true state's worlds, so two
    # views of the same table with different real hands part, and a hand the view rules
    # out is refused
    s = jp.GameState.new(seed=12, starter=0)
    view = s.view(s.to_move)
    opp = 1 - s.to_move
    raw = s._core.raw()
    real = np.array([[h - k for h, k in zip(raw["hand"][opp], raw["known"][opp])]], np.uint8)
    moves = [str(m) for m in s.legal_moves()[:2]]
    a, _ = reference_values(view, moves, 16, 5, hands=real, hand_weights=np.ones(1))
    b, _ = reference_values(view, moves, 16, 5, hands=real, hand_weights=np.ones(1))
    assert (a == b).all() and ((a == 0) | (a == 0.5) | (a == 1)).all()
    other = view.sample(3)
    oraw = other._core.raw()
    alt = np.array([[h - k for h, k in zip(oraw["hand"][opp], oraw["known"][opp])]], np.uint8)
    assert (alt != real).any()
    c, _ = reference_values(view, moves, 16, 5, hands=alt, hand_weights=np.ones(1))
    assert (c != a).any()
    with pytest.raises(ValueError):
        reference_values(view, moves, 4, 5, hands=np.full((1, 6), 7, np.uint8),
                         hand_weights=np.ones(1))

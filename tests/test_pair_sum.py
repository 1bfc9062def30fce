"""bench/bench_pair_sum.py (issue 53's pair sum): its sums are win probabilities of two
players added, its report has its fields, and a spec with an iteration limit gives the
same numbers twice."""
from __future__ import annotations

import json

from jaipur_ai.matches.quality import load_positions

from bench_scripts import bench_module

def _bench():
    return bench_module("bench_pair_sum.py", "bench_pair_sum")


def test_the_pair_sums_of_three_positions():
    b = _bench()
    positions = load_positions(b.DEFAULT_FILE)[:3]
    rep = b.report(["ismcts:iterations=50"], positions, history=True)
    again = b.report(["ismcts:iterations=50"], positions, history=True)
    assert json.loads(json.dumps(rep)) == rep            # (plain JSON)

    def numbers(r):
        return [{k: v for k, v in e.items() if k != "seconds"} for e in r["engines"]]
    assert numbers(rep) == numbers(again)                 # deterministic
    assert {"file", "positions", "history", "engines"} <= set(rep) and rep["positions"] == 3
    row = rep["engines"][0]
    assert {"spec", "history", "positions", "skipped_round_over", "raw", "reported",
            "seconds", "pairs"} <= set(row)
    assert row["positions"] + row["skipped_round_over"] == 3 and row["positions"] > 0
    for kind in ("raw", "reported"):
        assert set(row[kind]) == {"mean", "lo", "hi"}
        for pair in row["pairs"]:
            assert 0.0 < sum(pair[kind]) < 2.0
            assert all(0.0 <= x <= 1.0 for x in pair[kind])
    # the reported win % is the raw value through the calibration map (both differ)
    assert any(p["raw"] != p["reported"] for p in row["pairs"])


def test_the_raw_values_are_the_searches_own_with_and_without_the_moves(tmp_path):
    # a search that read the round's moves reports by its own map and a search of the
    # position alone by the other: the raw values the bench recovers are, either way,
    # what an engine with no map reports (the same search)
    from jaipur_ai.search.evaluation import DEFAULT_WEIGHTS, load_evaluation, with_calibration
    ev = load_evaluation(DEFAULT_WEIGHTS)
    assert ev.calibration != ev.calibration_moves
    plain = tmp_path / "plain.npz"
    with_calibration(DEFAULT_WEIGHTS, (1.0, 0.0), plain, {}, (1.0, 0.0))
    b = _bench()
    positions = load_positions(b.DEFAULT_FILE)[:4]
    for history in (True, False):
        mapped = b.report(["ismcts:iterations=60"], positions, history=history)
        raw = b.report([f"ismcts:iterations=60,weights={plain}"], positions, history=history)
        got = mapped["engines"][0]["pairs"]
        want = raw["engines"][0]["pairs"]
        assert [p["move"] for p in got] == [p["move"] for p in want]
        for g, w in zip(got, want):
            assert g["raw"] == w["reported"] == w["raw"]

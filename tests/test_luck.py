"""Luck-adjusted results: the draws' probabilities, luck of mean zero over a draw's
outcomes, and the adjusted score of a match."""
from __future__ import annotations

import json
import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.matches.luck import (LuckError, _with_drawn, draw_outcomes, luck_summary,
                                    round_luck)
from jaipur_ai.matches.runner import run_match
from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.search.evaluation import default_evaluation


def test_draw_outcomes_by_hand():
    # two cards from [0, 0, 3, 5]: {0,0} 1/6, {0,3} 2/6, {0,5} 2/6, {3,5} 1/6
    got = {tuple(sorted(c.elements())): p for c, p in draw_outcomes([0, 0, 3, 5], 2)}
    assert got == pytest.approx({(0, 0): 1 / 6, (0, 3): 2 / 6, (0, 5): 2 / 6, (3, 5): 1 / 6})


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=12), st.integers(1, 5))
def test_draw_outcomes_are_a_distribution(deck, k):
    k = min(k, len(deck))
    outs = draw_outcomes(deck, k)
    assert sum(p for _, p in outs) == pytest.approx(1.0)
    for c, p in outs:
        assert sum(c.values()) == k and p > 0
        assert all(c[t] <= deck.count(t) for t in c)


def test_the_luck_of_a_draw_has_mean_zero_over_its_outcomes():
    s = jp.GameState.new(11, starter=0)
    take = next(m for m in s.legal_moves() if str(m) == "camels" or str(m).startswith("take"))
    ev = default_evaluation()
    raw = s._core.raw()
    after = s._core.copy()
    after.apply_action(take.action_id)
    k = len(raw["deck"]) - len(after.raw()["deck"])
    assert k >= 1
    outs = draw_outcomes(raw["deck"], k)
    values = []
    for drawn, p in outs:
        alt = CoreState.from_raw(_with_drawn(raw, drawn))
        alt.apply_action(take.action_id)
        drawn_now = Counter(raw["deck"]) - Counter(alt.raw()["deck"])
        assert drawn_now == drawn                  # the pile was reordered to draw them
        values.append((p, ev.value(alt, 0)[0]))
    expected = sum(p * v for p, v in values)
    assert sum(p * (v - expected) for p, v in values) == pytest.approx(0.0, abs=1e-12)
    # and round_luck of this one move is the actual draw's value minus that mean
    (luck,) = round_luck(11, 0, [str(take)])
    assert luck == pytest.approx(ev.value(after, 0)[0] - expected)


def test_a_match_is_adjusted_and_the_spread_reported():
    res = run_match("ismcts:iterations=100", "greedy", games=3, seed=2)
    out = luck_summary(res.records)
    assert out["games"] == 6 and out["score"] == res.score
    assert math.isfinite(out["adjusted"]) and out["sd_adjusted"] >= 0
    r = res.records[0]
    assert all(math.isfinite(v) for v in round_luck(r.deal_seed, r.starter,
                                                    r.rounds_moves()[0]))
    one = luck_summary(res.records[:1])                  # one game: no spread, valid JSON
    assert one["sd_raw"] is None and "NaN" not in json.dumps(one)
    whole = run_match("greedy", "random", games=1, seed=2, unit="match")
    with pytest.raises(LuckError) as e:                  # later rounds' deals are unknown
        luck_summary(whole.records)
    assert e.value.field == "unit"

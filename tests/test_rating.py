"""The rating list: the Bradley-Terry fit on cases computed by hand, its likelihood
equations on any pairings, the bootstrap over deals, the results files and the command."""
from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jaipur_ai.doors.cli import main
from jaipur_ai.matches.rating import (GAUNTLET, Pairing, RatingError, bootstrap, fit_ratings,
                                      pairing_file, rating_table, read_pairings, with_limit)
from jaipur_ai.matches.runner import run_match
from jaipur_ai.matches.spec import EngineSpec


def elo(p: float) -> float:
    return 400 * math.log10(p / (1 - p))


def test_a_chain_of_two_pairings_by_hand():
    """a scores 75 % against b, b 75 % against c: nothing links a and c but b, so the
    maximum-likelihood ratings are the two pairings' own Elo differences."""
    p = [Pairing("a", "b", deals=[2, 1, 1, 2]), Pairing("b", "c", deals=[1.5, 1.5])]
    r = fit_ratings(p, anchor="c", prior=0)
    assert r["c"] == 0
    assert r["b"] == pytest.approx(elo(0.75), abs=1e-6)       # 190.85
    assert r["a"] == pytest.approx(2 * elo(0.75), abs=1e-6)


def test_an_even_score_is_an_even_rating_and_draws_count_half():
    r = fit_ratings([Pairing("a", "b", deals=[1, 1, 1])], anchor="b", prior=0)
    assert r["a"] == pytest.approx(0.0, abs=1e-9)
    # one virtual drawn game moves 3 of 4 (75 %) to 3.5 of 5 (70 %)
    r = fit_ratings([Pairing("a", "b", deals=[2, 1], games=[2, 2])], anchor="b", prior=1)
    assert r["a"] == pytest.approx(elo(0.7), abs=1e-6)


def test_perfect_scores_need_the_prior_and_a_split_list_is_refused():
    p = [Pairing("a", "b", deals=[2, 2])]
    with pytest.raises(RatingError):
        fit_ratings(p, prior=0)
    assert math.isfinite(fit_ratings(p, prior=1)["a"])
    with pytest.raises(RatingError) as e:
        fit_ratings([Pairing("a", "b", deals=[1]), Pairing("c", "d", deals=[1])])
    assert e.value.field == "pairings"
    with pytest.raises(RatingError) as e:
        fit_ratings(p, anchor="zz")
    assert e.value.field == "anchor"


pairings_st = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 3),
              st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]), min_size=1, max_size=8)),
    min_size=1, max_size=8).filter(lambda xs: all(a != b for a, b, _ in xs))


@settings(max_examples=60, deadline=None)
@given(pairings_st)
def test_the_fit_solves_the_likelihood_equations(raw):
    """At the maximum each engine's expected score equals its actual score (with the
    prior's virtual draws): the defining property of the Bradley-Terry estimate."""
    names = [f"e{i}" for i in range(4)]
    p = [Pairing(names[a], names[b], deals=d) for a, b, d in raw]
    try:
        r = fit_ratings(p, prior=1.0)
    except RatingError as e:
        assert e.field == "pairings"                      # not one connected group
        return
    for nm in r:
        actual = expected = 0.0
        for q in p:
            if nm not in (q.a, q.b):
                continue
            n = q.n + 1.0
            s = q.score + 0.5
            mine = s if q.a == nm else n - s
            opp = q.b if q.a == nm else q.a
            actual += mine
            expected += n / (1 + 10 ** ((r[opp] - r[nm]) / 400))
        assert expected == pytest.approx(actual, abs=1e-5)


def test_the_bootstrap_resamples_deals_and_is_seeded():
    p = [Pairing("a", "b", deals=[2, 1, 0, 2, 1, 2, 1, 1]),
         Pairing("b", "c", deals=[1, 2, 1, 1, 2, 0])]
    b1 = bootstrap(p, replicates=200, seed=3, anchor="c")
    b2 = bootstrap(p, replicates=200, seed=3, anchor="c")
    assert all(np.array_equal(b1[k], b2[k]) for k in b1)
    assert np.all(b1["c"] == 0)
    lo, hi = np.percentile(b1["a"], [2.5, 97.5])
    assert lo < fit_ratings(p, anchor="c")["a"] < hi
    rows = rating_table(p, anchor="c", replicates=200)
    assert [r["engine"] for r in rows][0] == "a"
    assert rows[0]["lo"] < rows[0]["elo"] < rows[0]["hi"] and rows[0]["games"] == 16


def test_results_files_are_read_by_deal(tmp_path):
    path = pairing_file(str(tmp_path), "greedy", "random")
    run_match("greedy", "random", games=3, seed=5, out=path)
    (p,) = read_pairings([path], {"greedy": "G", "random": "R"})
    assert (p.a, p.b, p.n, len(p.deals)) == ("G", "R", 6, 3)
    with open(path) as fh:
        lines = [json.loads(x) for x in fh.read().splitlines()[1:]]
    assert p.score == sum(g["score"] for g in lines)
    gz = tmp_path / "kept.jsonl.gz"                       # as bench/results keeps them
    with open(path, "rb") as src, gzip.open(gz, "wb") as dst:
        dst.write(src.read())
    assert read_pairings([str(gz)], {"greedy": "G", "random": "R"}) == [p]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n")
    with pytest.raises(RatingError):
        read_pairings([str(bad)])
    with pytest.raises(RatingError):                       # both engines one name
        read_pairings([path], {"greedy": "G", "random": "G"})
    (tmp_path / "torn.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(RatingError):
        read_pairings([str(tmp_path / "torn.jsonl.gz")])


def test_limits_are_added_only_where_an_engine_searches():
    assert with_limit("pimc", 0.1, None) == "pimc:time=0.1"
    assert with_limit("greedy", 0.1, None) == "greedy"
    assert with_limit("ismcts:time=2", 0.1, None) == "ismcts:time=2"
    assert with_limit("expectimax", None, 500) == "expectimax:iterations=500"
    for spec in GAUNTLET.values():                 # every gauntlet engine is a valid spec
        EngineSpec.parse(spec).make_engine()


def test_the_rate_command_plays_resumes_and_fits(tmp_path, capsys):
    d = str(tmp_path / "r")
    args = ["rate", "--gauntlet", "greedy", "random", "--iterations", "30", "--games", "2",
            "--dir", d, "--bootstrap", "50", "-q"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "default" in out and "greedy" in out and "random" in out
    assert main(args + ["--json"]) == 0                    # resumed: nothing new to play
    data = json.loads(capsys.readouterr().out)
    assert {r["engine"] for r in data["ratings"]} == {"default", "greedy", "random"}
    assert all(p["games"] == 4 for p in data["pairings"])
    # fitted alone (no limit given): the engines are still found by name
    assert main(["rate", "--fit-only", "--dir", d, "--json", "--anchor", "random"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["elo"] for r in data["ratings"] if r["engine"] == "random"] == [0.0]
    assert {r["engine"] for r in data["ratings"]} == {"default", "greedy", "random"}
    # ... and named by the specs they played, not by the limit of the fit's flags
    assert data["engines"]["default"] == "ismcts:iterations=30"
    assert data["engines"]["greedy"] == "greedy"
    assert main(["rate", "default=ismcts:cutoff=3", "--dir", d, "-q"]) == 2
    assert "gauntlet engine" in capsys.readouterr().err
    # two names for one engine would merge in the fit: refused before any game
    assert main(["rate", "g2=greedy", "--gauntlet", "greedy", "random", "--dir",
                 str(tmp_path / "dup"), "-q"]) == 2
    assert "same engine" in capsys.readouterr().err
    assert not (tmp_path / "dup").exists()
    assert main(["rate", "--fit-only", "--dir", str(tmp_path / "none")]) == 2
    assert "no results files" in capsys.readouterr().err

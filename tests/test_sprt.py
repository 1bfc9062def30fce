"""Results file (--out, resume), paired statistics and the SPRT (issue 14)."""
from __future__ import annotations

import json
import math
import random

import pytest

from jaipur_ai.doors.cli import main
from jaipur_ai.matches.results import ResultsFileError
from jaipur_ai.matches.runner import run_match, summarise
from jaipur_ai.matches.sprt import SPRT, expected_score, parse_sprt, pentanomial, pentanomial_stats


def _same(r1, r2):
    """Same games and the same statistics, the timings aside."""
    key = lambda r: (r.deal, r.a_seat, r.winner, r.points, tuple(r.moves))  # noqa: E731
    assert [key(r) for r in r1.records] == [key(r) for r in r2.records]
    s1, s2 = r1.stats, r2.stats
    for s in (s1, s2):
        s.pop("seconds_per_move")
    assert s1 == s2


# ------------------------------------------------------------------ results file
def test_out_resume_gives_the_uninterrupted_result(tmp_path):
    f = tmp_path / "r.jsonl"
    whole = run_match("greedy", "random", games=6, seed=7)
    part = run_match("greedy", "random", games=2, seed=7, out=str(f))
    assert part.n_games == 4 and len(f.read_text().splitlines()) == 5   # header + 4
    # a crash while writing a game: a torn last line
    text = f.read_text()
    f.write_text(text + text.splitlines()[-1][:30])
    rest = run_match("greedy", "random", games=6, seed=None, out=str(f))  # the file's seed
    assert rest.seed == 7 and rest.resumed == 4 and rest.n_games == 12
    _same(whole, rest)
    lines = f.read_text().splitlines()
    assert len(lines) == 13
    games = [json.loads(x) for x in lines[1:]]
    assert len({(g["deal"], g["a_seat"]) for g in games}) == 12       # each game once
    assert all(g["match_seed"] == 7 and "game_seed" in g and "deal_seed" in g for g in games)
    # a rerun of a finished match plays nothing and counts nothing twice
    again = run_match("greedy", "random", games=6, seed=7, out=str(f))
    assert again.resumed == 12
    _same(whole, again)
    assert len(f.read_text().splitlines()) == 13


def test_out_resume_with_searching_engine_and_workers(tmp_path):
    f = tmp_path / "r.jsonl"
    spec = "ismcts:iterations=50"
    whole = run_match(spec, "greedy", games=2, seed=3)
    run_match(spec, "greedy", games=1, seed=3, out=str(f))
    rest = run_match(spec, "greedy", games=2, seed=3, out=str(f), workers=2)
    assert rest.resumed == 2
    _same(whole, rest)


def test_out_refuses_other_settings(tmp_path):
    f = tmp_path / "r.jsonl"
    run_match("greedy", "random", games=1, seed=1, out=str(f))
    with pytest.raises(ResultsFileError) as e:
        run_match("greedy", "random", games=1, seed=2, out=str(f))
    assert e.value.field == "out" and "other settings" in str(e.value)
    bad = tmp_path / "bad.txt"
    bad.write_text("hello\n")
    with pytest.raises(ResultsFileError):
        run_match("greedy", "random", games=1, seed=1, out=str(bad))


def test_cli_out_refused_is_one_line_exit_2(tmp_path, capsys):
    f = str(tmp_path / "r.jsonl")
    assert main(["match", "greedy", "random", "--games", "1", "--seed", "1", "--out", f,
                 "-q"]) == 0
    capsys.readouterr()
    assert main(["match", "random", "greedy", "--games", "1", "--seed", "1", "--out", f,
                 "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other settings" in err


@pytest.mark.parametrize("path, why", [("/dev/zero", "not a regular file"),
                                       ("/dev/null", "not a regular file"),
                                       (".", "a folder")])
def test_out_that_is_no_regular_file_is_refused_before_it_is_read(path, why, capsys):
    # (issue 51, item 3: --out /dev/zero read the device, 1.5 -> 5 GB in 8 s)
    with pytest.raises(ResultsFileError) as e:
        run_match("greedy", "random", games=1, seed=1, out=path)
    assert e.value.field == "out" and why in e.value.reason
    with pytest.raises(ResultsFileError):
        run_match("greedy", "random", games=1, seed=None, out=path)   # (reads the seed first)
    assert main(["match", "greedy", "random", "--games", "1", "--out", path, "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and why in err


def _settings(seed=1):
    return {"a": "greedy", "b": "random", "seed": seed, "unit": "round"}


def test_a_second_writer_of_a_results_file_is_refused(tmp_path, capsys):
    # (issue 51, item 2: two matches on one file both reported their games; the file held
    # 7 readable games and 5 corrupt lines, and resuming then refused it)
    from jaipur_ai.matches.results import ResultsFile
    f = str(tmp_path / "c.jsonl")
    held = ResultsFile(f, _settings())
    try:
        with pytest.raises(ResultsFileError) as e:
            run_match("greedy", "random", games=2, seed=1, out=f)
        assert e.value.field == "out" and "being written by another match" in e.value.reason
        # as a second process: refused in one line, exit status 2, before any game
        import subprocess
        import sys
        p = subprocess.run([sys.executable, "-m", "jaipur_ai", "match", "greedy", "random",
                            "--games", "2", "--seed", "1", "--out", f, "-q"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2 and p.stdout == ""
        assert p.stderr.count("\n") == 1 and "being written by another match" in p.stderr
        assert open(f).read().count("\n") == 1              # the header only: untouched
    finally:
        held.close()
    whole = run_match("greedy", "random", games=2, seed=1, out=f)    # released: it runs
    assert whole.n_games == 4 and whole.resumed == 0
    again = run_match("greedy", "random", games=2, seed=1, out=f)    # and resumes
    assert again.resumed == 4


def test_a_results_line_that_fails_part_way_is_cut_off(tmp_path, monkeypatch):
    import errno
    import os
    from jaipur_ai.matches import results
    f = str(tmp_path / "c.jsonl")
    whole = run_match("greedy", "random", games=1, seed=1)
    rf = results.ResultsFile(f, _settings())
    rf.add(whole.records[0], 11)
    size = os.path.getsize(f)
    real = os.pwrite

    def half_then_full(fd, data, offset):        # half the line lands, then the disk is full
        if len(data) > 20:
            return real(fd, data[:len(data) // 2], offset)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(results.os, "pwrite", half_then_full)
    with pytest.raises(ResultsFileError) as e:
        rf.add(whole.records[1], 11)
    assert e.value.field == "out" and "No space left" in e.value.reason
    monkeypatch.undo()
    assert os.path.getsize(f) == size                    # no torn line left behind
    rf.close()
    assert len(results.ResultsFile(f, _settings()).records) == 1


# ------------------------------------------------------------- paired statistics
def test_pentanomial_counts_and_stats():
    assert pentanomial([0, 0.5, 1, 1.5, 2, 2]) == [1, 1, 1, 1, 2]
    with pytest.raises(ValueError):
        pentanomial([0.25])
    s = pentanomial_stats([1, 1, 1, 1, 2])
    xs = [0, 0.25, 0.5, 0.75, 1, 1]
    m = sum(xs) / 6
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / 5)
    assert s["mean"] == pytest.approx(m) and s["sd"] == pytest.approx(sd)
    half = 2.570582 * sd / math.sqrt(6)
    assert s["mean_ci95"] == pytest.approx([m - half, min(1.0, m + half)])
    assert pentanomial_stats([0] * 5)["mean"] is None


def test_summarise_has_the_paired_statistics():
    res = run_match("greedy", "random", games=3, seed=5)
    p = summarise(res.records)["paired"]
    assert p["pairs"] == 3 and sum(p["pentanomial"]) == 3
    assert "paired:" in str(res)


# --------------------------------------------------------------------------- SPRT
def test_sprt_bounds_and_formula():
    t = SPRT(0, 5, alpha=0.05, beta=0.1)
    assert t.lower == pytest.approx(math.log(0.1 / 0.95))
    assert t.upper == pytest.approx(math.log(0.9 / 0.05))
    counts = [3, 10, 20, 12, 5]
    xs = [0, 0.25, 0.5, 0.75, 1]
    n = sum(counts)
    m = sum(c * x for c, x in zip(counts, xs)) / n
    var = sum(c * (x - m) ** 2 for c, x in zip(counts, xs)) / n
    s0, s1 = expected_score(0), expected_score(5)
    assert t.llr(counts) == pytest.approx(n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var))
    assert parse_sprt("elo0=0,elo1=5", alpha=0.1) == SPRT(0, 5, 0.1, 0.05)
    for bad in ("elo0=5,elo1=0", "elo1=5", "x=1", ""):
        with pytest.raises(ValueError):
            parse_sprt(bad)


def _simulate(t: SPRT, elo: float, rng: random.Random, draw: float = 0.2) -> str:
    """One SPRT run on simulated pairs: each game a draw with chance ``draw``, else a
    win or a loss, A's expected score that of ``elo``."""
    w = expected_score(elo) - draw / 2
    counts = [0] * 5
    for n in range(1, 100_000):
        s = 0
        for _ in range(2):
            u = rng.random()
            s += 2 if u < w else 1 if u < w + draw else 0
        counts[s] += 1
        d = t.decide(t.llr(counts), n)
        if d:
            return d
    raise AssertionError("no decision")


@pytest.mark.parametrize("alpha,beta", [(0.05, 0.05), (0.1, 0.2)])
def test_sprt_error_rates_near_alpha_and_beta(alpha, beta):
    t = SPRT(0, 60, alpha=alpha, beta=beta)
    rng = random.Random(2024)
    runs = 400
    false_h1 = sum(_simulate(t, 0, rng) == "H1" for _ in range(runs)) / runs
    false_h0 = sum(_simulate(t, 60, rng) == "H0" for _ in range(runs)) / runs
    # the binomial spread of 400 runs is about 0.011 at 0.05, 0.02 at 0.2
    assert alpha / 4 <= false_h1 <= alpha * 1.6, false_h1
    assert beta / 4 <= false_h0 <= beta * 1.6, false_h0


def test_real_sprt_match_stops_and_resumes(tmp_path, capsys):
    f = tmp_path / "s.jsonl"
    args = ["match", "greedy", "random", "--seed", "4", "--sprt", "elo0=0,elo1=100",
            "--json", "-q", "--out", str(f)]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["sprt"]["decision"] == "H1" and d["sprt"]["llr"] >= d["sprt"]["upper"]
    assert d["games_played"] == 2 * d["sprt"]["pairs"] < 200
    assert d["paired"]["pairs"] == d["sprt"]["pairs"]
    # rerun: already decided, nothing new is played
    assert main(args) == 0
    d2 = json.loads(capsys.readouterr().out)
    assert d2["resumed"] == d["games_played"] == d2["games_played"]
    assert d2["sprt"] == d["sprt"]
    assert main(["match", "greedy", "random", "--seed", "4", "--sprt",
                 "elo0=0,elo1=100", "-q"]) == 0
    out = capsys.readouterr().out
    assert "SPRT elo0=0 elo1=100" in out and "H1 accepted" in out


def test_cli_sprt_bad_settings(capsys):
    assert main(["match", "greedy", "random", "--sprt", "elo0=5,elo1=1", "-q"]) == 2
    assert main(["match", "greedy", "random", "--alpha", "0.1", "-q"]) == 2
    assert main(["match", "greedy", "random", "--sprt", "elo0=0,elo1=5", "--beta", "0",
                 "-q"]) == 2

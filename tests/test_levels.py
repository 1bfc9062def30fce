"""The levels: the ladder's file, each level deterministic with a seed, the weaker
choice (temperature), ``elo=`` between levels, and every door (API, spec, CLI, web)."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.doors.cli import main
from jaipur_ai.doors.webapi import WebApp
from jaipur_ai.errors import InvalidDataError, InvalidOptionError
from jaipur_ai.matches.rating import Pairing, read_pairings, pairing_file
from jaipur_ai.matches.runner import run_match
from jaipur_ai.matches.spec import LEVELS, EngineSpec, SpecError
from jaipur_ai.options import LEVEL_NAMES
from jaipur_ai.search.analysis import Analysis, Candidate
from jaipur_ai.search.levels import CUT, choose, level, level_limits, levels, read_levels, names


def test_the_shipped_ladder_is_rated_monotone_and_named_as_the_options_say():
    ladder = levels()
    assert len(ladder) >= 8 and ladder[-1].name == "max"
    assert tuple(names()) == LEVEL_NAMES          # (the options table lists them)
    assert all(b.elo - a.elo >= 80 for a, b in zip(ladder, ladder[1:]))
    assert all(lv.lo is not None and lv.lo <= lv.elo <= lv.hi for lv in ladder)
    for lv in ladder:                               # each level is the spec it names
        assert str(EngineSpec.parse(lv.spec)) == lv.spec == LEVELS[lv.name]
        assert str(EngineSpec.parse(f"ismcts:level={lv.name}")) == lv.spec


@pytest.mark.parametrize("name", [lv.name for lv in levels()])
def test_each_level_is_deterministic_with_a_seed(name):
    s = jp.GameState.new(seed=11, starter=0)
    for _ in range(6):
        s = s.apply(s.legal_moves()[0])
    moves = {str(jp.Engine(level=name).best_move(s, seed=5, iterations=min(
        level(name).iterations, 400))) for _ in range(2)}
    assert len(moves) == 1
    assert jp.Engine(level=name).iterations == level(name).iterations


def test_a_weaker_level_errs_but_never_far_and_is_reproducible():
    s = jp.GameState.new(seed=3, starter=1)
    a = jp.Engine().analyse(s, iterations=300, seed=4, top=None)
    best = a.candidates[0].win_probability
    for t in (0.5, 2.0, 8.0):
        chosen = set()
        for seed in range(30):
            b = jp.Engine().analyse(s, iterations=300, seed=seed, top=None)
            m = choose(b, t)
            c = next(x for x in b.candidates if x.move == m)
            assert 100 * (b.candidates[0].win_probability - c.win_probability) <= CUT * t
            assert c.visits > 0
            chosen.add(str(m))
        if t == 8.0:
            assert len(chosen) > 1                  # it does err
    assert choose(a, 0.0) == a.best
    e = jp.Engine(temperature=8)
    assert e.best_move(s, iterations=300, seed=9) == e.best_move(s, iterations=300, seed=9)


def test_a_move_the_search_never_tried_is_never_drawn():
    s = jp.GameState.new(seed=3, starter=1)
    legal = s.legal_moves()
    cands = [Candidate(legal[0], 10, 0.6, 1.0), Candidate(legal[1], 0, 0.9, 1.0)]
    a = Analysis(candidates=cands, algorithm="ismcts", seed=1, iterations=10,
                 determinizations=10, elapsed=0.0)
    assert all(choose(a, 50.0) == legal[0] for _ in range(5))


def test_unknown_levels_and_elo_out_of_range_are_typed_errors_listing_the_levels():
    with pytest.raises(InvalidOptionError) as e:
        jp.Engine(level=9)
    assert e.value.field == "level" and "max" in e.value.reason
    with pytest.raises(InvalidOptionError) as e:
        level("grandmaster")
    assert "1, 2, 3" in e.value.reason
    lo, hi = levels()[0].elo, levels()[-1].elo
    for bad in (lo - 1, hi + 1):
        with pytest.raises(InvalidOptionError) as e:
            jp.Engine(elo=bad)
        assert e.value.field == "elo" and f"{lo:.0f}" in e.value.reason
        with pytest.raises(SpecError) as e:
            EngineSpec.parse(f"ismcts:elo={bad}")
        assert e.value.field == "elo"
    with pytest.raises(InvalidOptionError):
        jp.Engine(level=3, elo=lo)
    with pytest.raises(InvalidOptionError):
        jp.Engine("expectimax", level=3)
    with pytest.raises(SpecError):
        EngineSpec.parse("greedy:level=3")


@settings(max_examples=60, deadline=None)
@given(st.floats(0, 1), st.floats(0, 1))
def test_elo_between_levels_moves_monotonically_along_the_ladder(u, v):
    lo, hi = levels()[0].elo, levels()[-1].elo
    a, b = sorted((lo + u * (hi - lo), lo + v * (hi - lo)))
    (ia, ta), (ib, tb) = level_limits(elo=a), level_limits(elo=b)
    assert ia <= ib and ta >= tb
    assert level_limits(elo=lo) == (levels()[0].iterations, levels()[0].temperature)
    assert level_limits(elo=hi) == (levels()[-1].iterations, levels()[-1].temperature)
    e = jp.Engine(elo=a)
    assert (e.iterations, e.temperature) == (ia, ta)


def test_a_broken_levels_file_is_a_typed_error(tmp_path):
    ladder, aliases, head = read_levels()
    rows = [lv.to_dict() for lv in ladder]
    cases = {"format": {**head, "format": "x", "levels": rows},
             "order": {**head, "levels": rows[::-1]},
             "field": {**head, "levels": [{**rows[0], "iterations": "many"}]},
             "alias": {**head, "levels": rows, "aliases": {"easy": "nope"}}}
    for name, doc in cases.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(doc))
        with pytest.raises(InvalidDataError):
            read_levels(str(p))
    (tmp_path / "t.json").write_text("{not json")
    with pytest.raises(InvalidDataError):
        read_levels(str(tmp_path / "t.json"))


def test_a_ladder_keeps_the_evaluation_it_was_rated_with(tmp_path, monkeypatch):
    from jaipur_ai.search import levels as lv_mod
    ladder, aliases, head = read_levels()
    rows = [lv.to_dict() for lv in ladder]
    p = tmp_path / "lin.json"
    p.write_text(json.dumps({**head, "evaluation": "linear", "levels": rows}))
    lin, _, _ = read_levels(str(p))
    assert all(lv.evaluation == "linear" for lv in lin)
    assert lin[2].spec == ladder[2].spec + ",evaluation=linear"
    p.write_text(json.dumps({**head, "evaluation": "oracle", "levels": rows}))
    with pytest.raises(InvalidDataError) as e:
        read_levels(str(p))
    assert e.value.field.endswith("evaluation")
    # with that ladder shipped (and other shipped weights), a level plays the linear
    # model unless told otherwise ...
    from jaipur_ai.search import evaluation as evaluation_mod
    monkeypatch.setattr(lv_mod, "_shipped", lambda: (tuple(lin), aliases))
    monkeypatch.setattr(evaluation_mod, "default_evaluation",
                        lambda: evaluation_mod.cached_evaluation("2026-12-04"))
    assert jp.Engine(level=3).evaluation == "linear"
    assert jp.Engine(elo=lin[3].elo).evaluation == "linear"
    assert EngineSpec.parse("ismcts:level=3").options["evaluation"] == "linear"
    s = jp.GameState.new(seed=2, starter=0)
    a = jp.Engine(level=7).analyse(s, seed=5)
    b = jp.Engine(iterations=lin[6].iterations, evaluation="linear").analyse(s, seed=5)
    c = jp.Engine(iterations=lin[6].iterations).analyse(s, seed=5)
    assert [(c.move, c.win_probability) for c in a.candidates] == \
        [(c.move, c.win_probability) for c in b.candidates] != \
        [(x.move, x.win_probability) for x in c.candidates]
    # ... and weights or another evaluation given by name are kept
    e2 = jp.Engine(level=3, weights="2026-12-04")
    assert (e2.evaluation, e2.weights) == ("learned", "2026-12-04")
    assert jp.Engine(level=3, evaluation="heuristic").evaluation == "heuristic"
    spec = EngineSpec.parse("ismcts:level=3,weights=2026-12-04")
    assert "evaluation" not in spec.options and spec.options["weights"] == "2026-12-04"


def test_the_levels_command_lists_them_weakest_first(capsys):
    assert main(["levels", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in out["levels"]] == [lv.name for lv in levels()]
    assert all({"spec", "elo", "lo", "hi", "ms"} <= set(r) for r in out["levels"])
    assert main(["levels"]) == 0
    assert "max" in capsys.readouterr().out
    assert main(["levels", "--save", "x.json"]) == 2
    assert "only with --rate" in capsys.readouterr().err


def test_play_takes_a_level_and_refuses_an_unknown_one(capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert main(["play", "--level", "2", "--seed", "3", "--you", "0"]) == 0
    capsys.readouterr()
    assert main(["play", "--level", "12", "--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert "unknown level" in err and "max" in err


def test_the_web_picker_lists_every_level_with_its_rating():
    app = WebApp(level="1", hint="ismcts:iterations=50")
    info = app.handle("GET", "/api", b"").json()
    assert [lv["name"] for lv in info["ladder"]] == [lv.name for lv in levels()]
    assert all(isinstance(lv["elo"], float) for lv in info["ladder"])
    r = app.handle("POST", "/api/games", json.dumps({"level": "3", "seed": 1}).encode())
    assert r.status == 200 and r.json()["engine"] == level("3").spec
    r = app.handle("POST", "/api/games", json.dumps({"level": "99"}).encode())
    assert r.status == 400 and r.json()["error"]["field"] == "level"
    from jaipur_ai.doors.webapi import PAGE_DIR
    assert "info.ladder" in (PAGE_DIR / "main.js").read_text()


def test_serve_and_specs_take_level_and_elo_as_options():
    e = EngineSpec.parse("ismcts:elo=1500,threads=2").make_engine()
    assert e.threads == 2 and e.temperature == level_limits(elo=1500)[1]
    assert jp.Engine.from_options(level="max").iterations == levels()[-1].iterations


def test_the_ladders_pairings_and_limits_that_differ_are_never_merged(tmp_path, capsys):
    d = str(tmp_path / "r")
    assert main(["rate", "a=ismcts:iterations=20", "b=ismcts:iterations=40",
                 "c=ismcts:iterations=80", "--gauntlet", "greedy", "--pairs", "ladder",
                 "--games", "1", "--dir", d, "--anchor", "greedy=1000", "--bootstrap", "20",
                 "-q", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    pairs = {(p["a"], p["b"]) for p in data["pairings"]}
    assert {("a", "b"), ("b", "c"), ("a", "greedy"), ("c", "greedy")} <= pairs
    assert ("a", "c") not in pairs
    assert [r["elo"] for r in data["ratings"] if r["engine"] == "greedy"] == [1000.0]
    # fitted without names: iteration limits that differ stay apart
    import glob
    ps = read_pairings(sorted(glob.glob(d + "/*.jsonl")), {"ismcts": "default"})
    assert len({p.a for p in ps} | {p.b for p in ps}) == 4
    assert "default" not in {p.a for p in ps}      # three specs would claim that name


def test_the_move_a_level_plays_reaches_every_door_as_play():
    s = jp.GameState.new(seed=3, starter=1)
    e = jp.Engine(level=1)
    plays = set()
    for seed in range(12):
        a = e.analyse(s, seed=seed, top=2)
        assert a.play == e.best_move(s, seed=seed)
        assert a.candidates[:2] == jp.Engine(level=1, temperature=0).analyse(
            s, seed=seed, top=2).candidates          # the top two, then the drawn move
        assert len(a.candidates) <= 3 and a.play in [c.move for c in a.candidates]
        assert a.to_dict()["play"] == str(a.play) and a.to_dict()["best"] == str(a.best)
        plays.add(a.play != a.best)
    assert plays == {True, False}                   # it draws, and sometimes the best
    assert "plays " in str(next(a for a in (e.analyse(s, seed=k) for k in range(12))
                                if a.drawn is not None))
    full = jp.Engine().analyse(s, iterations=300, seed=1)
    assert full.play == full.best and full.drawn is None and "plays" not in str(full)


def test_the_client_reads_a_levels_play(tmp_path):
    import sys
    from jaipur_ai.client import EngineClient
    s = jp.GameState.new(seed=3, starter=1)
    with EngineClient.popen() as c:
        for seed in range(6):
            a = c.analyse(s, level="1", seed=seed, top=1)
            assert a.play == jp.Engine(level=1).analyse(s, seed=seed).play
            assert c.best_move(s, level="1", seed=seed) == a.play


def test_one_seed_for_every_move_still_draws_afresh_in_each_position():
    e = jp.Engine(level=1, seed=1)
    s, drawn = jp.GameState.new(seed=5, starter=0), 0
    for _ in range(30):
        if s.is_round_over:
            break
        a = e.analyse(s, top=1)
        drawn += a.drawn is not None
        assert a.play in s.legal_moves() and a.play in [c.move for c in a.candidates]
        s = s.apply(a.play)
    assert 0 < drawn < 30


def test_serve_plays_a_levels_own_iterations_within_the_servers_limits():
    import io
    from jaipur_ai.doors.serve import Server
    from jaipur_ai.doors.limits import Limits
    reqs = [{"id": 1, "action": "analyse", "position": "sample", "level": "2", "seed": 1},
            {"id": 2, "action": "analyse", "position": "sample", "level": "max"},
            {"id": 3, "action": "analyse", "position": "sample", "level": "MAX",
             "perfect_information": True}]
    out = io.StringIO()
    Server(io.StringIO("".join(json.dumps(r) + "\n" for r in reqs)), out,
           limits=Limits(max_iterations=1000), time=0.5).run()
    answers = {a["id"]: a for a in map(json.loads, out.getvalue().splitlines())}
    assert answers[1]["iterations"] == level("2").iterations         # not 0.5 s
    assert answers[2]["error"]["field"] == "iterations"                # over the limit
    assert "error" in answers[3]


def test_levels_save_is_checked_before_any_game(tmp_path, capsys):
    assert main(["levels", "--rate", "--dir", str(tmp_path / "r"), "--save",
                 str(tmp_path / "nowhere" / "x.json")]) == 2
    assert "--save" in capsys.readouterr().err and not (tmp_path / "r").exists()

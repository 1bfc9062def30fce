"""The match runner (jaipur_ai.matches.runner): engine specs, mirrored deals,
reproducibility, and the statistics on known inputs.  Limits are tiny
iteration counts; nothing here asserts on time."""
from __future__ import annotations

import json
import math
import sys

import pytest

from jaipur_ai import GameState
from jaipur_ai.matches.games import GameRecord, play_game, play_round
from jaipur_ai.matches.runner import MatchResult, format_result, run_match, summarise
from jaipur_ai.search.levels import level
from jaipur_ai.matches.spec import EngineSpec, deal_seeds, derive_seed
from jaipur_ai.matches.stats import elo_difference, normal_interval, wilson_interval

from bench_scripts import bench_module

TINY = "ismcts:iterations=120"


# ------------------------------------------------------------------ engine specs
@pytest.mark.parametrize("text, algorithm, t, n, options", [
    ("ismcts:time=1", "ismcts", 1.0, None, {}),
    ("ismcts:iterations=5000,playout=random", "ismcts", None, 5000, {"playout": "random"}),
    ("expectimax:time=0.5,depth=2", "expectimax", 0.5, None, {"depth": 2}),
    ("greedy", "greedy", None, None, {}),
    ("random", "random", None, None, {}),
    ("  ISMCTS : iterations = 300 , exploration = 0.5 ", "ismcts", None, 300,
     {"exploration": 0.5}),
    ("ismcts:time=2s", "ismcts", 2.0, None, {}),
    ("ismcts:iterations=10,perfect_information=true", "ismcts", None, 10,
     {"perfect_information": True}),
    *[(name, "ismcts", None, level(name).iterations,          # the levels (test_levels.py)
       {"temperature": level(name).temperature} if level(name).temperature else {})
      for name in ("1", "easy", "medium", "hard", "max")],
    ("2500", "ismcts", None, 2500, {}),
])
def test_spec_parse(text, algorithm, t, n, options):
    s = EngineSpec.parse(text)
    assert (s.algorithm, s.time, s.iterations, s.options) == (algorithm, t, n, options)
    assert EngineSpec.parse(str(s)) == s


@pytest.mark.parametrize("text", [
    "", "chess", "ismcts:time", "ismcts:time=abc", "ismcts:time=0", "ismcts:time=-1",
    "ismcts:iterations=1.5", "ismcts:iterations=-1", "ismcts:=3", "ismcts:iterations=",
])
def test_spec_rejects(text):
    with pytest.raises(ValueError) as e:
        EngineSpec.parse(text)
    assert e.value.field and e.value.reason


@pytest.mark.parametrize("text,field,words", [
    ("ismcts:iterations=5,iterations=10", "iterations", "given twice"),
    ("ismcts:cutoff=3,cutoff=4", "cutoff", "given twice"),
    ("ismcts:time=1,time=2s", "time", "given twice"),
    ("ismcts:algorithm=greedy", "algorithm", "before the colon"),
    ("greedy:cutoff=3", "cutoff", "not an option of greedy"),
    ("ismcts:depth=2", "depth", "not an option of ismcts"),
    ("medium:time=1", "engine", "is a level, which takes no options"),
])
def test_a_spec_says_what_it_cannot_mean(text, field, words):
    with pytest.raises(ValueError) as e:
        EngineSpec.parse(text)
    assert e.value.field == field and words in e.value.reason


def test_an_int_option_given_as_a_float_says_why_it_is_refused():
    from jaipur_ai import InvalidOptionError, analyse
    with pytest.raises(InvalidOptionError) as e:
        analyse(GameState.new(seed=1), iterations=50.0)
    assert e.value.field == "iterations" and "got 50.0" in e.value.reason


def test_spec_limits_and_determinism():
    assert EngineSpec.parse("ismcts").limits() == {"time": 1.0, "iterations": None}
    assert EngineSpec.parse("greedy").limits() == {"time": None, "iterations": None}
    assert EngineSpec.parse("ismcts:iterations=10").deterministic
    assert not EngineSpec.parse("ismcts:time=1").deterministic
    assert EngineSpec.parse("greedy").deterministic


def test_spec_unknown_engine_option():
    with pytest.raises(ValueError, match="not an engine option"):
        EngineSpec.parse("ismcts:iterations=10,zork=1").make_engine()
    with pytest.raises(ValueError):
        EngineSpec.parse("ismcts:iterations=10,playout=bogus").make_engine()


# ------------------------------------------------------------------------ seeds
def test_seeds_are_fixed_functions():
    assert derive_seed(1, 2, 3) == derive_seed(1, 2, 3)
    assert derive_seed(1, 2, 3) != derive_seed(1, 3, 2)
    assert 0 <= derive_seed(2**70, 5) < 2**64
    s = deal_seeds(42, 5)
    assert s == deal_seeds(42, 5) and len(set(s)) == 5
    assert deal_seeds(42, 3) == s[:3]


# ---------------------------------------------------------------------- playing
def test_play_round_is_one_finished_round():
    r = play_round("greedy", "random", deal_seed=5, a_seat=1)
    assert r.rounds == 1 and r.a_seat == 1
    assert r.winner in ("A", "B", "draw")
    assert r.plies == len(r.moves) == sum(r.engine_moves)
    # replay the recorded moves: they are legal and give the recorded points
    s = GameState.new(5)
    assert s.starter == r.starter
    for m in r.moves:
        s = s.apply(m)
    assert s.is_round_over
    totals = s.round_totals()
    assert r.points == (totals[1], totals[0])
    winner = {None: "draw", "draw": "draw", 0: "B", 1: "A"}[s.result]
    assert r.winner == winner


def test_play_round_seat_and_starter():
    a0 = play_round("greedy", "random", deal_seed=11, a_seat=0, starter=1)
    a1 = play_round("greedy", "random", deal_seed=11, a_seat=1, starter=1)
    assert a0.starter == a1.starter == 1
    assert not a0.a_started and a1.a_started
    # the same deal: B (random) is not A (greedy), so the games differ, but the
    # first market and hands are the same, so whoever starts sees the same table
    assert a0.deal_seed == a1.deal_seed


def test_play_game_full_match():
    r = play_game("greedy", "random", deal_seed=3, a_seat=0, unit="match")
    assert r.rounds >= 2
    assert max(r.seals) == 2
    assert r.winner == ("A" if r.seals[0] == 2 else "B")
    assert r.moves.count("|") == r.rounds - 1


def test_play_game_move_seed_replaces_the_derived_seeds():
    spec = "ismcts:iterations=60"
    calls = []

    def derived(rnd, ply, player):       # the default seeds, written out
        calls.append((rnd, ply, player))
        return derive_seed(9, 1, 4, 0, rnd, ply)

    base = play_game(spec, spec, deal_seed=9, a_seat=0, deal=4)
    same = play_game(spec, spec, deal_seed=9, a_seat=0, deal=4, move_seed=derived)
    assert same.moves == base.moves
    assert calls == [(1, ply, calls[ply][2]) for ply in range(base.plies)]
    s = GameState.new(9)
    for (_, _, player), m in zip(calls, base.moves):  # the player to move at each ply
        assert player == s.to_move
        s = s.apply(m)
    other = [play_game(spec, spec, deal_seed=9, a_seat=0, deal=4,
                       move_seed=lambda r, ply, p, k=k: k * 1000 + ply).moves for k in (1, 2, 3)]
    assert any(moves != base.moves for moves in other)


def test_bench_strength_plays_through_the_match_runner(monkeypatch):
    """bench/bench_strength.py has no game loop of its own: its rounds are
    play_game's, with its deal (A is player 0) and its seeds."""
    bench = bench_module("bench_strength.py", "bench_strength")
    seen = []
    real = bench.play_game

    def spy(*args, **kw):
        rec = real(*args, **kw)
        seen.append(rec)
        return rec

    monkeypatch.setattr(bench, "play_game", spy)
    pts, margin, plies = bench.play_round(2, {"iterations": 80}, {"algorithm": "greedy"}, False)
    (rec,) = seen
    assert rec.a_seat == 0 and rec.starter == 1 and rec.deal_seed == 2
    assert (pts, margin, plies) == (rec.score, rec.margin, rec.plies)
    assert bench._spec({"time": 0.5, "playout": "random"}) == \
        EngineSpec("ismcts", time=0.5, options={"playout": "random"})


def test_peek_hands_shows_the_opponents_hand_and_nothing_else(monkeypatch):
    """bench/experiments/peek_hands.py: the peeking side's search gets its own view
    with the opponent's whole hand as known cards; the draw pile and the bonus
    tokens stay hidden, and the other side plays from its plain view."""
    peek = bench_module("experiments/peek_hands.py", "peek_hands")
    state = GameState.new(11)
    for _ in range(9):                     # a position some plies in
        state = state.apply(state.legal_moves()[0])
    me = state.to_move
    v = peek.hand_revealed_view(state)
    truth = state.to_dict()["players"][1 - me]["hand"]
    assert sorted(v.opponent_known) == sorted(truth) and v.opponent_hand_size == len(truth)
    plain, shown = state.view(me).to_dict(), v.to_dict()
    shown["players"][1 - me]["known"] = plain["players"][1 - me]["known"]
    assert shown == plain                  # nothing else differs
    # the deck is still unseen: sampled worlds differ in its order
    assert len({w.to_text() for w in (v.sample(k) for k in range(5))}) > 1

    a = peek.peeking_spec("ismcts:iterations=60")
    assert a.cheats and str(a) == "hands+ismcts:iterations=60"
    with pytest.raises(SystemExit):
        peek.peeking_spec("ismcts:iterations=60,perfect_information=true")
    given = []
    real = peek._HandPeekingEngine.best_move

    def spy(self, position, **limits):
        given.append(position)
        return real(self, position, **limits)

    monkeypatch.setattr(peek._HandPeekingEngine, "best_move", spy)
    rec = play_game(a, "greedy", deal_seed=3, a_seat=0)
    assert given and all(isinstance(s, GameState) for s in given)
    assert rec.engine_moves[0] == len(given)


def test_replay_lost_replays_each_lost_round_per_engine_and_seed(tmp_path, capsys):
    """bench/experiments/replay_lost.py: the rounds A lost, from a results file or a
    --json result, are played again from their deal, seat and starter."""
    replay = bench_module("experiments/replay_lost.py", "replay_lost")
    out = tmp_path / "m.jsonl"
    res = run_match("random", "greedy", games=3, seed=5, out=str(out))
    (tmp_path / "m.json").write_text(json.dumps(res.to_dict()))
    b, lost = replay.lost_rounds(str(out))
    assert b == "greedy" and lost and all(r["score"] < 1 for r in lost)
    b2, lost2 = replay.lost_rounds(str(tmp_path / "m.json"))
    def games(records):
        return sorted((r["deal"], r["a_seat"], r["deal_seed"], r["starter"], r["score"],
                       r["moves"]) for r in records)
    assert b2 == b and games(lost2) == games(lost)
    assert replay.main([str(out), "--engine", "random", "--engine",
                        "hands+ismcts:iterations=30", "--seeds", "1", "2",
                        "--workers", "1"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert len(rows) == 4 * len(lost)
    for r in rows:              # each replay is play_game from the lost round's deal
        rec = next(x for x in lost if (x["deal_seed"], x["a_seat"]) ==
                   (r["deal_seed"], r["a_seat"]))
        again = play_game(replay.engine_spec(r["engine"]), "greedy", rec["deal_seed"],
                          rec["a_seat"], starter=rec["starter"], seed=r["seed"])
        assert (again.score, again.margin) == (r["score"], r["margin"])


def test_play_game_bad_args():
    with pytest.raises(ValueError):
        play_game("greedy", "random", 1, a_seat=2)
    with pytest.raises(ValueError):
        play_game("greedy", "random", 1, a_seat=0, unit="set")


def test_run_match_mirrors_every_deal():
    res = run_match("greedy", "random", games=3, seed=7)
    assert res.n_games == 6 and not res.interrupted
    seeds = deal_seeds(7, 3)
    by_deal: dict = {}
    for r in res.records:
        by_deal.setdefault(r.deal, []).append(r)
    assert sorted(by_deal) == [0, 1, 2]
    for d, recs in by_deal.items():
        assert sorted(r.a_seat for r in recs) == [0, 1]
        assert {r.deal_seed for r in recs} == {seeds[d]}
        assert recs[0].starter == recs[1].starter == GameState.new(seeds[d]).starter
        assert sorted(r.a_started for r in recs) == [False, True]
    st = res.stats
    assert st["complete_pairs"] == 3
    assert st["by_start"]["a_first"]["games"] == st["by_start"]["b_first"]["games"] == 3


def test_run_match_reproducible_across_workers():
    r1 = run_match(TINY, "greedy", games=2, seed=5)
    r2 = run_match(TINY, "greedy", games=2, seed=5, workers=2)
    assert r1.reproducible and r2.reproducible
    key = [(r.deal, r.a_seat, r.moves, r.points, r.winner) for r in r1.records]
    assert key == [(r.deal, r.a_seat, r.moves, r.points, r.winner) for r in r2.records]
    r3 = run_match(TINY, "greedy", games=2, seed=6)
    assert [r.moves for r in r3.records] != [r.moves for r in r1.records]


def test_run_match_callbacks_and_stop():
    seen = []
    res = run_match("greedy", "random", games=2, seed=1,
                    on_result=lambda rec, done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]
    done = []
    res = run_match("greedy", "random", games=5, seed=1,
                    on_result=lambda rec, n, total: done.append(n),
                    should_stop=lambda: len(done) >= 3)
    assert res.interrupted and res.n_games == 3 and done == [1, 2, 3]
    assert res.stats["complete_pairs"] == 1


def test_run_match_unit_match_and_json():
    res = run_match("greedy", "random", games=1, seed=2, unit="match")
    assert res.n_games == 2 and all(max(r.seals) == 2 for r in res.records)
    d = json.loads(res.to_json())
    for key in ("a", "b", "seed", "unit", "games_played", "wins", "draws", "losses",
                "win_rate", "win_rate_ci95", "ci_method", "elo", "elo_ci95", "mean_margin",
                "seconds_per_move", "by_start", "by_seat", "records", "interrupted"):
        assert key in d
    assert d["unit"] == "match" and d["games_played"] == d["games"] == 2
    assert len(d["records"]) == 2 and d["records"][0]["rounds"] >= 2
    assert "matches played" in format_result(res)


@pytest.mark.parametrize("kw", [{"games": 0}, {"games": 1.5}, {"workers": 0},
                                {"unit": "set"}])
def test_run_match_bad_args(kw):
    args = {"games": 1, **kw}
    with pytest.raises(ValueError):
        run_match("greedy", "random", seed=1, **args)


# ------------------------------------------------------------------ statistics
def test_wilson_known_values():
    lo, hi = wilson_interval(0.5, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    lo, hi = wilson_interval(0.8, 10)       # 8 wins in 10
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    lo, hi = wilson_interval(0.0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    assert wilson_interval(1.0, 10) == pytest.approx((1 - 0.2775, 1.0), abs=1e-4)
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_normal_interval_known_values():
    mean, lo, hi = normal_interval([1, 2, 3, 4, 5])
    half = 2.776445 * math.sqrt(2.5 / 5)         # Student's t, 4 degrees of freedom
    assert mean == 3 and lo == pytest.approx(3 - half) and hi == pytest.approx(3 + half)
    assert normal_interval([4]) == (4, 4, 4)
    assert normal_interval([]) == (0.0, 0.0, 0.0)


def test_elo_known_values():
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.75) == pytest.approx(190.848, abs=1e-3)
    assert elo_difference(0.25) == pytest.approx(-190.848, abs=1e-3)
    assert elo_difference(1 / 11) == pytest.approx(-400.0)
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf


def _rec(deal, seat, winner, margin, starter=0):
    return GameRecord(deal=deal, deal_seed=deal, a_seat=seat, starter=starter, winner=winner,
                      points=(50 + margin, 50), seconds=(1.0, 0.5), engine_moves=(10, 10))


def test_summarise_known_inputs():
    recs = [_rec(0, 0, "A", 10), _rec(0, 1, "B", -4), _rec(1, 0, "draw", 0),
            _rec(1, 1, "A", 6)]
    s = summarise(recs)
    assert (s["wins"], s["draws"], s["losses"], s["games"]) == (2, 1, 1, 4)
    assert s["score"] == s["win_rate"] == 0.625
    assert s["win_rate_ci95"] == list(wilson_interval(0.625, 4))
    assert s["elo"] == pytest.approx(elo_difference(0.625))
    assert s["elo_ci95"][0] == pytest.approx(elo_difference(s["win_rate_ci95"][0]))
    assert s["mean_margin"] == 3.0
    assert s["seconds_per_move"] == [0.1, 0.05]
    assert s["complete_pairs"] == 2
    # starter 0: A started when it sat as player 0
    assert s["by_start"]["a_first"] == {"games": 2, "wins": 1, "draws": 1, "losses": 0,
                                        "score": 0.75}
    assert s["by_seat"]["a_player1"] == {"games": 2, "wins": 1, "draws": 0, "losses": 1,
                                         "score": 0.5}
    json.dumps(s)  # JSON can hold it


def test_summarise_all_wins_and_empty():
    s = summarise([_rec(0, 0, "A", 5), _rec(0, 1, "A", 5)])
    assert s["elo"] is None and s["elo_infinite"] == "+inf"
    assert s["elo_ci95"][1] is None
    assert s["elo_ci95"][0] == pytest.approx(elo_difference(wilson_interval(1.0, 2)[0]))
    json.dumps(s)
    e = summarise([])
    assert e["games"] == 0 and e["win_rate"] is None
    res = MatchResult(EngineSpec.parse("greedy"), EngineSpec.parse("random"), seed=1, deals=1,
                      unit="round", records=[], interrupted=True)
    assert "no game finished" in format_result(res)


def test_the_library_logs_matches_and_searches(caplog):
    """Through the "jaipur_ai" logger: a match at INFO, each search at DEBUG; silent
    unless the application configures logging (a NullHandler)."""
    import logging
    assert any(isinstance(h, logging.NullHandler)
               for h in logging.getLogger("jaipur_ai").handlers)
    with caplog.at_level(logging.DEBUG, logger="jaipur_ai"):
        run_match("ismcts:iterations=50", "greedy", games=1, seed=3)
    names = {r.name for r in caplog.records}
    assert "jaipur_ai.matches.runner" in names and "jaipur_ai.search.engine" in names
    assert any("games played" in r.getMessage() for r in caplog.records)

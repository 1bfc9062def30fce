"""Game records (jaipur_ai.matches.record, docs/ecosystem.md "Game records"): written by
``jaipur-ai match --record`` and ``play --record``, read back by GameRecord.load,
which replays and checks every move."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

import jaipur_ai as jp
from jaipur_ai.matches.runner import run_match
from jaipur_ai.matches.record import FORMAT, GameRecord, RecordError


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaipur_ai", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def match_record():
    return GameRecord.from_match(run_match("greedy", "random", games=1, seed=2, unit="match"))


def test_a_match_record_holds_every_round_and_replays(match_record):
    d = match_record.to_dict()
    assert d["format"] == FORMAT and d["players"] == {"A": "greedy", "B": "random"}
    assert d["settings"]["unit"] == "match" and len(d["games"]) == 2
    for game in d["games"]:
        assert max(game["seals"]) == 2 and game["winner"] in ("A", "B")
        for r in game["rounds"]:
            assert isinstance(r["moves"], list) and all(isinstance(m, str) for m in r["moves"])
            assert set(r["deal"]) == {"seed"} and r["result"] in (0, 1, "draw")
    back = GameRecord.from_json(match_record.to_json())
    assert back.games == match_record.games
    finals = back.final_states()
    assert [list(s.seals) for s in finals] == [g["seals"] for g in d["games"]]
    plies = sum(1 for _ in back.replay())
    assert plies == sum(len(r["moves"]) for g in d["games"] for r in g["rounds"])


def test_a_bad_move_is_a_typed_error_naming_the_move(match_record):
    d = copy.deepcopy(match_record.to_dict())
    moves = d["games"][1]["rounds"][0]["moves"]
    moves[4] = "sell 5D"
    with pytest.raises(RecordError) as e:
        GameRecord.from_dict(d)
    assert e.value.move_number == 5
    assert e.value.field == "games[1].rounds[0].moves[4]"
    assert "move 5 'sell 5D'" in str(e.value)
    d = copy.deepcopy(match_record.to_dict())
    d["games"][0]["rounds"][0]["moves"].append("camels")      # played after the end
    with pytest.raises(RecordError, match="already over"):
        GameRecord.from_dict(d)
    d = copy.deepcopy(match_record.to_dict())
    d["games"][0]["rounds"][0]["result"] = "draw"
    with pytest.raises(RecordError, match="result"):
        GameRecord.from_dict(d)
    with pytest.raises(RecordError, match="format"):
        GameRecord.from_dict({"format": "jaipur-record/0", "games": []})
    with pytest.raises(RecordError):
        GameRecord.from_json("{")


def test_an_explicit_deal_replays_too():
    s = jp.GameState.new(seed=12, starter=1)
    moves = []
    while not s.is_round_over:
        m = jp.Engine("greedy").best_move(s, seed=0)
        moves.append(str(m))
        s = s.apply(m)
    d = {"format": FORMAT, "players": {}, "games": [{"seats": ["A", "B"], "rounds": [
        {"deal": {"state": jp.GameState.new(seed=12, starter=1).to_dict()}, "starter": 1,
         "moves": moves, "totals": list(s.round_totals()), "result": s.result}]}]}
    rec = GameRecord.from_dict(json.loads(json.dumps(d)))
    assert rec.final_states()[0] == s


def test_match_and_play_write_records(tmp_path):
    path = tmp_path / "m.json"
    p = cli("match", "greedy", "random", "--games", "1", "--seed", "4", "-q", "--record", str(path))
    assert p.returncode == 0, p.stderr
    rec = jp.GameRecord.load(str(path))
    assert rec.source == "match" and len(rec.games) == 2
    path = tmp_path / "p.json"
    s = jp.GameState.new(seed=5)
    mine = s.legal_moves()[0] if s.to_move == 0 else None
    script = (f"{mine}\n" if mine else "") + "quit\n"
    p = cli("play", "--level", "easy", "--seed", "5", "--you", "0", "--record", str(path),
            stdin=script)
    assert p.returncode == 0, p.stderr
    rec = jp.GameRecord.load(str(path))
    game = rec.games[0]
    assert rec.source == "play" and game["seats"] == ["human", "engine"]
    assert game["rounds"][0]["deal"] == {"seed": 5} and game["rounds"][0]["moves"]
    if mine:
        assert game["rounds"][0]["moves"][0] == str(mine)


# ------------------------------------------------------------------ malformed records
def _paths(o, p=()):
    yield p
    if isinstance(o, dict):
        for k, v in o.items():
            yield from _paths(v, p + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o[:3]):
            yield from _paths(v, p + (i,))


_ODD = [None, 0, -1, 1.5, "x", [], {}, [None], {"a": 1}, True, 2**70, "S 1", [1, 2]]


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_a_record_with_any_field_changed_is_a_record_error_or_reads(data):
    """Any field of a real record set to a value of another kind, or removed, gives a
    RecordError naming a field (never a TypeError, KeyError or the like)."""
    from jaipur_ai.doors.commands import SAMPLE_RECORD
    d = json.loads(SAMPLE_RECORD.read_text())
    places = [p for p in _paths(d) if p]
    for _ in range(data.draw(st.integers(1, 2))):
        path = data.draw(st.sampled_from(places))
        cur = d
        try:
            for k in path[:-1]:
                cur = cur[k]
            if data.draw(st.booleans()) and isinstance(cur, dict):
                cur.pop(path[-1], None)
            else:
                cur[path[-1]] = copy.deepcopy(data.draw(st.sampled_from(_ODD)))   # unshared
        except (KeyError, IndexError, TypeError):
            pass                                   # an earlier change removed the place
    try:
        GameRecord.from_json(json.dumps(d))
    except RecordError as e:
        assert e.field
    except jp.JaipurError as e:                    # (a position's own error names its field)
        assert e.field


def test_a_deeply_nested_record_is_a_record_error():
    with pytest.raises(RecordError, match="nested too deeply"):
        GameRecord.from_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordError, match="settings"):
        d = json.loads(GameRecord(games=[], players={}).to_json())
        d["settings"] = 5
        GameRecord.from_dict(d)


# ------------------------------------------------------------------ annotated records
_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
_notes = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "comment": _text,
    "label": st.sampled_from(("inaccuracy", "mistake", "blunder")),
    "eval": st.fixed_dictionaries({}, optional={
        "win_probability": st.floats(0, 1),
        "expected_margin": st.floats(-200, 200),
        "engine": _text,
        "iterations": st.integers(0, 10**9)})}))


@settings(max_examples=40, deadline=None)
@given(headers=st.fixed_dictionaries({}, optional={
           "event": _text, "site": _text, "annotator": _text,
           "date": st.dates().map(lambda d: d.isoformat()),
           "names": st.dictionaries(st.sampled_from("AB"), _text)}),
       notes=st.lists(_notes, min_size=200, max_size=200))
def test_annotated_records_round_trip(match_record, headers, notes):
    rec = copy.deepcopy(match_record)
    rec.headers = headers
    k = 0
    for rnd in rec.games[0]["rounds"]:
        n = len(rnd["moves"])
        rnd["notes"] = [notes[(k + i) % len(notes)] for i in range(n)]
        k += n
    back = GameRecord.from_json(rec.to_json())
    assert back == rec and back.headers == headers
    assert GameRecord.from_json(back.to_json(indent=1)).to_dict() == rec.to_dict()


def test_a_note_is_checked_by_name(match_record):
    rec = copy.deepcopy(match_record)
    rec.annotate(0, 0, 2, comment="why?", label="mistake",
                 eval={"win_probability": 0.4, "best": rec.games[0]["rounds"][0]["moves"][2],
                       "engine": "ismcts", "iterations": 3000})
    assert rec.games[0]["rounds"][0]["notes"][2]["label"] == "mistake"
    assert GameRecord.from_json(rec.to_json()) == rec
    before = rec.to_json()
    for kw, field, reason in [
            (dict(label="awful"), "notes[3].label", "expected one of"),
            (dict(eval={"best": "sell 5D"}), "notes[3].eval.best", "not a legal move"),
            (dict(eval={"win_probability": 1.5}), "notes[3].eval.win_probability", "[0, 1]"),
            (dict(eval={"iterations": -1}), "notes[3].eval.iterations", ">= 0")]:
        with pytest.raises(RecordError, match=reason) as e:
            rec.annotate(0, 0, 3, **kw)
        assert e.value.field.endswith(field)
        assert rec.to_json() == before          # nothing half-applied
    d = rec.to_dict()
    d["games"][0]["rounds"][0]["notes"] = [None]
    with pytest.raises(RecordError, match="one note"):
        GameRecord.from_dict(d)
    d = rec.to_dict()
    d["games"][0]["rounds"][0]["notes"][2]["mood"] = "x"
    with pytest.raises(RecordError, match="not a note field"):
        GameRecord.from_dict(d)
    for bad, reason in [({"date": "4 Dec"}, "YYYY-MM-DD"), ({"names": "x"}, "seat label"),
                        ({"event": 3}, "a text"), ([], "an object")]:
        d = rec.to_dict()
        d["headers"] = bad
        with pytest.raises(RecordError, match=reason):
            GameRecord.from_dict(d)


def test_review_annotate_writes_a_record_that_reads_back(tmp_path):
    out = tmp_path / "annotated.json"
    r = cli("review", "sample", "--iterations", "200", "--json", "-q", "--annotate", str(out))
    assert r.returncode == 0, r.stderr
    review = json.loads(r.stdout)
    rec = GameRecord.load(str(out))
    assert rec.headers["annotator"].startswith("jaipur-ai review")
    notes = [n for rnd in rec.games[review["game"]]["rounds"] for n in rnd.get("notes", [])]
    assert len(notes) == len(review["plies"])
    for n, p in zip(notes, review["plies"]):
        assert n["eval"]["best"] == p["best"] and n.get("label") == p["label"]
        assert n["eval"]["win_probability"] == pytest.approx(p["win_played"], abs=1e-6)
        assert ("comment" in n) == (p["best"] != p["move"])


SAMPLE_RECORD_FILE = __import__("pathlib").Path(jp.__file__).parent / "data" / "sample-record.json"


@pytest.mark.parametrize("seats", [5, [[1], [2]], ["A"], ["A", "B", "C"], [True, "B"], {"A": 0}])
def test_a_records_seats_are_two_names(seats):
    d = json.loads(SAMPLE_RECORD_FILE.read_text(encoding="utf-8"))
    GameRecord.from_dict(copy.deepcopy(d))                      # (the sample is fine)
    d["games"][0]["seats"] = seats
    with pytest.raises(RecordError) as e:
        GameRecord.from_dict(d)
    assert e.value.field == "games[0].seats"


def test_a_record_file_that_cannot_be_read_is_a_record_error(tmp_path):
    latin1 = tmp_path / "latin1.json"
    latin1.write_bytes('{"format": "jaipur-record/1", "players": {"é": 1}}'.encode("latin-1"))
    for path, reason in [(tmp_path / "missing.json", "No such file"), (tmp_path, "directory"),
                         (latin1, "not UTF-8")]:
        with pytest.raises(RecordError) as e:
            GameRecord.load(str(path))
        assert e.value.field == "record" and reason in e.value.reason
    with pytest.raises(RecordError):
        GameRecord.from_json(None)  # type: ignore[arg-type]


def test_a_record_file_saved_with_a_byte_order_mark_reads(tmp_path):
    # (Windows Notepad saves UTF-8 so; serve and the web already read such text)
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + SAMPLE_RECORD_FILE.read_bytes())
    assert GameRecord.load(str(path)).to_dict() == GameRecord.load(str(SAMPLE_RECORD_FILE)).to_dict()


@pytest.mark.parametrize("data", [b'{\xff"format": 1}', b"\xff\xfe\xfd", bytearray(b"[\xc3\x28]")])
def test_record_bytes_that_are_not_utf8_are_a_record_error(data):
    # (issue 51, item 9: 107 of 2,127 fuzzed records raised UnicodeDecodeError)
    with pytest.raises(RecordError) as e:
        GameRecord.from_json(data)
    assert e.value.field == "record" and "not UTF-8" in e.value.reason
    good = SAMPLE_RECORD_FILE.read_bytes()
    assert GameRecord.from_json(good).to_dict() == GameRecord.load(str(SAMPLE_RECORD_FILE)).to_dict()


# ------------------------------------------------------------------ --record paths
# (issue 51, item 1: a whole match or game was played, then FileNotFoundError, the record
# lost): the path is checked before the work; a failure at the end still shows the results

def _no_work(*args, **kw):
    raise AssertionError("the work started before the output path was checked")


@pytest.mark.parametrize("where, why", [("/nonexist/m.json", "no such folder '/nonexist'"),
                                        (".", "a folder, not a file name")])
def test_record_paths_are_checked_before_the_match_or_the_game(where, why, capsys, monkeypatch):
    import io
    from jaipur_ai.doors import commands
    from jaipur_ai.doors.cli import main
    monkeypatch.setattr(commands, "run_match", _no_work)
    monkeypatch.setattr(commands, "Game", _no_work)
    assert main(["match", "ismcts:iterations=3000", "greedy", "--games", "2", "--seed", "1",
                 "--record", where]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"--record: cannot write '{where}': {why}" in err
    monkeypatch.setattr("sys.stdin", io.StringIO("take S\nquit\n"))
    assert main(["play", "--level", "easy", "--seed", "3", "--you", "0", "--record", where]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"--record: cannot write '{where}': {why}" in err


def test_a_record_that_cannot_be_written_at_the_end_follows_the_results(tmp_path, capsys,
                                                                        monkeypatch):
    import errno
    import io
    import os
    from jaipur_ai.doors.cli import main

    def disk_full(self, path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
    monkeypatch.setattr(GameRecord, "save", disk_full)
    path = str(tmp_path / "m.json")
    assert main(["match", "greedy", "random", "--games", "1", "--seed", "1", "-q",
                 "--record", path]) == 1
    out, err = capsys.readouterr()
    assert "A wins" in out                                  # the results, then the failure
    assert err.count("\n") == 1 and f"--record: cannot write {path!r}: No space left on " \
        "device (the games of the match above are not saved)" in err
    monkeypatch.setattr("sys.stdin", io.StringIO("take S\nquit\n"))
    assert main(["play", "--level", "easy", "--seed", "3", "--you", "0", "--record", path]) == 1
    out, err = capsys.readouterr()
    assert "You left the game" in out
    assert err.count("\n") == 1 and "(the game above is not saved)" in err

"""Fuzzing every public parser and every option at every door (issue 11, "Evidence"):
only the library's typed errors (JaipurError) come out, nothing else, and a position
that is accepted always searches and samples cleanly.

Bounded in time: each property runs a fixed number of examples with a deadline
(hypothesis settings below), so the whole file takes seconds.
"""
from __future__ import annotations

import io
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai import options as O
from jaipur_ai.errors import JaipurError
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.search.levels import levels
from jaipur_ai.doors.serve import Server

from strategies import states

FUZZ = settings(max_examples=int(__import__("os").environ.get("JAIPUR_AI_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                         st.floats(allow_nan=True, allow_infinity=True),
                         st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20)
CARD_TEXT = st.text(alphabet="DGSCPLMdgsclpm -/0123456789xX*,ſſ\u00e9\n\t", max_size=30)


def _mutate_text(text: str, data) -> str:
    """The text with a few characters changed, inserted or removed."""
    chars = list(text)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, max(0, len(chars) - 1)))
        op = data.draw(st.sampled_from(["set", "insert", "delete"]))
        c = data.draw(st.sampled_from(list("SVDGSCPLM0123456789.-/ T=ſ\u0000{}\"") + ["\u00e9"]))
        if op == "set" and chars:
            chars[i] = c
        elif op == "insert":
            chars.insert(i, c)
        elif chars:
            del chars[i]
    return "".join(chars)


def _mutate_dict(d, data):
    """The JSON form with one field (at any depth) replaced by any JSON value."""
    d = json.loads(json.dumps(d))
    node = d

    def pick(node):
        """A key of a non-empty dict, an index of a non-empty list, else None."""
        if isinstance(node, dict) and node:
            return data.draw(st.sampled_from(sorted(node)))
        if isinstance(node, list) and node:
            return data.draw(st.integers(0, len(node) - 1))
        return None

    for _ in range(data.draw(st.integers(0, 3))):
        k = pick(node)
        if k is None:
            break
        if not (isinstance(node[k], (dict, list)) and node[k]):
            node[k] = data.draw(json_values)
            return d
        node = node[k]
    k = pick(node)
    if k is not None:
        node[k] = data.draw(json_values)
    return d


def _searches_and_samples(pos) -> None:
    """An accepted position: its moves, a short search and sampled worlds all work."""
    if pos.is_round_over:
        return
    view = pos if isinstance(pos, jp.View) else pos.view(pos.to_move)
    if view.to_move != view.observer:
        return
    moves = view.legal_moves()
    assert moves
    for seed in (1, 2):
        world = view.sample(seed)
        assert world.view(view.observer) == view
    a = jp.analyse(view, iterations=30, seed=1, top=None)
    assert a.best in moves
    assert jp.best_move(view, iterations=20, seed=1, algorithm="expectimax", depth=1,
                        samples=2) in moves
    assert jp.best_move(view, seed=1, algorithm="greedy") in moves


def _only_typed(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except JaipurError:
        return None


@FUZZ
@given(states(max_plies=120), st.data())
def test_position_parsers_raise_only_typed_errors(state, data):
    kind = data.draw(st.sampled_from(["state", "view"]))
    pos = state if kind == "state" else state.view(data.draw(st.integers(0, 1)))
    cls = type(pos)
    form = data.draw(st.sampled_from(["text", "json", "dict", "read"]))
    if form == "dict":
        got = _only_typed(cls.from_dict, _mutate_dict(pos.to_dict(), data))
    elif form == "json":
        text = _mutate_text(pos.to_json(), data)
        got = _only_typed(cls.from_json, text)
    elif form == "text":
        got = _only_typed(cls.from_text, _mutate_text(pos.to_text(), data))
    else:
        got = _only_typed(jp.read_position, _mutate_text(pos.to_text(), data))
    if got is not None:
        _searches_and_samples(got)
        assert type(got).from_text(got.to_text()) == got


@FUZZ
@given(st.one_of(json_values, st.binary(max_size=40).map(lambda b: b.decode("latin-1"))))
def test_any_value_is_refused_typed_as_a_position(value):
    for fn in (jp.GameState.from_dict, jp.View.from_dict):
        got = _only_typed(fn, value)
        assert got is None or isinstance(got, (jp.GameState, jp.View))
    if isinstance(value, str):
        for fn in (jp.GameState.from_text, jp.View.from_text, jp.read_position,
                   jp.GameState.from_json, jp.View.from_json):
            got = _only_typed(fn, value)
            if got is not None:
                _searches_and_samples(got)


@FUZZ
@given(st.one_of(CARD_TEXT.map(lambda t: "swap " + t), CARD_TEXT.map(lambda t: "sell " + t),
                 CARD_TEXT.map(lambda t: "take " + t), CARD_TEXT, json_values),
       states(max_plies=60))
def test_move_parsers_raise_only_typed_errors(text, state):
    m = _only_typed(jp.Move.parse, text)
    if m is not None:
        assert jp.Move.parse(str(m)) == m
        assert jp.Move.from_action_id(m.action_id) == m
    if not state.is_round_over:
        after = _only_typed(state.apply, text)
        assert after is None or isinstance(after, jp.GameState)
    for args in ((text,), (text, text)):
        for fn in (jp.Move.take, jp.Move.swap, jp.Move.sell):
            try:
                fn(*args)
            except (JaipurError, TypeError):
                pass     # (a wrong number of arguments is Python's own TypeError)
    _only_typed(jp.Move.from_action_id, text)


def _option_values(o: O.Option):
    """Values near and beyond an option's range, of its type and others."""
    vals = [None, True, "x", [], {}, float("nan"), float("inf"), -1, 0, 1, 2**31, 2**64 + 5,
            10**30, -1e308, 1e308]
    if o.kind in ("int", "float"):
        vals += [o.lo, o.hi, o.lo - 1, o.hi + 1]
        if o.kind == "float":
            vals += [o.lo - 1e-9, o.hi * (1 + 1e-9), (o.lo + o.hi) / 2]
    if o.kind == "choice":
        vals += list(o.choices) + [c.upper() for c in o.choices]
    return st.sampled_from(vals)


@FUZZ
@given(st.data())
def test_every_option_at_every_door(data):
    """One option at a time, any value: the table, the API, the CLI text, an engine spec
    and a server request all accept it alike or refuse it alike, typed."""
    o = data.draw(st.sampled_from([x for x in O.OPTIONS if x.scope != "serve" and x.name not in (
        "games", "workers", "out", "elo0", "elo1", "alpha", "beta", "weights")]))
    value = data.draw(_option_values(o))
    try:
        norm = o.check(value)
        ok = True
    except JaipurError as e:
        assert e.field == o.name
        ok, message = False, str(e)
    # the text of the value, as a command line would carry it
    text = (json.dumps(value) if isinstance(value, (bool, type(None))) else
            value if isinstance(value, str) else str(value))
    try:
        by_text = o.parse(text)
    except JaipurError as e:
        assert e.field == o.name
        by_text = e
    if ok and not isinstance(value, bool) and isinstance(value, (int, float)) \
            and not (o.kind == "int" and isinstance(value, float)):
        assert by_text == norm
    # a server request with the value
    if o.name == "report_every":
        return
    req = {"id": 1, "position": jp.GameState.new(seed=1, starter=0).to_text(),
           "iterations": 5, "algorithm": o.algorithms[0] if o.algorithms else "greedy"}
    if o.name != "algorithm" or value is not None:
        req[o.name] = value
    if o.name == "increment":
        req["time_left"] = 1.0      # (an increment belongs to a clock: sent with one)
    try:
        line = json.dumps(req, allow_nan=True)
    except (TypeError, ValueError):
        return
    out, log = io.StringIO(), io.StringIO()
    Server(io.StringIO(line + "\n"), out, log=log).run()
    answer = json.loads(out.getvalue().splitlines()[0])
    assert log.getvalue() == "", log.getvalue()
    if isinstance(value, float) and not math.isfinite(value):
        assert "error" in answer                   # NaN and Infinity are not JSON
        return
    if ok and o.name == "elo" and norm is not None and \
            not levels()[0].elo <= norm <= levels()[-1].elo:
        assert answer["error"]["field"] == "elo", answer   # (in the table, off the ladder)
    elif ok:     # (a value in the table's range may still be past the server's limits)
        assert "error" not in answer or answer["error"]["field"] != o.name \
            or answer["error"]["type"] == "LimitError", answer
    elif o.scope not in ("match", "review") and value is not None:
        assert answer["error"]["field"] == o.name, answer
        assert answer["error"]["message"] == message


@FUZZ
@given(st.text(alphabet="ismctxpagrdyeo:=,.0123456789-_ ", max_size=40))
def test_engine_specs_raise_only_typed_errors(text):
    spec = _only_typed(EngineSpec.parse, text)
    if spec is not None:
        assert EngineSpec.parse(str(spec)) == spec
        _only_typed(spec.make_engine)


@FUZZ
@given(st.one_of(json_values, st.text(max_size=60), st.binary(max_size=60)))
def test_server_answers_every_line(line):
    if not isinstance(line, (str, bytes)):
        line = json.dumps(line)
    if isinstance(line, str):
        line = line.replace("\n", " ")
    else:
        line = line.replace(b"\n", b" ")
    out, log = io.BytesIO(), io.StringIO()
    data = (line if isinstance(line, bytes) else line.encode("utf-8", "surrogatepass")) + b"\n"
    Server(io.BytesIO(data), out, log=log).run()
    assert log.getvalue() == ""
    for ln in out.getvalue().decode().splitlines():
        answer = json.loads(ln)
        assert "error" not in answer or answer["error"]["type"] != "InternalError", answer


@pytest.mark.parametrize("name", [o.name for o in O.OPTIONS if o.kind in ("int", "float")])
def test_range_ends_reach_the_engine(name):
    """The ends of every number's range are accepted by the engine itself (not only by
    the table): nothing in range fails below it."""
    o = O.option(name)
    if o.scope in ("match", "analyse", "review", "serve") or name in ("time", "iterations",
                                                                      "seed"):
        return
    ends = (o.lo if not o.lo_open else o.lo + 0.01, o.hi)
    if name == "elo":            # (its range is the ladder's: the table only bounds it)
        ends = (levels()[0].elo, levels()[-1].elo)
    for v in ends:
        v = int(v) if o.kind == "int" else float(v)
        jp.Engine.from_options(o.algorithms[0] if o.algorithms else "ismcts", **{name: v})


# ------------------------------------------------------------------ the doors issue 36 found
@FUZZ
@given(st.one_of(json_values, st.lists(st.one_of(st.integers(-300, 300), st.floats(),
                                                  st.booleans(), st.none()), max_size=9)))
def test_move_parse_reads_any_hand_or_raises_a_typed_error(hand):
    """``Move.parse(text, hand=)``: any hand is read or refused with an error naming it."""
    for text in ("sell all L", "swap DG for all camels", "take D"):
        _only_typed(jp.Move.parse, text, hand=hand)


_VIEW = jp.GameState.new(seed=7, starter=0).view(0)


@FUZZ
@given(json_values, json_values)
def test_any_hand_prior_is_searched_or_refused_typed(hands, weights):
    _only_typed(jp.Engine(seed=1).best_move, _VIEW, iterations=20, hand_prior=(hands, weights))


@FUZZ
@given(json_values)
def test_any_json_value_is_a_record_or_a_record_error(value):
    from jaipur_ai.matches.record import GameRecord
    _only_typed(GameRecord.from_dict, value)
    _only_typed(GameRecord.from_dict, {"format": "jaipur-record/1", "games": [value]})
    _only_typed(GameRecord.from_dict, {"format": "jaipur-record/1", "settings": value,
                                       "games": []})


# ------------------------------------------------------------------ files: records, weights, shards
# (issue 51, "Evidence": a fuzz pass of records, weights and shards, with 0 untyped errors)
# Records as bytes and text; weights files and training shards as .npz archives mutated
# byte by byte and member by member (crafted .npy headers: any shape, dtype and order,
# members twice, renamed, dropped, cut short).  Only the typed error of each file kind
# comes out: RecordError, InvalidWeightsError, InvalidDataError.
import functools
import io as _io
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from jaipur_ai.errors import InvalidDataError, InvalidWeightsError


@functools.lru_cache(maxsize=None)
def _base_files() -> dict:
    from jaipur_ai.doors.commands import SAMPLE_RECORD
    from jaipur_ai.learning.selfplay import play_shard
    from jaipur_ai.search.evaluation import DEFAULT_WEIGHTS
    buf = _io.BytesIO()
    np.savez_compressed(buf, round_offset=np.array(0), **play_shard("policy", 1, 0, 2))
    return {"record": SAMPLE_RECORD.read_bytes(), "weights": DEFAULT_WEIGHTS.read_bytes(),
            "shard": buf.getvalue()}


def _mutate_bytes(data: bytes, draw) -> bytes:
    b = bytearray(data)
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.integers(0, max(0, len(b) - 1)))
        op = draw(st.sampled_from(["set", "insert", "delete", "cut"]))
        if op == "set" and b:
            b[i] = draw(st.integers(0, 255))
        elif op == "insert":
            b[i:i] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete" and b:
            del b[i]
        elif op == "cut":
            del b[i:]
    return bytes(b)


_DESCRS = ["'<f8'", "'>f8'", "'<f4'", "'<i8'", "'|u1'", "'|i1'", "'<U40'", "'|S3'", "'|b1'",
           "'<c16'", "'|O'", "'<M8[s]'", "[('a', '<f8')]", "'<U1000000000'", "'<f2'", "'|V8'",
           "'x'", "3"]
_DIMS = st.sampled_from([0, 1, 2, 3, 29, 53, 64, 10**6, 10**12, 2**62, -1])


def _npy(draw) -> bytes:
    """A member: a crafted .npy header (any shape, dtype and order), then data of the
    size it claims (when that is small) or of any size."""
    descr = draw(st.sampled_from(_DESCRS))
    shape = tuple(draw(st.lists(_DIMS, max_size=3)))
    header = f"{{'descr': {descr}, 'fortran_order': {draw(st.booleans())}, 'shape': {shape}, }}"
    header = header.ljust(draw(st.sampled_from([len(header), 117, 200]))) + "\n"
    version = draw(st.sampled_from([1, 1, 2, 3, 9]))
    head = b"\x93NUMPY" + bytes([version, 0])
    head += len(header).to_bytes(2 if version == 1 else 4, "little") + header.encode("latin-1")
    try:
        nbytes = int(np.prod(shape, dtype=object)) * np.dtype(eval(descr)).itemsize
    except Exception:  # noqa: BLE001 - a descr numpy does not read: any data
        nbytes = -1
    if 0 <= nbytes <= 4096 and draw(st.booleans()):
        return head + draw(st.binary(min_size=nbytes, max_size=nbytes))
    return head + draw(st.binary(max_size=64))


def _mutate_npz(data: bytes, draw) -> bytes:
    """The archive rebuilt with one to three of its members changed (or its bytes hit)."""
    if draw(st.integers(0, 4)) == 0:
        return _mutate_bytes(data, draw)
    with zipfile.ZipFile(_io.BytesIO(data)) as z:
        members = [(i.filename, z.read(i)) for i in z.infolist()]
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, len(members) - 1))
        name, body = members[k]
        op = draw(st.sampled_from(["header", "header", "twice", "rename", "drop", "cut",
                                   "array", "bytes"]))
        if op == "header":
            members[k] = (name, _npy(draw))
        elif op == "twice":
            members.append((name, _npy(draw) if draw(st.booleans()) else body))
        elif op == "rename":
            members[k] = (draw(st.sampled_from(["extra.npy", name[:-4] or "x", "lin.npy",
                                                "result.npy", "round.npy", "a/b.npy"])), body)
        elif op == "drop" and len(members) > 1:
            del members[k]
        elif op == "cut":
            members[k] = (name, body[:draw(st.integers(0, len(body)))])
        elif op == "array":
            buf = _io.BytesIO()
            dtype = draw(st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.bool_,
                                          "U3", np.complex64]))
            shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
            np.save(buf, np.zeros(shape, dtype=dtype))
            members[k] = (name, buf.getvalue())
        elif op == "bytes":
            members[k] = (name, _mutate_bytes(body, draw))
    out = _io.BytesIO()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                    # (a duplicate name)
        with zipfile.ZipFile(out, "w", draw(st.sampled_from([zipfile.ZIP_STORED,
                                                            zipfile.ZIP_DEFLATED]))) as z:
            for name, body in members:
                z.writestr(name, body)
    return out.getvalue()


@FUZZ
@given(st.data())
def test_record_files_raise_only_record_errors(data):
    from jaipur_ai.matches.record import GameRecord, RecordError
    raw = data.draw(st.one_of(st.binary(max_size=200),
                              st.just(b"").map(lambda _: _mutate_bytes(_base_files()["record"],
                                                                       data.draw))))
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "r.json"
        path.write_bytes(raw)
        for read in (lambda: GameRecord.from_json(raw),
                     lambda: GameRecord.from_json(raw.decode("latin-1")),
                     lambda: GameRecord.load(str(path))):
            try:
                read()
            except RecordError:
                pass


@FUZZ
@given(st.data())
def test_weights_files_raise_only_invalid_weights_errors(data):
    from jaipur_ai.search.evaluation import load_evaluation, read_meta
    raw = _mutate_npz(_base_files()["weights"], data.draw)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "w.npz"
        path.write_bytes(raw)
        for read in (load_evaluation, read_meta):
            try:
                read(path)
            except InvalidWeightsError as e:
                assert e.field == str(path)


@FUZZ
@given(st.data())
def test_training_shards_raise_only_invalid_data_errors(data):
    from jaipur_ai.learning.train import load_shards
    with tempfile.TemporaryDirectory() as d:
        for k in range(data.draw(st.integers(1, 2))):
            raw = _base_files()["shard"]
            if k == 0 or data.draw(st.booleans()):
                raw = _mutate_npz(raw, data.draw)
            (Path(d) / f"shard-{k:05d}.npz").write_bytes(raw)
        try:
            load_shards(d)
        except InvalidDataError as e:
            assert e.field.startswith(d)

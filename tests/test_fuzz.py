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
           "iterations": 5, "algorithm": "greedy"}
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
    if ok:       # (a value in the table's range may still be past the server's limits)
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
    for v in (o.lo if not o.lo_open else o.lo + 0.01, o.hi):
        v = int(v) if o.kind == "int" else float(v)
        jp.Engine.from_options(**{name: v})


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

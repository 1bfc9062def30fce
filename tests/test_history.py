"""The round's moves given with a position (``history``): the belief of a stateless
search, the same at every door (Python ``Engine.analyse``, ``jaipur-ai analyse
--history``, the serve protocol's and the web API's ``history`` field, ``review``)."""
from __future__ import annotations

import io
import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.search import belief as bel
from jaipur_ai.errors import InvalidPositionError
from jaipur_ai.doors.serve import Server

from test_belief import _result, _two_worlds
from test_validation import cli, one_line_error


def played(seed: int, plies: int, engine: str = "random"):
    """A round played ``plies`` plies (random or greedy moves): the state reached and
    the (state, move) pairs before it."""
    rng = random.Random(seed)
    greedy = jp.Engine("greedy")
    s = jp.GameState.new(seed=seed, starter=1)
    pairs = []
    for k in range(plies):
        if s.is_round_over:
            break
        m = rng.choice(s.legal_moves()) if engine == "random" else \
            greedy.best_move(s, seed=k)
        pairs.append((s, m))
        s = s.apply(m)
    return s, pairs


def test_a_history_is_the_belief_of_an_engine_shown_the_moves():
    """analyse(history=...) searches exactly as an engine shown the same moves with
    see_move, and as a search given the belief's prior by hand; the engine itself is
    shown nothing by it."""
    s, pairs = played(5, 9, "greedy")
    assert s.to_move == 0 and not s.is_round_over
    v = s.view(0)
    eng = jp.Engine(seed=3)
    got = _result(eng.analyse(v, iterations=600, history=pairs))
    shown = jp.Engine(seed=3)
    for t, m in pairs:
        shown.see_move(t.view(0), m)
    assert _result(shown.analyse(v, iterations=600)) == got
    b = bel.HandBelief()
    for t, m in pairs:
        b.see(t.view(0), m)
    rows, w = b.prior(v)
    assert len(rows) > 1 and w.min() < 1                 # the moves weighed the hands
    assert _result(jp.Engine(seed=3).analyse(v, iterations=600, hand_prior=(rows, w))) == got
    assert got != _result(jp.Engine(seed=3).analyse(v, iterations=600))
    assert eng._beliefs == {}                             # nothing kept from the call
    assert jp.Engine(seed=3).best_move(v, iterations=600, history=pairs) == \
        shown.best_move(v, iterations=600)


def test_a_history_reads_only_what_the_searching_player_saw():
    """States or that player's views give the same search; so does another truth
    behind the same views (the opponent's real hand is never read)."""
    s, pairs = played(8, 8)
    v = s.view(s.to_move)
    p = s.to_move
    want = _result(jp.Engine(seed=1).analyse(v, iterations=500, history=pairs))
    views = [(t.view(p), str(m)) for t, m in pairs]
    assert _result(jp.Engine(seed=1).analyse(v, iterations=500, history=views)) == want
    assert _result(jp.Engine(seed=1).analyse(_two_worlds(s), iterations=500,
                                             history=views)) == want


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 25))
def test_every_prefix_of_a_real_round_is_a_valid_history(seed, plies):
    """A history taken from a round as played is accepted (and only reweighs hands
    that fit the view: the prior's rows are the view's), whatever its length."""
    s, pairs = played(seed, plies)
    if s.is_round_over:
        return
    v = s.view(s.to_move)
    got = bel.read_history(pairs, v)
    assert [m for _, m in got] == [m for _, m in pairs]
    prior = jp.Engine()._belief_prior(v, pairs)
    if prior is not None:
        rows, w = prior
        all_rows, _ = bel.unknown_hands(v)
        assert {tuple(r) for r in rows} <= {tuple(r) for r in all_rows}
        assert np.all(w >= 0) and w.max() == 1


def _bad_histories():
    s, pairs = played(5, 6)
    s0, m0 = pairs[0]
    other = jp.GameState.from_dict({**jp.GameState.new(seed=9).to_dict(), "round": 2})
    later = next(x for x in pairs if len(x[0].deck) < len(s0.deck))   # after a draw
    return s, [
        ("history", "a list", "take D"),
        ("history[0]", "pair", [s0]),
        ("history[0].position", "GameState or a View", [("S ...", m0)]),
        ("history[0].position", "player", [(s0.view(1 - s.to_move), m0)]),
        ("history[0].position", "round 2", [(other, other.legal_moves()[0])]),
        ("history[0].move", "not legal", [(s0, "sell 5D")]),
        ("history[0].move", "letter", [(s0, "take Q")]),
        ("history[1].position", "leads to", [later, pairs[0]]),
    ]


@pytest.mark.parametrize("k", range(8))
def test_a_bad_history_is_a_typed_error_naming_the_entry(k):
    s, cases = _bad_histories()
    field, words, history = cases[k]
    eng = jp.Engine()
    with pytest.raises(InvalidPositionError, match=words) as e:
        eng.analyse(s, iterations=50, history=history)
    assert e.value.field == field
    with pytest.raises(InvalidPositionError) as e2:         # checked with the belief off too
        jp.Engine(belief=False).best_move(s, iterations=50, history=history)
    assert e2.value.field == field
    assert eng._beliefs == {}


def test_an_opponents_move_no_hand_allows_is_refused():
    """Given as a view, the opponent's move is checked against every hand it may hold
    there: a sale of more cards of a good than it could hold is refused."""
    s, pairs = played(5, 9, "greedy")
    t = next(t for t, _m in pairs if t.to_move == 1)
    unseen, known = bel._sides(t.view(0))
    bad = next(jp.Move.parse(f"sell {n}{g}") for g, k in zip("DGSCPL", unseen + known)
               for n in range(max(2, k + 1), 8) if k < n)
    assert not any(w.is_legal(bad) for w in (t.view(0).sample(k) for k in range(50)))
    with pytest.raises(InvalidPositionError, match="not legal") as e:
        jp.Engine().analyse(s, iterations=50, history=[(t.view(0), bad)])
    assert e.value.field == "history[0].move"


def test_a_history_with_a_gap_or_a_wrong_end_is_refused():
    """The entries are the round's moves one after the other, up to the position."""
    s, pairs = played(5, 9, "greedy")
    v = s.view(s.to_move)
    assert bel.read_history(pairs, v)
    for k in range(1, len(pairs)):                      # any one move left out
        with pytest.raises(InvalidPositionError) as e:
            bel.read_history(pairs[:k] + pairs[k + 1:], v)
        assert e.value.field in (f"history[{k}].position", "history")
    with pytest.raises(InvalidPositionError) as e:        # the last move left out
        bel.read_history(pairs[:-1], v)
    assert e.value.field == "history"
    with pytest.raises(InvalidPositionError, match="more than"):
        bel.read_history(pairs * (bel.MAX_HISTORY // len(pairs) + 1), v)


def _serve(*requests) -> list[dict]:
    out = io.StringIO()
    srv = Server(io.StringIO(), out)
    for r in requests:
        srv.handle_line(json.dumps(r))
    srv.wait()
    return sorted((json.loads(x) for x in out.getvalue().splitlines()),
                  key=lambda d: str(d.get("id")))


def test_the_server_reads_a_history_as_the_api_does():
    s, pairs = played(5, 9, "greedy")
    p = s.to_move
    texts = [{"position": t.to_text(), "move": str(m)} for t, m in pairs]
    views = [{"position": t.view(p).to_dict(), "move": m.action_id} for t, m in pairs]
    a, b = _serve({"id": "a", "position": s.to_text(), "iterations": 600, "seed": 3,
                   "history": texts},
                  {"id": "b", "position": s.view(p).to_text(), "iterations": 600, "seed": 3,
                   "history": views})
    want = jp.Engine(seed=3).analyse(s, iterations=600, top=5, history=pairs)
    for d in (a, b):
        assert d["final"] and "error" not in d
        assert [(c["move"], c["visits"]) for c in d["candidates"]] == \
            [(str(c.move), c.visits) for c in want.candidates]


@pytest.mark.parametrize("history,field,kind", [
    ("take D", "history", "InvalidRequestError"),
    ([1], "history[0]", "InvalidRequestError"),
    ([{"move": "take D"}], "history[0].position", "InvalidRequestError"),
    ([{"position": "S nonsense", "move": "take D"}], "history[0].position",
     "InvalidPositionError"),
    ([{"position": "<s0>", "move": [1]}], "history[0].move", "InvalidRequestError"),
    ([{"position": "<s0>", "move": "sell 5D"}], "history[0].move", "InvalidPositionError"),
])
def test_the_server_names_the_bad_history_field(history, field, kind):
    s, pairs = played(5, 6)
    history = json.loads(json.dumps(history).replace('"<s0>"', json.dumps(pairs[0][0].to_text())))
    [d] = _serve({"id": 1, "position": s.to_text(), "iterations": 50, "history": history})
    assert d["error"]["field"] == field and d["error"]["type"] == kind, d
    assert "final" not in d                               # refused before any search


def test_the_cli_reads_a_history_file(tmp_path):
    s, pairs = played(5, 9, "greedy")
    p = s.to_move
    pos = tmp_path / "pos.txt"
    pos.write_text(s.view(p).to_text())
    hist = tmp_path / "h.json"
    hist.write_text(json.dumps([{"position": t.view(p).to_text(), "move": str(m)}
                                for t, m in pairs]))
    r = cli("analyse", str(pos), "--iterations", "600", "--seed", "3", "--json",
            "--history", str(hist))
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    want = jp.Engine(seed=3).analyse(s, iterations=600, history=pairs)
    assert [(c["move"], c["visits"]) for c in got["candidates"]] == \
        [(str(c.move), c.visits) for c in want.candidates]
    plain = jp.Engine(seed=3).analyse(s, iterations=600)
    assert [c.visits for c in plain.candidates] != [c["visits"] for c in got["candidates"]]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"position": pairs[0][0].to_text(), "move": "sell 5D"}]))
    line = one_line_error(cli("analyse", str(pos), "--iterations", "50", "--history", str(bad)))
    assert "error: history[0].move: sell 5D is not legal" in line        # as the API says
    line = one_line_error(cli("analyse", "-", "--history", "-", stdin=pos.read_text()))
    assert "--history" in line and "stdin" in line
    line = one_line_error(cli("analyse", str(pos), "--history", str(tmp_path / "none.json")))
    assert "--history" in line and "no such file" in line


def test_a_hint_in_a_game_reads_the_rounds_moves():
    """jaipur-ai web's (and play's) hints search the human's view with the round's
    moves so far, as the engine it plays against does."""
    from jaipur_ai.doors.play import hint_seed
    from jaipur_ai.matches.spec import EngineSpec
    from jaipur_ai.doors.webgame import WebGame
    hint = EngineSpec.parse("ismcts:iterations=300")
    g = WebGame(EngineSpec.parse("greedy"), hint, seed=5, you=0)
    rng = random.Random(1)
    for _ in range(4):
        if g.state.is_round_over:
            break
        g.play(str(rng.choice(g.state.legal_moves())))
    assert g.ply == len(g.round_moves) > 4 and g.state.to_move == g.you
    s = g.round_moves[0][0]
    for t, m in g.round_moves:                          # the round's moves, in order
        assert t == s
        s = s.apply(m)
    assert s == g.state
    got = g.hint()
    want = hint.make_engine().analyse(g.state.view(g.you), iterations=300, top=3,
                                      seed=hint_seed(g.seed, g.ply), history=g.round_moves)
    assert [(c["move"], c["visits"]) for c in got["candidates"]] == \
        [(str(c.move), c.visits) for c in want.candidates]


def test_the_web_api_reads_a_history_as_the_server_does():
    from jaipur_ai.doors.web import WebApp
    from test_web import events, post
    s, pairs = played(5, 9, "greedy")
    app = WebApp(level="greedy", hint="greedy")
    body = {"position": s.to_text(), "iterations": 600, "seed": 3,
            "history": [{"position": t.to_text(), "move": str(m)} for t, m in pairs]}
    final = events(post(app, "/api/analyse", body))[-1]
    want = jp.Engine(seed=3).analyse(s, iterations=600, top=5, history=pairs)
    assert [(c["move"], c["visits"]) for c in final["candidates"]] == \
        [(str(c.move), c.visits) for c in want.candidates]
    body["history"] = [{"position": pairs[0][0].to_text(), "move": "sell 5D"}]
    bad = post(app, "/api/analyse", body)                # refused before any search
    assert bad.status == 400
    assert json.loads(bad.body)["error"]["field"] == "history[0].move"

"""Exact endgames (jaipur_ai.search._endgame): the solver against a brute force."""
from __future__ import annotations

import io
import json
import queue
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import jaipur_ai as jp
from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.search._endgame import EndgameSolver

RESULT_NONE, RESULT_DRAW = -1, 2


def brute(core: CoreState, me: int, depth: int, leaf: float) -> float:
    """Plain expectimax, written apart from the solver: every move, every draw one card
    at a time over every position of the pile, every bonus token over every place in
    its stack; no pruning, no table.  A position left at the horizon is worth ``leaf``."""
    raw = core.raw()
    if raw["result"] != RESULT_NONE:
        return 0.5 if raw["result"] == RESULT_DRAW else float(raw["result"] == me)
    if depth == 0:
        return leaf
    values = [move_value(core, a, me, depth, leaf) for a in core.legal_actions()]
    return max(values) if raw["to_move"] == me else min(values)


def move_value(core: CoreState, action: int, me: int, depth: int, leaf: float) -> float:
    move = jp.Move.from_action_id(action)
    raw = core.raw()
    draws = {"take": 1, "camels": raw["market"][6]}.get(move.kind, 0)
    if draws and len(raw["deck"]) >= draws:
        return draw_value(raw, action, draws, me, depth, leaf)
    if move.kind == "sell" and move.count >= 3:
        k = min(move.count, 5) - 3
        pos, stack = raw["bonus_pos"][k], raw["bonus"][k]
        if pos < len(stack):
            total = 0.0
            for i in range(pos, len(stack)):      # each token left equally likely on top
                r = {**raw, "bonus": [list(s) for s in raw["bonus"]]}
                r["bonus"][k][pos], r["bonus"][k][i] = stack[i], stack[pos]
                total += after(CoreState.from_raw(r), action, me, depth, leaf)
            return total / (len(stack) - pos)
    return after(core, action, me, depth, leaf)


def draw_value(raw: dict, action: int, draws: int, me: int, depth: int, leaf: float) -> float:
    """The average over which card of the pile comes next, for each of the draws."""
    return _draw_rest(raw, action, draws, len(raw["deck"]) - 1, me, depth, leaf)


def _draw_rest(raw: dict, action: int, draws: int, top: int, me: int, depth: int,
               leaf: float) -> float:
    """deck[top] is drawn next: each card at or below it is equally likely to be it."""
    if draws == 0:
        return after(CoreState.from_raw(raw), action, me, depth, leaf)
    deck = raw["deck"]
    total = 0.0
    for i in range(top + 1):
        d = list(deck)
        d[i], d[top] = d[top], d[i]
        total += _draw_rest({**raw, "deck": d}, action, draws - 1, top - 1, me, depth, leaf)
    return total / (top + 1)


def after(core: CoreState, action: int, me: int, depth: int, leaf: float) -> float:
    c = core.copy()
    c.apply_action(action)
    return brute(c, me, depth - 1, leaf)


def endgame_view(seed: int, deck_at_most: int) -> jp.View:
    """The view of the player to move once a random round's pile is this small."""
    rng = np.random.default_rng(seed)
    while True:
        s = jp.GameState.new(seed=int(rng.integers(2**32)))
        while not s.is_round_over and len(s._core.raw()["deck"]) > deck_at_most:
            moves = s.legal_moves()
            s = s.apply(moves[int(rng.integers(len(moves)))])
        if not s.is_round_over:
            return s.view(s.to_move)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), shape=st.sampled_from([(2, 1), (2, 2), (6, 1)]))
def test_the_solver_equals_a_brute_force_to_1e_9(seed, shape):
    """Both bounds of every root move in every world: two plies with a pile of at most 2
    cards, one ply with at most 6 (refills of up to 5 cards)."""
    deck, depth = shape
    view = endgame_view(seed, deck)
    solver = EndgameSolver(view._core, seed=seed, samples=2)
    assert solver.run_depth(depth)
    lower, upper, _ = solver.bounds()
    me = view.observer
    for j, world in enumerate(solver.world_states()):
        for i, a in enumerate(solver.root_actions()):
            assert abs(lower[i, j] - move_value(world, a, me, depth, 0.0)) < 1e-9
            assert abs(upper[i, j] - move_value(world, a, me, depth, 1.0)) < 1e-9
    assert (lower <= upper + 1e-12).all()


ENDGAME = jp.Settings().replace(endgame=True)


def greedy_endgame(seed: int, deck_at_most: int = 3) -> jp.GameState:
    """A round played by the greedy engine until the pile is this small."""
    greedy = jp.Engine("greedy")
    k = 0
    while True:
        s = jp.GameState.new(seed=seed + 1000 * k)
        k += 1
        while not s.is_round_over and len(s._core.raw()["deck"]) > deck_at_most:
            s = s.apply(greedy.best_move(s.view(s.to_move), seed=seed))
        if not s.is_round_over:
            return s


def test_near_the_end_the_engine_plays_a_proven_move_and_says_so():
    decided = 0
    for seed in range(8):
        s = greedy_endgame(seed)
        e = jp.Engine(settings=ENDGAME)
        a = e.analyse(s, iterations=3000, seed=2)
        assert a.best in s.legal_moves()
        if a.algorithm == "endgame":
            decided += 1
            assert a.depth >= 1 and a.determinizations == ENDGAME.endgame_worlds
            # the same seed and limit: the same answer
            b = e.analyse(s, iterations=3000, seed=2)
            assert [(str(c.move), c.win_probability) for c in a] == \
                [(str(c.move), c.win_probability) for c in b]
        else:
            assert a.algorithm == "ismcts"
    assert decided >= 1          # (seed 4: won in every world, proven at 3 plies)


def test_a_round_lost_in_every_world_is_left_to_the_tree_search():
    s = greedy_endgame(3)        # proven lost at 2 plies in every world
    solver = EndgameSolver(s.view(s.to_move)._core, seed=1, samples=16)
    assert solver.run_depth(2)
    summary = solver.summary()
    assert summary["proven"] and summary["children"][0]["upper"] == 0.0
    assert jp.Engine(settings=ENDGAME).analyse(s, iterations=1000, seed=1).algorithm == "ismcts"


def test_far_from_the_end_or_switched_off_the_search_is_unchanged():
    s = greedy_endgame(4, deck_at_most=20)
    assert len(s._core.raw()["deck"]) > ENDGAME.endgame_deck
    on = jp.Engine(settings=ENDGAME).analyse(s, iterations=800, seed=5)
    off = jp.Engine().analyse(s, iterations=800, seed=5)
    assert on.algorithm == off.algorithm == "ismcts"
    assert [(str(c.move), c.visits) for c in on] == [(str(c.move), c.visits) for c in off]
    near = greedy_endgame(1)
    assert jp.Engine().analyse(near, iterations=800, seed=5).algorithm == "ismcts"
    assert not jp.Settings().endgame


def test_the_endgame_solve_is_fair():
    # the same view gives the same analysis whatever the real hidden cards
    for seed in range(6):
        s = greedy_endgame(seed)
        v = s.view(s.to_move)
        w = next((x for x in (v.sample(k) for k in range(50)) if x != s), None)
        if w is None:
            continue
        e = jp.Engine(settings=ENDGAME)
        a, b = e.analyse(s, iterations=2000, seed=3), e.analyse(w, iterations=2000, seed=3)
        assert a.algorithm == b.algorithm
        assert [(str(c.move), c.visits, c.win_probability) for c in a] == \
            [(str(c.move), c.visits, c.win_probability) for c in b]


def test_the_switches_reach_every_door():
    from jaipur_ai.matches.spec import EngineSpec
    e = EngineSpec.parse("ismcts:endgame=true,endgame_deck=2,endgame_worlds=8").make_engine()
    assert (e.settings.endgame, e.settings.endgame_deck, e.settings.endgame_worlds) == \
        (True, 2, 8)
    assert e.options()["endgame"] is True
    with pytest.raises(jp.InvalidOptionError, match="endgame_worlds"):
        jp.Settings().replace(endgame_worlds=0)


class _Watched(EndgameSolver):
    """The solver, starting at 8 plies (a depth that takes minutes from a new round's
    position) and saying when it begins."""

    began = None    # a threading.Event, set by the test

    def run_depth(self, depth, node_limit=None, seconds=None, deadline=None):
        _Watched.began.set()
        return super().run_depth(max(depth, 8), node_limit=node_limit, seconds=seconds,
                                 deadline=deadline)


@pytest.mark.parametrize("how", ["stop_event", "engine.stop", "terminate"])
def test_a_stop_ends_the_endgame_solve_mid_depth(monkeypatch, how):
    # a whole round's solve (40 cards in the pile, 10^9 positions) runs for minutes; a
    # stop while it is inside a depth ends it at once (the solver looks at the stop every
    # 1,024 positions): the engine returns well within the 20 s waited for, where it
    # would otherwise solve on for minutes
    from jaipur_ai.doors.serve import Server
    from jaipur_ai.search import endgame
    began = _Watched.began = threading.Event()
    monkeypatch.setattr(endgame, "EndgameSolver", _Watched)
    opts = dict(endgame=True, endgame_deck=40, endgame_nodes=10 ** 9)
    engine = jp.Engine.from_options("ismcts", **opts)
    stop = threading.Event()
    out: "queue.Queue[object]" = queue.Queue()

    class Out(io.TextIOBase):
        def writable(self):
            return True

        def write(self, s):
            if '"final"' in s or '"error"' in s:
                out.put(s)
            return len(s)

    server = Server(io.StringIO(), Out())
    if how == "terminate":
        server.handle_line(json.dumps({"id": "x", "position": "sample",
                                       "iterations": 10_000_000, **opts}))
    else:
        def run():
            out.put(engine.analyse(jp.GameState.new(seed=1), iterations=10_000_000,
                                   seed=1, stop_event=stop))
        threading.Thread(target=run, daemon=True).start()
    try:
        assert began.wait(60), "the solve never began"
        time.sleep(0.3)                       # inside the deep solve
        {"stop_event": stop.set, "engine.stop": engine.stop,
         "terminate": lambda: server.handle_line('{"id": "x", "action": "terminate"}')}[how]()
        answer = out.get(timeout=20)          # raises queue.Empty if still solving
    finally:
        engine.stop()
        server.terminate_all()
    if how == "terminate":
        msg = json.loads(answer)
        assert msg["terminated"] is True and msg["final"] is True
    else:
        assert answer.stopped

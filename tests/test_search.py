"""The compiled search (jaipur_ai.search._search): legality, determinism, limits, the node
pool, continuation, stopping, and fairness.  Iteration counts are kept small."""
from __future__ import annotations

import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaipur_ai import GameState
from jaipur_ai.rules._bridge import CoreState
from jaipur_ai.rules._core import N_ACTIONS_PY
from jaipur_ai.search import _search as S

from search_positions import POSITIONS, STOP_THE_THREAT_DEEP, mid_position, stop_the_threat_deep
from strategies import running_states

FAST = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def mover_view(s: GameState):
    return s.view(s.to_move)._core


def stats(summary: dict) -> list:
    """The deterministic part of a summary (no timings)."""
    return [(c["action"], c["visits"], c["value"], c["win"], c["margin"], c["pv"])
            for c in summary["children"]]


# ---------------------------------------------------------------------------
# Legality

@FAST
@given(running_states(max_plies=120), st.integers(0, 2**32 - 1))
def test_ismcts_plays_legal_moves(state, seed):
    legal = set(state.legal_action_ids())
    for playout in ("informed", "random"):
        se = S.IsmctsSearcher(mover_view(state), seed=seed, playout=playout)
        assert se.run(iterations=40) == 40
        sm = se.summary()
        assert sm["children"], "a running round always has a move"
        assert {c["action"] for c in sm["children"]} <= legal
        assert se.best_action() in legal


ENGINE_TREE = dict(tree_depth=0, cutoff=10, chance_nodes=True, puct=1.5)


def _drawn(code: int) -> int:
    """Cards in an outcome node's code (3 bits of count per card type)."""
    return sum((code >> (3 * t)) & 7 for t in range(7))


@FAST
@given(running_states(max_plies=120), st.integers(0, 2**32 - 1))
def test_engine_tree_is_legal_and_well_formed(state, seed):
    """The Engine's tree (PUCT below the root, chance-outcome nodes): legal root moves,
    and every outcome node hangs below a move that drew that many cards."""
    se = S.IsmctsSearcher(mover_view(state), seed=seed, **ENGINE_TREE)
    assert se.run(iterations=300) == 300
    _check_tree(se, state)


def _outcomes_by_move(se) -> dict:
    """Outcome children (the cards drawn) of each move node, by the move node."""
    arr = se.pool.arrays
    out: dict = {}
    for i in range(1, se.pool.size):
        if arr["player"][i] == S.OUTCOME_PY:
            out[arr["parent"][i]] = out.get(arr["parent"][i], 0) + 1
    return out


@FAST
@given(running_states(max_plies=120), st.integers(0, 2**32 - 1))
def test_sparse_draws_keep_the_tree_well_formed_and_fewer_draws_in_it(state, seed):
    """chance_width: a draw past the outcome children a move's visits allow is made the
    draw of one of them (the world's draw pile rearranged), so the tree is as well
    formed as ever, with no more outcome nodes than the same search without it, and
    every move node's outcome children within the bound unless the pile could not give
    a child's cards (then a new child is made, as without the setting)."""
    plain = S.IsmctsSearcher(mover_view(state), seed=seed, **ENGINE_TREE)
    sparse = S.IsmctsSearcher(mover_view(state), seed=seed, chance_width=0.25, **ENGINE_TREE)
    assert plain.run(iterations=600) == sparse.run(iterations=600) == 600
    _check_tree(sparse, state)
    assert sum(_outcomes_by_move(sparse).values()) <= sum(_outcomes_by_move(plain).values())
    visits = sparse.pool.arrays["visits"]
    over = [m for m, n in _outcomes_by_move(sparse).items()
            if n > 1 + int(0.25 * visits[m] ** 0.5)]
    assert len(over) <= max(1, len(_outcomes_by_move(sparse)) // 4)


def test_sparse_draws_are_deterministic_and_fair():
    """Same seed, same statistics; and the opponent's real hidden cards do not matter
    (the forced draws come from the sampled world's pile, never from the true one)."""
    s = mid_position(7, 15)
    opts = dict(ENGINE_TREE, chance_width=0.25)
    a = S.IsmctsSearcher(mover_view(s), seed=5, **opts)
    b = S.IsmctsSearcher(mover_view(s), seed=5, **opts)
    c = S.IsmctsSearcher(mover_view(_other_world(s, 1)), seed=5, **opts)
    for se in (a, b, c):
        se.run(iterations=2000)
    assert stats(a.summary()) == stats(b.summary()) == stats(c.summary())
    plain = S.IsmctsSearcher(mover_view(s), seed=5, **ENGINE_TREE)
    plain.run(iterations=2000)
    assert stats(a.summary()) != stats(plain.summary())
    with pytest.raises(ValueError, match="chance_width"):
        S.IsmctsSearcher(mover_view(s), chance_width=-1.0)


def _check_tree(se, state) -> None:
    legal = set(state.legal_action_ids())
    assert {c["action"] for c in se.summary()["children"]} <= legal
    assert se.best_action() in legal
    arr = se.pool.arrays
    camels = state._core.raw()["market"][6]
    for i in range(1, se.pool.size):
        parent = arr["parent"][i]
        if arr["player"][i] == S.OUTCOME_PY:
            assert parent != 0 and arr["player"][parent] != S.OUTCOME_PY
            a = arr["action"][parent]
            assert a <= 6, "only takes and camel takes draw cards"
            if a < 6:
                assert _drawn(arr["action"][i]) == 1
            elif arr["parent"][parent] == 0:
                assert _drawn(arr["action"][i]) == camels
        else:
            assert 0 <= arr["action"][i] < N_ACTIONS_PY
        assert arr["avail"][i] >= arr["visits"][i]


@FAST
@given(running_states(max_plies=120), st.integers(0, 2**32 - 1))
def test_other_algorithms_play_legal_moves(state, seed):
    legal = set(state.legal_action_ids())
    x = S.ExpectimaxSearcher(mover_view(state), seed=seed, samples=2)
    x.run_depth(1)
    x.run_depth(2, node_limit=300)
    assert {c["action"] for c in x.summary()["children"]} == legal
    scores, _ = S.greedy_scores(mover_view(state), seed)
    assert {a for a, _, _ in scores} == legal
    a, n = S.random_action(mover_view(state), seed)
    assert a in legal and n == len(legal)
    cheat = S.IsmctsSearcher(state._core, seed=seed)
    cheat.run(iterations=20)
    assert cheat.best_action() in legal


@FAST
@given(running_states(max_plies=150), st.integers(0, 2**32 - 1))
def test_informed_policy_only_plays_legal_moves(state, seed):
    # every policy move of 3 playouts is checked against the rules core
    assert S.check_policy(state._core, seed, rounds=3) >= 0


def test_policy_legal_over_many_playouts():
    for seed in range(5):
        s = CoreState.new(seed, seed % 2)
        assert S.check_policy(s, seed, rounds=40) > 0


# ---------------------------------------------------------------------------
# Determinism and exact limits

def test_same_seed_same_statistics():
    v = mover_view(mid_position())
    a = S.IsmctsSearcher(v, seed=11)
    b = S.IsmctsSearcher(v, seed=11)
    a.run(iterations=1500)
    b.run(iterations=1500)
    assert stats(a.summary()) == stats(b.summary())
    assert a.summary()["nodes"] == b.summary()["nodes"]
    c = S.IsmctsSearcher(v, seed=12)
    c.run(iterations=1500)
    assert stats(c.summary()) != stats(a.summary())


def test_exact_iteration_counts():
    v = mover_view(mid_position())
    se = S.IsmctsSearcher(v, seed=1)
    assert se.run(iterations=777) == 777
    sm = se.summary()
    assert sm["iterations"] == 777
    assert se.determinizations == 777
    # every iteration passes through exactly one root child
    assert sum(c["visits"] for c in sm["children"]) == 777
    assert se.run(iterations=0) == 0


def test_a_deadline_already_passed_stops_at_the_first_clock_reading():
    """An absolute deadline (the engine's threads get one, so that a thread's start-up
    delay is not added to the budget): one in the past (0.0: the monotonic clock read
    that long ago) stops the ISMCTS run at the first clock reading (after 8 iterations)
    and aborts an expectimax depth; the earlier of ``seconds`` and ``deadline`` applies,
    and one that never comes leaves the iteration limit to stop the run."""
    v = mover_view(mid_position())
    se = S.IsmctsSearcher(v, seed=1)
    assert se.run(deadline=0.0) == 8
    assert se.run(seconds=float("inf"), deadline=0.0) == 8
    assert se.run(iterations=50, deadline=float("inf")) == 50
    with pytest.raises(ValueError, match="deadline"):
        se.run(deadline=float("nan"))
    x = S.ExpectimaxSearcher(v, seed=1, samples=2)
    assert x.run_depth(1) is True
    assert x.run_depth(4, deadline=0.0) is False
    assert x.depth_done == 1


def test_run_is_continuable():
    v = mover_view(mid_position(5, 30))
    once = S.IsmctsSearcher(v, seed=4)
    once.run(iterations=1200)
    parts = S.IsmctsSearcher(v, seed=4)
    for n in (1, 299, 500, 400):
        parts.run(iterations=n)
    assert stats(parts.summary()) == stats(once.summary())
    assert parts.iterations == 1200


def test_time_limit_returns_a_legal_move():
    s = mid_position()
    se = S.IsmctsSearcher(mover_view(s), seed=2)
    se.run(seconds=0.05)
    assert se.iterations > 0
    assert se.best_action() in s.legal_action_ids()
    x = S.ExpectimaxSearcher(mover_view(s), seed=2)
    x.run_depth(1, seconds=0.05)
    assert x.summary()["children"][0]["action"] in s.legal_action_ids()


def test_iterations_and_time_together():
    se = S.IsmctsSearcher(mover_view(mid_position()), seed=2)
    assert se.run(iterations=50, seconds=float("inf")) == 50


def test_bad_limits():
    se = S.IsmctsSearcher(mover_view(mid_position()), seed=2)
    with pytest.raises(ValueError):
        se.run()
    with pytest.raises(ValueError):
        se.run(iterations=-1)


# ---------------------------------------------------------------------------
# Node pool

def test_pool_grows_and_links():
    v = mover_view(mid_position())
    se = S.IsmctsSearcher(v, seed=3, initial_nodes=16, max_nodes=100000)
    se.run(iterations=2000)
    pool = se.pool
    assert pool.capacity >= pool.size == se.summary()["nodes"] > 16
    arr = pool.arrays
    # each node but the root hangs below its parent, and visits add up
    for i in range(1, pool.size):
        p = arr["parent"][i]
        assert 0 <= p < i
        kids = []
        c = arr["first_child"][p]
        while c != S.NO_NODE_PY:
            kids.append(c)
            c = arr["next_sibling"][c]
        assert i in kids
    assert arr["visits"][0] == 2000
    assert (arr["avail"][1:] >= arr["visits"][1:]).all()


def test_pool_full_stops_growing_cleanly():
    s = mid_position()
    se = S.IsmctsSearcher(mover_view(s), seed=3, initial_nodes=8, max_nodes=50)
    assert se.run(iterations=3000) == 3000
    assert se.pool.size == 50
    assert se.best_action() in s.legal_action_ids()


# ---------------------------------------------------------------------------
# Stop flag (another thread) and searcher state

def test_stop_flag_from_another_thread():
    s = mid_position()
    se = S.IsmctsSearcher(mover_view(s), seed=1)
    t = threading.Thread(target=lambda: se.run(seconds=60.0))
    t.start()
    while se.iterations == 0 and t.is_alive():
        t.join(0.01)
        se.stop()
    t.join(30)
    assert not t.is_alive(), "the search did not return after stop()"
    assert se.stopped
    assert se.best_action() in s.legal_action_ids()


def test_one_run_at_a_time():
    se = S.IsmctsSearcher(mover_view(mid_position()), seed=1)
    t = threading.Thread(target=lambda: se.run(seconds=30.0))
    t.start()
    try:
        while se.iterations == 0 and t.is_alive():
            with pytest.raises(RuntimeError):
                se.run(iterations=1)
            break
    finally:
        se.stop()
        t.join(30)


def test_expectimax_stop_and_node_limit():
    s = mid_position()
    x = S.ExpectimaxSearcher(mover_view(s), seed=1, samples=4)
    assert x.run_depth(1)
    assert x.depth_done == 1
    before = x.summary()["children"]
    assert not x.run_depth(3, node_limit=10)
    assert x.depth_done == 1                      # the incomplete depth is discarded
    assert x.summary()["children"] == before


def test_expectimax_deterministic():
    v = mover_view(mid_position())
    a = S.ExpectimaxSearcher(v, seed=9, samples=3)
    b = S.ExpectimaxSearcher(v, seed=9, samples=3)
    for d in (1, 2):
        assert a.run_depth(d) and b.run_depth(d)
    assert a.summary()["children"] == b.summary()["children"]
    assert a.nodes == b.nodes


# ---------------------------------------------------------------------------
# Positions with a clear best move (every algorithm)

@pytest.mark.parametrize("name,make,expected", POSITIONS)
def test_searchers_find_the_clear_move(name, make, expected):
    s = make()
    want = next(m.action_id for m in s.legal_moves() if str(m) == expected)
    for seed in (1, 2):
        se = S.IsmctsSearcher(mover_view(s), seed=seed)
        se.run(iterations=300)
        assert se.best_action() == want, name
        x = S.ExpectimaxSearcher(mover_view(s), seed=seed, samples=4)
        assert x.run_depth(1) and x.run_depth(2)
        assert x.summary()["children"][0]["action"] == want, name
        scores, _ = S.greedy_scores(mover_view(s), seed)
        assert scores[0][0] == want, name


def test_deeper_threat_is_seen_by_search():
    s = stop_the_threat_deep()
    want = next(m.action_id for m in s.legal_moves() if str(m) == STOP_THE_THREAT_DEEP)
    se = S.IsmctsSearcher(mover_view(s), seed=1)
    se.run(iterations=1000)
    assert se.best_action() == want
    x = S.ExpectimaxSearcher(mover_view(s), seed=1, samples=4)
    for d in (1, 2, 3):
        assert x.run_depth(d)
    assert x.summary()["children"][0]["action"] == want


def test_decisive_moves_are_classified():
    s = POSITIONS[1][1]()          # winning_camels: camels wins, sales lose
    se = S.IsmctsSearcher(mover_view(s), seed=1)
    kinds = {S_a: c for S_a, c in ((c["action"], c["decisive"]) for c in
                                   se.summary()["children"])}
    by_text = {str(m): m.action_id for m in s.legal_moves()}
    assert se.decisive_win == by_text["camels"]
    assert kinds[by_text["camels"]] == "win"
    assert kinds[by_text["sell 1C"]] == "loss"
    assert kinds[by_text["sell 1L"]] == "loss"
    se.run(iterations=200)
    ranked = [c["action"] for c in se.summary()["children"]]
    assert ranked[0] == by_text["camels"]
    assert set(ranked[-2:]) == {by_text["sell 1C"], by_text["sell 1L"]}


# ---------------------------------------------------------------------------
# Fairness: the search sees only the observer's information set

def _other_world(s: GameState, seed: int) -> GameState:
    """A full state with the same view for the mover but other hidden cards."""
    v = s.view(s.to_move)
    for k in range(seed, seed + 200):
        w = v.sample(k)
        if w != s:
            assert w.view(s.to_move) == v
            return w
    pytest.skip("the hidden cards are fully determined here")


@pytest.mark.parametrize("plies", [0, 15, 30])
def test_hidden_cards_do_not_matter(plies):
    s = mid_position(7, plies)
    w = _other_world(s, 1)
    a = S.IsmctsSearcher(mover_view(s), seed=5)
    b = S.IsmctsSearcher(mover_view(w), seed=5)
    a.run(iterations=500)
    b.run(iterations=500)
    assert stats(a.summary()) == stats(b.summary())
    xa = S.ExpectimaxSearcher(mover_view(s), seed=5, samples=3)
    xb = S.ExpectimaxSearcher(mover_view(w), seed=5, samples=3)
    assert xa.run_depth(2) and xb.run_depth(2)
    assert xa.summary()["children"] == xb.summary()["children"]
    assert S.greedy_scores(mover_view(s), 5) == S.greedy_scores(mover_view(w), 5)


@FAST
@given(running_states(max_plies=150), st.integers(0, 1), st.integers(0, 2**32 - 1))
def test_the_opponents_world_is_redealt_from_what_it_knows(state, observer, seed):
    """opponent_view: the observer's cards the opponent never saw taken are shuffled
    with the draw pile's goods; everything the opponent knows stays as it is."""
    a = state._core.raw()
    b = S.opponent_world_of(state._core, observer, seed).raw()
    assert b == S.opponent_world_of(state._core, observer, seed).raw()     # seeded
    for k in a:
        if k not in ("hand", "deck"):
            assert a[k] == b[k], k
    o = 1 - observer
    assert a["hand"][o] == b["hand"][o]
    ha, hb, known = a["hand"][observer], b["hand"][observer], a["known"][observer]
    assert sum(ha) == sum(hb) and all(x >= k for x, k in zip(hb, known))
    assert len(a["deck"]) == len(b["deck"])
    camel = 6
    assert [c == camel for c in a["deck"]] == [c == camel for c in b["deck"]]

    def unseen(hand, deck):     # the goods the opponent cannot place, by type
        return sorted([g for g in range(6) for _ in range(hand[g] - known[g])]
                      + [c for c in deck if c != camel])
    assert unseen(ha, a["deck"]) == unseen(hb, b["deck"])


def test_the_opponents_world_draws_every_unseen_good():
    """Over seeds, each unseen good can land in the observer's re-dealt hand."""
    s = mid_position(7, 4)
    raw = s._core.raw()
    p = s.to_move
    unknown = [g for g in range(6) if raw["hand"][p][g] > raw["known"][p][g]]
    assert unknown
    pool = set(unknown) | {c for c in raw["deck"] if c != 6}
    seen = set()
    for seed in range(200):
        h = S.opponent_world_of(s._core, p, seed).raw()["hand"][p]
        seen |= {g for g in range(6) if h[g] > raw["known"][p][g]}
    assert seen == pool


def test_view_must_be_observers_turn():
    s = mid_position()
    with pytest.raises(ValueError):
        S.IsmctsSearcher(s.view(1 - s.to_move)._core, seed=1)


def test_threads_seed_derivation_is_stable():
    assert S.derive_seed(1, 0) != S.derive_seed(1, 1)
    assert S.derive_seed(1, 0) == S.derive_seed(1, 0)


def test_the_chance_weighting_script_reads_the_draws_of_the_root_moves():
    """bench/experiments/chance_weighting.py: each root move that branches on its draws
    has as many visits as its outcomes together (every iteration through a take goes on
    to the cards drawn), its value is the outcomes' frequency-weighted mean, and the
    outcomes' variance is not negative."""
    from bench_scripts import bench_module
    from jaipur_ai.search.engine import Engine
    mod = bench_module("experiments/chance_weighting.py", "chance_weighting")
    state = mod.positions(1)[0]
    se = S.IsmctsSearcher(state.view(state.to_move)._core, seed=3, judge=False,
                          **Engine("ismcts").searcher_options())
    se.run(iterations=3000)
    arr = se.pool.arrays
    got = mod.root_draws(arr, state.to_move)
    assert got
    for act, (n, q, between) in got.items():
        c = [i for i in range(len(arr["parent"])) if arr["parent"][i] == 0
             and arr["action"][i] == act][0]
        kids = (arr["parent"] == c) & (arr["player"] == S.OUTCOME_PY)
        assert arr["visits"][kids].sum() == n
        q_k = arr["value_sum"][kids] / arr["visits"][kids]
        q_k = 1.0 - q_k if state.to_move == 0 else q_k
        assert q == pytest.approx(float((arr["visits"][kids] / n) @ q_k))
        assert between >= 0.0

"""The opponent's statistics kept apart by its hand (opponent_stats="hand"): the table
behind them, what the search writes there, and that it stays fair and deterministic."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai import Move
from jaipur_ai.search import _search as S
from jaipur_ai.search._infostats import InfoStats

from search_positions import fair_analysis, mid_position

HAND_BITS = 18          # 3 bits per good (_infostats.INFO_BITS, node_key)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2**40), st.floats(0, 1)), max_size=300),
       st.integers(1, 400))
def test_the_table_adds_up_what_it_is_given(updates, max_size):
    t = InfoStats(16, max_size)
    want: dict = {}
    for key, r in updates:
        if key in want or len(want) < max_size:
            n, v = want.get(key, (0, 0.0))
            want[key] = (n + 1, v + r)
        t.update(key, r)
    got = t.entries()
    assert set(got) == set(want) and t.size == len(want) <= max_size
    for k, (n, v) in want.items():
        assert got[k][0] == n and got[k][1] == pytest.approx(v)
        assert t.lookup(k) == got[k]
    # at most half full (linear probing stays short), and a power of two
    assert t.capacity >= 2 * t.size and t.capacity & (t.capacity - 1) == 0
    assert t.lookup(2**41) is None


def _searcher(s, seed=5, **kw):
    e = jp.Engine.from_options(opponent_stats="hand")
    opts = e.searcher_options()
    opts.update(kw)
    return S.IsmctsSearcher(s.view(s.to_move)._core, seed=seed, **opts)


@pytest.mark.parametrize("values", ["world", "redealt"])
@pytest.mark.parametrize("seed,plies", [(3, 6), (7, 15), (11, 25)])
def test_each_opponent_move_node_counts_its_visits_by_hand(seed, plies, values):
    """Every iteration that chose an opponent's move below the root adds one visit to
    (that node, the hand it chose it with), and the reward its node gets, so a node's
    visits and values split exactly into its entries; the searcher's own nodes have
    none."""
    s = mid_position(seed, plies)
    se = _searcher(s, opp_values=values)
    se.run(iterations=3000)
    pool = se.pool.arrays
    by_node: dict = {}
    for key, (n, v) in se.opp_stats.entries().items():
        node = key >> HAND_BITS
        assert 0 <= v <= n
        m, w = by_node.get(node, (0, 0.0))
        by_node[node] = (m + n, w + v)
    assert by_node, "the search made no opponent choice below the root"
    opponent = 1 - s.to_move
    for node, (n, v) in by_node.items():
        assert pool["player"][node] == opponent
        assert pool["parent"][node] != 0          # never the root's children
        assert n == pool["visits"][node]
        assert v == pytest.approx(pool["value_sum"][node], abs=1e-9)
    hands = {key & ((1 << HAND_BITS) - 1) for key in se.opp_stats.entries()}
    assert len(hands) > 1           # the opponent's hand is hidden: several are tried


def test_pooled_statistics_keep_no_table():
    s = mid_position(3, 6)
    e = jp.Engine.from_options(opponent_stats="pooled")
    assert e.settings.opponent_stats == "pooled" and e.options()["opponent_stats"] == "pooled"
    se = S.IsmctsSearcher(s.view(s.to_move)._core, seed=5, **e.searcher_options())
    assert se.opp_stats is None


def test_the_default_and_the_hand_set_baseline():
    # the default keeps the hand's statistics and looks past the candidates; the
    # hand-set baseline is the search it always was, whatever the evaluation
    default, hand_set = jp.Engine(), jp.Engine(evaluation="heuristic", settings="handset")
    assert (default.settings.opponent_stats, default.settings.all_moves_after) == ("hand", 1000)
    assert (hand_set.settings.opponent_stats, hand_set.settings.all_moves_after) == ("pooled", 0)
    assert default.searcher_options()["opp_stats"] == "hand"
    assert hand_set.searcher_options()["all_moves_after"] == 0
    assert jp.Engine(evaluation="heuristic").settings == default.settings
    # given explicitly, either evaluation takes them as given
    e = jp.Engine.from_options(evaluation="heuristic", opponent_stats="hand", all_moves_after=5)
    assert (e.settings.opponent_stats, e.settings.all_moves_after) == ("hand", 5)
    e = jp.Engine.from_options(settings="handset", all_moves_after=7)
    assert (e.settings.opponent_stats, e.settings.all_moves_after) == ("pooled", 7)


def test_the_hand_statistics_change_the_search():
    s = mid_position(3, 6)
    a, b = (jp.Engine.from_options(opponent_stats=v).analyse(s, iterations=3000, seed=1)
            for v in ("pooled", "hand"))
    assert [(str(c.move), c.visits) for c in a] != [(str(c.move), c.visits) for c in b]
    assert b.best in s.legal_moves()


def test_a_bad_value_is_a_typed_error():
    with pytest.raises(jp.InvalidOptionError, match="opponent_stats"):
        jp.Engine.from_options(opponent_stats="peek")
    with pytest.raises(ValueError, match="opp_stats"):
        S.IsmctsSearcher(mid_position(3, 6).view(0)._core, opp_stats="peek")


# ---------------------------------------------------------------------------
# all_moves_after: much visited nodes look past the policy's candidates

def _known_hand_position():
    """A running position where the mover may sell and has seen every card of the
    opponent's hand: after a sale (no card drawn) the opponent's node below it is the
    same position in every sampled world."""
    for seed in range(1, 80):
        for plies in range(8, 40, 3):
            s = mid_position(seed, plies)
            o = s.players[1 - s.to_move]
            if (not s.is_round_over and len(o.hand) >= 3 and sorted(o.known) == sorted(o.hand)
                    and any(str(m).startswith("sell") for m in s.legal_moves())):
                return s
    pytest.skip("no such position among the seeds tried")


@pytest.mark.parametrize("after", [0, 1, 200])
def test_much_visited_nodes_consider_every_legal_move(after):
    s = _known_hand_position()
    opts = jp.Engine.from_options(all_moves_after=after).searcher_options()
    se = S.IsmctsSearcher(s.view(s.to_move)._core, seed=5, **opts)
    se.run(iterations=4000)
    pool = se.pool.arrays
    wider = 0
    for c in range(len(pool["parent"])):
        if pool["parent"][c] != 0 or not Move.from_action_id(int(pool["action"][c])).kind == "sell":
            continue
        t = s.apply(int(pool["action"][c]))
        if t.is_round_over:
            continue
        kids = {int(pool["action"][k]) for k in range(len(pool["parent"]))
                if pool["parent"][k] == c}
        cands = set(S.candidate_actions(t._core))
        assert kids <= set(t.legal_action_ids())
        if after == 0 or pool["visits"][c] < after:
            assert kids <= cands          # never widened: the policy's candidates only
        else:
            wider += len(kids - cands)
    if after == 1:
        assert wider > 0


# ---------------------------------------------------------------------------
# opponent_values: what the opponent's statistics are backed up from

def test_the_opponent_values_come_from_the_redealt_world():
    assert jp.Engine().settings.opponent_values == "world"
    assert jp.Engine().searcher_options()["opp_values"] == "world"
    assert jp.Engine.from_options(opponent_values="redealt").options()["opponent_values"] \
        == "redealt"

    def runs(s):
        return [[(str(c.move), c.visits, c.win_probability) for c in
                 jp.Engine.from_options(opponent_values=v).analyse(s, iterations=3000, seed=1)]
                for v in ("world", "redealt")]
    world, redealt = runs(mid_position(3, 6))      # the mover holds cards never seen taken
    assert world != redealt
    # the opponent has seen every card of the mover's hand: the re-dealt world is the
    # sampled one, so the two searches agree to the last visit
    s = mid_position(3, 20)
    me = s.players[s.to_move]
    assert sorted(me.known) == sorted(me.hand)
    world, redealt = runs(s)
    assert world == redealt


def test_redealt_opponent_values_keep_the_searchers_own_values():
    # the re-dealt score goes to the opponent's statistics only: the searcher's own
    # nodes (the root's children) still back up the sampled world's win chance
    s = mid_position(7, 15)
    for v in ("world", "redealt"):
        se = _searcher(s, opp_values=v)
        se.run(iterations=2000)
        pool = se.pool.arrays
        mine = pool["parent"] == 0
        assert mine.any()
        assert pool["value_sum"][mine] == pytest.approx(pool["win_sum"][mine], abs=1e-9)


@pytest.mark.parametrize("seed,plies", [(3, 6), (7, 15)])
def test_redealt_opponent_values_are_fair(seed, plies):
    # the mover holds cards the opponent never saw taken, so the re-deal runs; the same
    # view gives the same analysis whatever the real hidden cards
    s = mid_position(seed, plies)
    me = s.players[s.to_move]
    assert sorted(me.known) != sorted(me.hand)
    v = s.view(s.to_move)
    w = next(x for x in (v.sample(k) for k in range(50)) if x != s)
    e = jp.Engine.from_options(opponent_values="redealt")
    a, b = (e.analyse(x, iterations=600, seed=3) for x in (s, w))
    assert [(str(c.move), c.visits, c.win_probability) for c in a] == \
        [(str(c.move), c.visits, c.win_probability) for c in b]


def test_a_bad_opponent_values_is_a_typed_error():
    with pytest.raises(jp.InvalidOptionError, match="opponent_values"):
        jp.Engine.from_options(opponent_values="peek")
    with pytest.raises(ValueError, match="opp_values"):
        S.IsmctsSearcher(mid_position(3, 6).view(0)._core, opp_values="peek")


# -- the searcher's own view (own_view="all"; docs/search.md, "Where the excess comes
# from"): its own playout moves and tree priors below the root read a world re-dealt
# from its information, so its imagined future play does not see the opponent's hand

@pytest.mark.parametrize("seed,plies", [(3, 6), (7, 6)])
def test_the_searchers_own_view_is_fair_deterministic_and_changes_the_search(seed, plies):
    s = mid_position(seed, plies)
    opp = s.players[1 - s.to_move]
    assert sorted(opp.known) != sorted(opp.hand)      # the re-deal has cards to shuffle
    e = jp.Engine.from_options(own_view="all")
    key = fair_analysis(e, s, iterations=600, seed=3)
    assert key != fair_analysis(jp.Engine(), s, iterations=600, seed=3)
    assert e.options()["own_view"] == "all" and "own_view" not in jp.Engine().options()


def test_the_own_view_changes_nothing_once_the_opponents_hand_is_known():
    # every card of the opponent's hand seen taken: nothing to re-deal
    s = mid_position(7, 15)
    opp = s.players[1 - s.to_move]
    assert sorted(opp.known) == sorted(opp.hand)
    a = jp.Engine.from_options(own_view="all").analyse(s, iterations=600, seed=3)
    b = jp.Engine().analyse(s, iterations=600, seed=3)
    assert [(str(c.move), c.visits) for c in a] == [(str(c.move), c.visits) for c in b]


def test_a_bad_own_view_is_a_typed_error():
    with pytest.raises(jp.InvalidOptionError, match="own_view"):
        jp.Engine.from_options(own_view="peek")

"""A belief over the opponent's hand: worlds dealt from a given hand, the search's
hand prior, the likelihood of a move given a hand (src_cy/jaipur_ai/search/_belief.pyx), the
belief that weighs hands by the opponent's moves (jaipur_ai/search/belief.py) and the engine
that keeps one (``Engine(belief=...)``, ``see_move``)."""
from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jaipur_ai import Engine, GameState
from jaipur_ai.search import _search as S
from jaipur_ai.search import belief as bel
from jaipur_ai.search._belief import SCORER_GREEDY, SCORER_LEARNED, hand_likelihoods
from jaipur_ai.errors import InvalidPositionError, JaipurError
from jaipur_ai.matches.runner import run_match

from search_positions import mid_position
from strategies import running_states
from test_search import stats

FAST = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
GOODS = 6


def unknown_goods(s: GameState, observer: int) -> list[int]:
    """The goods of observer's opponent that observer has not seen (the truth)."""
    raw = s._core.raw()
    o = 1 - observer
    return [raw["hand"][o][g] - raw["known"][o][g] for g in range(GOODS)]


def unseen(s: GameState, observer: int) -> list[int]:
    """Every good observer cannot place: the opponent's unknown ones and the deck's."""
    return sorted([g for g, n in enumerate(unknown_goods(s, observer)) for _ in range(n)]
                  + [c for c in s._core.raw()["deck"] if c < GOODS])


@FAST
@given(running_states(max_plies=150), st.integers(0, 1), st.integers(0, 2**32 - 1))
def test_a_world_dealt_from_the_true_hand_has_that_hand(state, observer, seed):
    v = state.view(observer)._core
    u = unknown_goods(state, observer)
    w = v.sample(seed, unknown_goods=u)
    assert w.raw() == v.sample(seed, unknown_goods=u).raw()            # seeded
    assert w.view(observer).raw() == v.raw()                          # a world of the view
    wr, sr = w.raw(), state._core.raw()
    assert wr["hand"] == sr["hand"]
    assert sorted(c for c in wr["deck"] if c < GOODS) == sorted(c for c in sr["deck"]
                                                                 if c < GOODS)
    assert len(wr["deck"]) == len(sr["deck"])


def test_a_hand_that_does_not_fit_the_view_is_refused():
    s = mid_position(7, 10)
    v = s.view(s.to_move)._core
    u = unknown_goods(s, s.to_move)
    more = list(u)
    more[0] += 1                                      # one good too many
    with pytest.raises(ValueError, match="do not fit"):
        v.sample(1, unknown_goods=more)
    with pytest.raises(ValueError, match="6 counts"):
        v.sample(1, unknown_goods=u[:5])
    total = sum(unseen(s, s.to_move).count(g) for g in [0])
    too_many = [total + 1, 0, 0, 0, 0, 0]              # more diamonds than are unseen
    with pytest.raises(ValueError):
        v.sample(1, unknown_goods=too_many)


def _searcher(s: GameState, prior=None, seed=5, iterations=400):
    a = S.IsmctsSearcher(s.view(s.to_move)._core, seed=seed, judge=False)
    if prior is not None:
        a.set_hand_prior(*prior)
    a.judge_decisive()
    a.run(iterations=iterations)
    return a


def _two_worlds(s: GameState):
    """Another full state that the mover sees as it sees s."""
    v = s.view(s.to_move)
    for k in range(200):
        w = v.sample(k)
        if unknown_goods(w, s.to_move) != unknown_goods(s, s.to_move):
            return w
    pytest.skip("the opponent's hand is fully determined here")


def test_a_search_with_a_hand_prior_reads_only_the_view_and_the_prior():
    s = mid_position(7, 12)
    w = _two_worlds(s)
    rows = np.array([unknown_goods(s, s.to_move), unknown_goods(w, s.to_move)])
    prior = (rows, [0.7, 0.3])
    assert stats(_searcher(s, prior).summary()) == stats(_searcher(w, prior).summary())
    # and the prior is used: all the weight on one hand or the other searches differently
    one = stats(_searcher(s, (rows[:1], [1.0])).summary())
    other = stats(_searcher(s, (rows[1:], [1.0])).summary())
    assert one != other


def test_bad_hand_priors_are_refused():
    s = mid_position(7, 12)
    a = S.IsmctsSearcher(s.view(s.to_move)._core, seed=1, judge=False)
    u = unknown_goods(s, s.to_move)
    bad = list(u)
    bad[0] += 1
    with pytest.raises(ValueError, match="row 1 does not fit"):
        a.set_hand_prior([u, bad], [1, 1])
    with pytest.raises(ValueError, match="one number per row"):
        a.set_hand_prior([u], [1, 1])
    with pytest.raises(ValueError, match="not all 0"):
        a.set_hand_prior([u], [0])
    with pytest.raises(ValueError, match="non-empty"):
        a.set_hand_prior(np.zeros((0, GOODS)), [])
    a.set_hand_prior(None, None)                          # back to uniform
    a.run(iterations=50)
    e = Engine(seed=1)
    with pytest.raises(InvalidPositionError, match="hand_prior"):
        e.best_move(s.view(s.to_move), iterations=50, hand_prior=([bad], [1]))
    for count in (-1, 256, 2**63, float("inf")):           # out of range for a count
        with pytest.raises(InvalidPositionError, match="hand_prior"):
            e.best_move(s.view(s.to_move), iterations=50,
                        hand_prior=([[count, 0, 0, 0, 0, 5]], [1]))
    with pytest.raises(InvalidPositionError, match="only the ismcts"):
        Engine("expectimax").best_move(s.view(s.to_move), iterations=50,
                                       hand_prior=([u], [1]))
    assert e.best_move(s.view(s.to_move), iterations=200, hand_prior=([u], [1])) \
        in s.legal_moves()


@pytest.mark.parametrize("seed,plies", [(3, 0), (5, 7), (11, 14), (13, 21)])
@pytest.mark.parametrize("model", ["search-like", "greedy"])
def test_the_move_model_is_a_distribution_over_the_legal_moves(seed, plies, model):
    """For any hand, the likelihoods of all the mover's legal moves sum to 1, and an
    illegal move (a sale of goods the hand does not hold) gets 0."""
    s = mid_position(seed, plies)
    observer = 1 - s.to_move
    v = s.view(observer)._core
    ev = Engine().searcher_options()["evaluation"]
    scorer = {"search-like": SCORER_LEARNED, "greedy": SCORER_GREEDY}[model]
    u = np.array([unknown_goods(s, observer)])
    total = sum(hand_likelihoods(v, a, u, ev, scorer=scorer)[0]
                for a in s._core.legal_actions())
    assert total == pytest.approx(1.0)
    # in a world where the opponent holds nothing unknown, it cannot sell an unknown good
    raw = s._core.raw()
    held = [raw["hand"][s.to_move][g] for g in range(GOODS)]
    sale = next((m for m in s.legal_moves() if m.kind == "sell"
                 and raw["known"][s.to_move][m.good] < m.count), None)
    if sale is not None and sum(held) > sum(raw["known"][s.to_move]):
        empty = np.zeros((1, GOODS), dtype=np.uint8)
        # a row that does not fit (too few goods for the unknown slots) gets 0
        assert hand_likelihoods(v, sale.action_id, empty, ev, scorer=scorer)[0] == 0.0


def test_the_move_model_refuses_bad_input():
    s = mid_position(5, 7)
    v = s.view(1 - s.to_move)._core
    u = np.array([unknown_goods(s, 1 - s.to_move)])
    with pytest.raises(ValueError, match="opponent must be to move"):
        hand_likelihoods(s.view(s.to_move)._core, 0, u)
    with pytest.raises(ValueError, match="temp"):
        hand_likelihoods(v, 0, u, None, 0.0)
    with pytest.raises(ValueError, match="not an action id"):
        hand_likelihoods(v, -1, u)
    with pytest.raises(ValueError, match="array of counts"):
        hand_likelihoods(v, 0, [1, 2, 3])
    with pytest.raises(ValueError, match="give an evaluation"):
        hand_likelihoods(v, 0, u, None, scorer=SCORER_LEARNED)
    with pytest.raises(ValueError, match="scorer"):
        hand_likelihoods(v, 0, u, None, scorer=7)


@pytest.mark.parametrize("kinds", [(bel.SEARCH_LIKE,), (bel.GREEDY,), bel.KINDS],
                         ids=["search-like", "greedy", "both"])
def test_the_belief_never_rules_out_the_true_hand_and_reads_only_views(kinds):
    """Over rounds of random play, the opponent's true unknown goods keep a positive
    weight, every hypothesis fits the view, and two beliefs fed the same views and
    moves agree (nothing else reaches them)."""
    for seed in (1, 2):
        rng = random.Random(seed)
        s = GameState.new(seed=seed, starter=0)
        b = [bel.HandBelief(kinds=kinds) for _ in range(2)]
        twin = bel.HandBelief(kinds=kinds)
        for ply in range(40):
            if s.is_round_over:
                break
            p = s.to_move
            rows, w = b[p].prior(s.view(p))
            truth = np.array(unknown_goods(s, p))
            hit = np.all(rows == truth, axis=1)
            assert hit.sum() == 1 and w[hit][0] > 0
            assert np.all(w >= 0) and w.max() == pytest.approx(1.0)
            a = S.IsmctsSearcher(s.view(p)._core, seed=1, judge=False)
            a.set_hand_prior(rows, w)                     # every row fits the view
            if p == 0:
                r2, w2 = twin.prior(s.view(0))
                assert np.array_equal(rows, r2) and np.allclose(w, w2)
            m = rng.choice(s.legal_moves())
            for q in (0, 1):
                b[q].see(s.view(q), m)
            twin.see(s.view(0), m)
            s = s.apply(m)


def test_the_belief_learns_from_the_opponents_moves():
    """Against an opponent that plays by move scores (greedy), the weights move away
    from the uniform deal's, towards the true hand."""
    greedy = Engine("greedy")
    s = GameState.new(seed=4, starter=1)
    b = bel.HandBelief()
    gains = []
    for ply in range(30):
        if s.is_round_over:
            break
        if s.to_move == 0 and b.seen:
            v = s.view(0)
            rows, w = b.prior(v)
            rows0, logw0 = bel.unknown_hands(v)
            if len(rows0) > 1:
                w0 = np.exp(logw0 - logw0.max())
                truth = np.all(rows == np.array(unknown_goods(s, 0)), axis=1)
                truth0 = np.all(rows0 == np.array(unknown_goods(s, 0)), axis=1)
                gains.append(np.log(w[truth][0] / w.sum()) - np.log(w0[truth0][0] / w0.sum()))
        m = greedy.best_move(s.view(s.to_move), seed=ply)
        b.see(s.view(0), m)
        s = s.apply(m)
    assert gains and any(g != 0 for g in gains)
    assert np.mean(gains) > 0


def test_the_belief_averages_its_two_kinds_of_opponent_hand_by_hand():
    """The belief weighs each hand by the uniform deal times the mean, over its two
    kinds of opponent, of how likely each makes the moves seen (not the mean of the two
    beliefs' normalised weights)."""
    greedy = Engine("greedy")
    s = GameState.new(seed=6, starter=1)
    mixed = bel.HandBelief()
    for ply in range(9):
        m = greedy.best_move(s.view(s.to_move), seed=ply)
        mixed.see(s.view(0), m)
        s = s.apply(m)
    assert s.to_move == 0 and len(mixed.seen) == 5
    v = s.view(0)
    rows, w = mixed.prior(v)
    rows0, logw0 = bel.unknown_hands(v)
    _unseen, known = bel._sides(v)
    lik = sum(np.exp(logw0 + mixed._log_likelihoods(rows0, known, kind)) * 0.5
              for kind in mixed.kinds)
    assert [k.name for k in mixed.kinds] == ["search-like", "greedy"]
    keep = lik > 0
    assert np.array_equal(rows, rows0[keep])
    assert np.allclose(w, lik[keep] / lik.max())
    # greedy's moves are far likelier under the greedy model, which the mixture follows
    ll = {k.name: mixed._log_likelihoods(rows0, known, k) for k in mixed.kinds}
    truth = np.all(rows0 == np.array(unknown_goods(s, 0)), axis=1)
    assert ll["greedy"][truth][0] > ll["search-like"][truth][0]


def test_the_engine_option_turns_the_belief_on_and_off():
    from jaipur_ai.options import option, parse_text
    assert option("belief").kind == "bool" and option("belief").default is True
    assert parse_text("belief", "off") is False and parse_text("belief", "on") is True


# ------------------------------------------------------------ the engine's belief
def _round_with_moves(seed: int, plies: int):
    """A round played by random moves for ``plies`` plies: the states and moves."""
    rng = random.Random(seed)
    s = GameState.new(seed=seed, starter=1)
    seen = []
    for _ in range(plies):
        if s.is_round_over:
            break
        m = rng.choice(s.legal_moves())
        seen.append((s, m))
        s = s.apply(m)
    return s, seen


def _result(a) -> list:
    """What an analysis found (not its timing)."""
    return [(str(c.move), c.visits, c.win_probability, c.expected_margin)
            for c in a.candidates] + [a.iterations]


def _shown(engine: Engine, seen, observer: int) -> Engine:
    for s, m in seen:
        engine.see_move(s.view(observer), m)
    return engine


def test_an_engine_with_a_belief_searches_the_worlds_of_its_prior():
    """Shown no moves it searches as without a belief; shown the round's moves, as a
    search given the belief's prior; whatever the opponent really holds."""
    s, seen = _round_with_moves(5, 3)         # player 1 started: two moves of its own
    assert not s.is_round_over and s.to_move == 0
    v = s.view(0)
    plain = _result(Engine(seed=3).analyse(v, iterations=600))     # nothing shown yet
    assert _result(Engine(seed=3, belief=False).analyse(v, iterations=600)) == plain
    eng = _shown(Engine(seed=3), seen, 0)
    b = bel.HandBelief()
    for t, m in seen:
        b.see(t.view(0), m)
    rows, w = b.prior(v)
    assert len(rows) > 1 and w.min() < 1                  # the moves weighed the hands
    expect = _result(Engine(seed=3).analyse(v, iterations=600, hand_prior=(rows, w)))
    assert _result(eng.analyse(v, iterations=600)) == expect
    w2 = _two_worlds(s)                                   # another truth, the same view
    assert _result(eng.analyse(w2, iterations=600)) == expect
    assert _result(eng.analyse(s, iterations=600)) == expect
    eng.forget()                                          # a new game: nothing seen
    assert _result(eng.analyse(v, iterations=600)) == plain


def test_the_engines_belief_starts_afresh_each_round_and_ignores_its_own_moves():
    s, seen = _round_with_moves(8, 6)
    eng = _shown(Engine(), seen, 0)
    b = eng._beliefs[0]
    assert b.round == 1 and len(b.seen) == sum(t.to_move == 1 for t, _ in seen)
    nxt = GameState.new(seed=9, starter=0)
    nxt2 = GameState.from_dict({**nxt.to_dict(), "round": 2})
    eng.see_move(nxt2.view(0), nxt2.legal_moves()[0])     # its own move, round 2
    assert eng._beliefs[0].round == 2 and eng._beliefs[0].seen == []
    eng2 = _shown(Engine(), seen, 0)
    other = GameState.new(seed=11, starter=0)              # another game's round 1
    assert eng2._beliefs[0].seen and eng2._belief_prior(other.view(0)) is None
    eng2.see_move(other.view(0), other.legal_moves()[0])   # (its fuller pile): afresh
    assert eng2._beliefs[0].seen == [] and eng2._beliefs[0].deck_size == 40
    off = _shown(Engine(belief=False), seen, 0)           # belief off: nothing kept
    assert off._beliefs == {}


def test_the_default_reads_the_opponents_moves_whatever_the_evaluation():
    """By default an engine weighs the opponent's unseen goods by its moves, reading it
    as a player like the search or a greedy one, with the learned evaluation and the
    hand-set one alike; belief=False deals them uniformly (the hand-set baseline of the
    matches: evaluation="heuristic", settings="handset", belief=False)."""
    s, seen = _round_with_moves(5, 3)          # two of the opponent's moves
    mixed = bel.HandBelief()
    for t, m in seen:
        mixed.see(t.view(0), m)
    want_hands, want = mixed.prior(s.view(0))
    for engine in (Engine(), Engine(evaluation="heuristic")):
        hands, weights = _shown(engine, seen, 0)._belief_prior(s.view(0))
        assert np.array_equal(hands, want_hands) and np.allclose(weights, want)
    assert len(want) > 1 and np.ptp(want / want.sum()) > 0
    off = _shown(Engine(evaluation="heuristic", settings="handset", belief=False), seen, 0)
    assert off._belief_prior(s.view(0)) is None


def test_bad_input_to_the_engines_belief_is_a_typed_error():
    s = GameState.new(seed=2, starter=0)
    m = s.legal_moves()[0]
    e = Engine()
    with pytest.raises(InvalidPositionError, match="view"):
        e.see_move(s, m)                                  # a full state, not a view
    with pytest.raises(InvalidPositionError, match="move"):
        e.see_move(s.view(0), str(m))
    with pytest.raises(JaipurError, match="belief"):
        Engine(belief="psychic")
    assert e._beliefs == {}                               # nothing half-applied
    x = Engine("expectimax")                              # an ISMCTS option: unused
    x.see_move(s.view(1), m)
    assert x._beliefs == {}


def test_a_match_shows_the_moves_to_a_believing_engine_deterministically():
    a = "ismcts:iterations=300"
    r1 = run_match(a, "greedy", games=1, seed=4)
    r2 = run_match(a, "greedy", games=1, seed=4)
    assert [x["moves"] for x in r1.to_dict()["records"]] == \
        [x["moves"] for x in r2.to_dict()["records"]]


def test_a_game_against_the_engine_shows_it_every_move():
    """``jaipur-ai play`` and the browser game show the engine each move with its own
    view, so a believing engine weighs the human's hand by the human's moves."""
    from jaipur_ai.doors.play import Game
    from jaipur_ai.matches.spec import EngineSpec
    from jaipur_ai.doors.webgame import WebGame
    spec = EngineSpec.parse("ismcts:iterations=200")
    for make in (lambda: Game(spec, EngineSpec.parse("greedy"), seed=4, you=0),
                 lambda: WebGame(spec, EngineSpec.parse("greedy"), seed=4, you=0)):
        g = make()
        for _ in range(3):
            if g.state.is_round_over:
                break
            if g.state.to_move == g.you:
                m = g.state.legal_moves()[0]
                if isinstance(g, WebGame):
                    g.play(str(m))
                else:
                    g._play(m)
            elif isinstance(g, Game):
                g.engine_turn()
        b = g.engine._beliefs[g.bot]
        assert b.round == 1 and len(b.seen) >= 1      # the human's moves, none of its own
        assert all(ev.view.observer == g.bot for ev in b.seen)


def test_bad_input_to_a_hand_belief_is_a_typed_error():
    s = GameState.new(seed=2, starter=1)
    b = bel.HandBelief()
    for call, field in ((lambda: b.see(s, s.legal_moves()[0]), "view"),
                        (lambda: b.see(s.view(0), "camels"), "move"),
                        (lambda: b.prior(s), "view")):
        with pytest.raises(JaipurError) as e:
            call()
        assert e.value.field == field
    assert b.round is None and b.seen == []

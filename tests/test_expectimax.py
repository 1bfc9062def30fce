"""Expectimax's chance nodes, move filters and inner moves (jaipur_ai.search._expectimax,
docs/search.md "Expectimax"): the refill's probabilities against hand-computed
hypergeometric ones, the root filter, the policy's inner moves, legality, fairness and
determinism.  Depths and budgets are kept small."""
from __future__ import annotations

from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jaipur_ai as jp
from jaipur_ai.errors import InvalidOptionError
from jaipur_ai.rules._cards import LETTERS
from jaipur_ai.search import _search as S

from search_positions import mid_position
from strategies import running_states

FAST = settings(max_examples=15, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

#: The options of the filtered, policy-ordered expectimax these tests exercise.
FILTERED = dict(inner_moves="policy", root_filter=3, beam=6, chance_top=4)


def _pile(state: jp.GameState) -> dict[int, int]:
    """The draw pile's cards by type code (the core's codes follow LETTERS)."""
    counts = {t: 0 for t in range(len(LETTERS))}
    for c in state.to_dict()["deck"]:
        counts[LETTERS.index(c)] += 1
    return counts


def _move(state: jp.GameState, text: str) -> jp.Move:
    return next(m for m in state.legal_moves() if str(m) == text)


def _multiset_p(pile: dict[int, int], types: tuple[int, ...]) -> float:
    """Multivariate hypergeometric probability of drawing exactly these types."""
    n = sum(pile.values())
    p = 1.0
    for t in set(types):
        p *= comb(pile[t], types.count(t))
    return p / comb(n, len(types))


def _state_with_camels(k: int) -> jp.GameState:
    """A running position whose market holds exactly k camels (k in 1..5)."""
    for seed in range(50):
        for plies in range(0, 30, 3):
            s = mid_position(seed, plies)
            if s.to_dict()["market"].count("M") == k and not s.is_round_over and any(
                    str(m) == "camels" for m in s.legal_moves()):
                return s
    pytest.skip(f"no position tried has {k} camels in the market")


# ---------------------------------------------------------------------------
# Chance: the refill's outcomes

def test_a_take_draws_each_type_by_its_share_of_the_pile():
    s = jp.GameState.new(seed=3, starter=1)        # market DCMMM, 40 cards in the pile
    pile = _pile(s)
    out = S.refill_outcomes(s._core, _move(s, "take D").action_id)
    assert sum(pile.values()) == 40
    assert dict((types[0], p) for types, p in out) == pytest.approx(
        {t: n / 40 for t, n in pile.items() if n})
    assert [p for _, p in out] == sorted((p for _, p in out), reverse=True)
    # leather: 10 cards, one in player 1's hand, none in the market or player 0's hand
    assert dict((types[0], p) for types, p in out)[LETTERS.index("L")] == pytest.approx(9 / 40)


def test_two_cards_draw_every_pair_by_its_hypergeometric_probability():
    s = _state_with_camels(2)
    pile = _pile(s)
    out = S.refill_outcomes(s._core, _move(s, "camels").action_id)
    want = {}
    for a in pile:
        for b in pile:
            if a <= b and _multiset_p(pile, (a, b)) > 0:
                want[(a, b)] = _multiset_p(pile, (a, b))
    assert {types: p for types, p in out} == pytest.approx(want)
    assert sum(p for _, p in out) == pytest.approx(1.0)


def test_three_cards_top_mass_is_exact_and_the_rest_sampled():
    s = _state_with_camels(3)
    pile = _pile(s)
    a = _move(s, "camels").action_id
    top, samples = 5, 4
    out = S.refill_outcomes(s._core, a, samples=samples, top=top, seed=7)
    assert len(out) == top + samples
    assert sum(p for _, p in out) == pytest.approx(1.0)
    every = {t: _multiset_p(pile, t) for t in _multisets(list(pile), 3)}
    # the likeliest `top` multisets carry their hypergeometric probabilities, and each
    # of the `samples` others an equal share of the rest of the mass (sorted most likely
    # first together, so they are told apart by their weight)
    w = (1.0 - sum(sorted(every.values())[-top:])) / samples
    sampled = [(t, p) for t, p in out if p == pytest.approx(w)]
    exact = [(t, p) for t, p in out if p != pytest.approx(w)]
    assert len(exact) == top and len(sampled) == samples
    chosen = {tuple(sorted(t)) for t, _ in exact}
    assert len(chosen) == top
    for t, p in exact:
        assert p == pytest.approx(every[tuple(sorted(t))])
    assert min(p for _, p in exact) >= max(
        p for t, p in every.items() if t not in chosen) - 1e-12
    assert all(tuple(sorted(t)) not in chosen and every[tuple(sorted(t))] > 0
               for t, _ in sampled)
    assert [p for _, p in out] == sorted((p for _, p in out), reverse=True)
    # seeded; and without top every outcome is a sampled draw of equal weight
    assert S.refill_outcomes(s._core, a, samples=samples, top=top, seed=7) == out
    plain = S.refill_outcomes(s._core, a, samples=4, seed=7)
    assert [p for _, p in plain] == [0.25] * 4


def _multisets(types: list[int], k: int) -> list[tuple[int, ...]]:
    if k == 0:
        return [()]
    return [(t,) + rest for i, t in enumerate(types) for rest in _multisets(types[i:], k - 1)]


def test_moves_that_draw_nothing_have_no_chance_node():
    s = jp.GameState.new(seed=3, starter=1)
    for m in s.legal_moves():
        if m.kind in ("sell", "swap"):
            assert S.refill_outcomes(s._core, m.action_id) == []
    with pytest.raises(ValueError):
        S.refill_outcomes(s._core, -5)


# ---------------------------------------------------------------------------
# The root filter and the policy's inner moves

def test_the_root_filter_searches_the_best_of_the_shallower_depth():
    s = mid_position(5, 12)
    v = s.view(s.to_move)._core
    x = S.ExpectimaxSearcher(v, seed=3, samples=3)
    assert x.run_depth(1)
    first = x.summary()["children"]
    acts = x.root_actions()
    keep = sorted(acts.index(c["action"]) for c in first[:2])
    assert x.run_depth(2, moves=keep)
    second = x.summary()["children"]
    deep = [c for c in second if c["depth"] == 2]
    assert {c["action"] for c in deep} == {acts[i] for i in keep}
    assert second[:2] == deep                  # searched deeper: ranked first
    shallow = {c["action"]: c for c in first}
    for c in second[2:]:
        assert c["depth"] == 1 and c["value"] == shallow[c["action"]]["value"]
    with pytest.raises(ValueError):
        x.run_depth(3, moves=[len(acts)])


def test_the_engine_plays_a_filtered_move():
    s = mid_position(5, 12)
    plain = jp.Engine.from_options(algorithm="expectimax", samples=3, depth=1)
    ranked = [c.move for c in plain.analyse(s, seed=2).candidates]
    e = jp.Engine.from_options(algorithm="expectimax", samples=3, depth=2, root_filter=2)
    a = e.analyse(s, seed=2)
    assert a.depth == 2 and a.best in ranked[:2]
    assert a.options["root_filter"] == 2 and a.options["inner_moves"] == "all"


def test_policy_inner_moves_change_the_search_and_keep_it_deterministic():
    s = mid_position(11, 16)
    runs = {}
    for inner in ("all", "policy"):
        e = jp.Engine.from_options(algorithm="expectimax", samples=2, depth=3,
                                   inner_moves=inner)
        a, b = e.analyse(s, seed=4), e.analyse(s, seed=4)
        assert [(c.move, c.win_probability) for c in a.candidates] == \
            [(c.move, c.win_probability) for c in b.candidates]
        runs[inner] = a
    assert runs["policy"].iterations < runs["all"].iterations    # fewer moves searched
    assert [c.win_probability for c in runs["policy"].candidates] != \
        [c.win_probability for c in runs["all"].candidates]


@FAST
@given(running_states(max_plies=120), st.integers(0, 2**32 - 1))
def test_filtered_expectimax_plays_legal_moves(state, seed):
    e = jp.Engine.from_options(algorithm="expectimax", samples=2, depth=2, **FILTERED)
    assert e.analyse(state, seed=seed).best in state.legal_moves()


@pytest.mark.parametrize("plies", [0, 14, 28])
def test_filtered_expectimax_reads_only_the_view(plies):
    s = mid_position(7, plies)
    v = s.view(s.to_move)
    other = next((w for k in range(1, 200) if (w := v.sample(k)) != s), None)
    if other is None:
        pytest.skip("the hidden cards are fully determined here")
    e = jp.Engine.from_options(algorithm="expectimax", samples=2, depth=3, **FILTERED)
    a, b = e.analyse(s, seed=5), e.analyse(other, seed=5)
    assert [(c.move, c.win_probability, c.expected_margin) for c in a.candidates] == \
        [(c.move, c.win_probability, c.expected_margin) for c in b.candidates]


@pytest.mark.parametrize("field,value", [("chance_top", 33), ("root_filter", -1),
                                         ("inner_moves", "some")])
def test_bad_expectimax_options_are_typed_errors(field, value):
    with pytest.raises(InvalidOptionError, match=field):
        jp.Engine.from_options(algorithm="expectimax", **{field: value})


# ---------------------------------------------------------------------------
# Left-out moves, threads, and more worlds where the next depth cannot finish

def test_an_aborted_depth_leaves_the_left_out_moves_at_their_last_values():
    s = mid_position(5, 12)
    x = S.ExpectimaxSearcher(s.view(s.to_move)._core, seed=3, samples=3)
    assert x.run_depth(1)
    first = {c["action"]: c for c in x.summary()["children"]}
    assert not x.run_depth(3, node_limit=50)           # cut short: its values are partial
    keep = [0, 1]
    assert x.run_depth(2, moves=keep)
    acts = x.root_actions()
    for c in x.summary()["children"]:
        if c["action"] not in {acts[i] for i in keep}:
            assert c["depth"] == 1 and c["value"] == first[c["action"]]["value"]
    assert x.summary(1)["children"] == sorted(first.values(), key=lambda c: (
        0 if c["decisive"] == "win" else (2 if c["decisive"] == "loss" else 1),
        -c["depth"], -c["value"], -c["margin"], c["action"]))
    with pytest.raises(ValueError):
        x.summary(5)
    fresh = S.ExpectimaxSearcher(s.view(s.to_move)._core, seed=3, samples=3)
    with pytest.raises(ValueError):
        fresh.run_depth(2, moves=keep)                 # nothing to keep the others at


def test_left_out_moves_are_reported_without_worlds():
    s = mid_position(5, 12)
    a = jp.Engine.from_options(algorithm="expectimax", samples=3, depth=2,
                               root_filter=2).analyse(s, seed=2)
    assert [c.visits for c in a.candidates[:2]] == [3, 3]
    assert all(c.visits == 0 for c in a.candidates[2:])


@pytest.mark.parametrize("threads", [1, 2])
def test_filtered_search_on_a_node_budget_is_deterministic(threads):
    s = mid_position(9, 18)
    e = jp.Engine.from_options(algorithm="expectimax", samples=4, depth=64, threads=threads,
                               **FILTERED)
    a, b = e.analyse(s, iterations=30000, seed=6), e.analyse(s, iterations=30000, seed=6)
    assert a.depth >= 2 and a.iterations == b.iterations
    assert [(c.move, c.visits, c.win_probability) for c in a.candidates] == \
        [(c.move, c.visits, c.win_probability) for c in b.candidates]


def test_more_worlds_where_the_next_depth_cannot_finish():
    s = mid_position(4, 30)
    base = dict(algorithm="expectimax", samples=4, depth=64, **FILTERED)
    plain = jp.Engine.from_options(**base).analyse(s, iterations=60000, seed=3)
    wide = jp.Engine.from_options(**base, more_worlds=True)
    a = wide.analyse(s, iterations=60000, seed=3)
    assert a.determinizations > 4                      # batches of new worlds joined
    assert a.depth <= plain.depth and a.iterations <= 60000
    assert a.options["more_worlds"] is True
    best = a.candidates[0]
    assert best.visits == a.determinizations           # every world searched the best
    b = wide.analyse(s, iterations=60000, seed=3)      # deterministic on a node budget
    assert [(c.move, c.visits, c.win_probability) for c in a.candidates] == \
        [(c.move, c.visits, c.win_probability) for c in b.candidates]
    other = next((w for k in range(1, 200) if (w := s.view(s.to_move).sample(k)) != s), None)
    if other is not None:                              # fair: the view alone decides
        c = wide.analyse(other, iterations=60000, seed=3)
        assert [(x.move, x.win_probability) for x in c.candidates] == \
            [(x.move, x.win_probability) for x in a.candidates]


def test_more_worlds_adds_none_to_a_perfect_information_search():
    s = mid_position(4, 30)
    e = jp.Engine.from_options(algorithm="expectimax", samples=4, depth=64, more_worlds=True,
                               perfect_information=True, **FILTERED)
    assert e.analyse(s, iterations=60000, seed=3).determinizations == 1   # the truth, once


# ------------------------------------------------------------------ the honest opponent
#: A late position of a recorded game (the move-quality benchmark's position 48): player
#: 1 to move, the opponent holding a known gold and one card player 1 has not seen.
FUSION_DEAL = (1585220644848804292, 0)
FUSION_MOVES = [
    "camels", "take S", "swap DCC for LLM", "take P", "sell 1C", "swap PP for CM", "take C",
    "sell 4P", "sell 3C", "take L", "camels", "take L", "sell 2D", "sell 3L", "camels",
    "take P", "swap CC for MM", "take P", "sell 1C", "camels", "swap LL for MM", "camels",
    "swap DC for LM", "swap LL for MM", "sell 1C", "sell 2P", "sell 1L", "sell 1L",
    "camels", "swap GSSS for MMMM", "camels", "sell 2G", "swap DDPP for CMMM", "camels",
    "swap GSS for PPM", "take D", "sell 2S", "swap CC for LM", "sell 3D"]


def test_the_opponent_answers_each_hand_it_may_hold():
    # Strategy fusion on the opponent's side is one reply for every hand it may hold,
    # as a tree shared across those hands makes it.  Here it would pick the wrong move:
    # after "sell 4S" the opponent's best answer depends on its unseen card, so an
    # opponent that must answer every hand alike does worse, and "sell 4S" looks best;
    # answered per hand, "swap PL for DC" is better.  Expectimax deals the hands as
    # worlds and lets the opponent choose in each: its values are the honest ones.
    from jaipur_ai.search.evaluation import named_evaluation
    ev = named_evaluation("linear")
    s = jp.GameState.new(FUSION_DEAL[0], starter=FUSION_DEAL[1])
    for text in FUSION_MOVES:
        s = s.apply(text)
    view = s.view(s.to_move)
    # the pile holds few kinds of cards, so every refill is enumerated exactly
    fair = S.ExpectimaxSearcher(view._core, seed=1, samples=6, evaluation=ev, chance_top=32)
    assert fair.run_depth(2)
    acts, values = fair.root_actions(), fair.world_values()
    honest, fused, replies = {}, {}, {}
    for text in ("swap PL for DC", "sell 4S"):
        i = acts.index(_move(s, text).action_id)
        per_world = []                       # the opponent's value of each reply, by world
        for j in range(fair.samples):
            after = fair.world(j).copy()
            after.apply_action(acts[i])      # (neither move draws a card)
            o = S.ExpectimaxSearcher(after, seed=1, samples=1, evaluation=ev, chance_top=32)
            assert o.run_depth(1)
            per_world.append(dict(zip(o.root_actions(), o.world_values()[:, 0])))
        # per hand: in each world the opponent takes its best reply
        honest[text] = sum(1 - max(v.values()) for v in per_world) / len(per_world)
        replies[text] = {max(v, key=v.get) for v in per_world}
        # fused: one reply, legal with every hand, best on average over the hands
        common = set(per_world[0]).intersection(*per_world[1:])
        b = max(common, key=lambda r: sum(v[r] for v in per_world))
        fused[text] = 1 - sum(v[b] for v in per_world) / len(per_world)
        # the search's value of the move is the per-hand one
        assert values[i].mean() == pytest.approx(honest[text], abs=1e-9)
    assert len(replies["sell 4S"]) > 1                 # its answer turns on its hand
    assert honest["swap PL for DC"] > honest["sell 4S"] + 0.01
    assert fused["sell 4S"] > fused["swap PL for DC"] + 0.01
    # and each world's value is a perfect-information search of that world
    for j in range(fair.samples):
        pi = S.ExpectimaxSearcher(fair.world(j), seed=1, samples=1, evaluation=ev,
                                  chance_top=32)
        assert pi.run_depth(2) and pi.root_actions() == acts
        assert pi.world_values()[:, 0] == pytest.approx(values[:, j], abs=1e-12)


def test_the_worlds_of_a_search_are_consistent_with_its_view():
    s = mid_position(3, 16)
    me, truth = s.to_move, s._core.raw()
    x = S.ExpectimaxSearcher(s.view(me)._core, seed=2, samples=3)
    for j in range(3):
        raw = x.world(j).raw()
        assert raw["hand"][me] == truth["hand"][me] and raw["market"] == truth["market"]
        # the opponent holds what it was seen taking, and as many goods as it really has
        them = 1 - me
        assert all(h >= k for h, k in zip(raw["hand"][them], truth["known"][them]))
        assert sum(raw["hand"][them]) == sum(truth["hand"][them])
        assert len(raw["deck"]) == len(truth["deck"])
    with pytest.raises(IndexError):
        x.world(3)
    with pytest.raises(ValueError, match="no depth"):
        x.world_values()

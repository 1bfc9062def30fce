"""The OpenSpiel game "python_jaipur" and JaipurBot (docs/ecosystem.md)."""
from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import jaipur_ai as jp  # noqa: E402
from jaipur_ai.rules import encoding  # noqa: E402
from jaipur_ai import openspiel as js  # noqa: E402


@pytest.fixture(scope="module")
def game():
    return pyspiel.load_game("python_jaipur")


def play_random(game, seed, until=None):
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    while not s.is_terminal() and (until is None or len(s.history()) < until):
        if s.is_chance_node():
            a, p = zip(*s.chance_outcomes())
            s.apply_action(int(rng.choice(a, p=p)))
        else:
            s.apply_action(int(rng.choice(s.legal_actions())))
    return s


def test_random_sim_test(game):
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_chance_nodes_deal_and_draw_with_their_probabilities(game):
    s = game.new_initial_state()
    outcomes = dict(s.chance_outcomes())
    assert outcomes == pytest.approx({0: 6 / 52, 1: 6 / 52, 2: 6 / 52, 3: 8 / 52, 4: 8 / 52,
                                      5: 10 / 52, 6: 8 / 52})
    for _ in range(12):
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.current_player() == 0
    core = jp.GameState(s._core)
    assert len(core.deck) == 40 and len(core.market) == 5
    # a take draws one card: a chance node over what the deck holds
    take = next(a for a in s.legal_actions() if str(jp.Move.from_dense_index(a)).startswith("take"))
    s.apply_action(take)
    assert s.is_chance_node()
    assert sum(p for _, p in s.chance_outcomes()) == pytest.approx(1.0)


def test_bonus_values_are_chance_nodes_seen_by_their_taker_only(game):
    for seed in range(40):
        s = play_random(game, seed)
        t0, t1 = s.information_state_string(0).split()[2:], s.information_state_string(1).split()[2:]
        if any(t == "b?" for t in t0 + t1):
            break
    assert len(t0) == len(t1)
    seen = [0, 0]
    for a, b in zip(t0, t1):
        if a.startswith("b") or b.startswith("b"):
            assert sorted([a == "b?", b == "b?"]) == [False, True]     # one sees, one does not
            seen[0 if b == "b?" else 1] += int((a if b == "b?" else b)[1:])
        else:
            assert a == b                                              # everything else is public
    state = jp.GameState(s._core)
    assert seen == [state.players[0].bonus_points, state.players[1].bonus_points]


def test_returns_are_the_seal_and_tensors_are_jaipur_ai_observations(game):
    for seed in range(3):
        s = play_random(game, seed)
        w = jp.GameState(s._core).round_winner()
        assert s.returns() == ([0.0, 0.0] if w == "draw" else
                               [1.0 if w == p else -1.0 for p in (0, 1)])
        for p in (0, 1):
            assert s.observation_tensor(p) == \
                encoding.observation(jp.GameState(s._core), p).tolist()
            assert s.observation_string(p) == jp.GameState(s._core).view(p).to_text()


def test_resampling_keeps_the_information_state(game):
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for seed in range(4):
        s = play_random(game, seed, until=60 + 10 * seed)
        if s.is_chance_node() or s.is_terminal():
            continue
        p = s.current_player()
        for _ in range(3):
            r = s.resample_from_infostate(p, sampler)
            assert r.information_state_string(p) == s.information_state_string(p)
            assert r.legal_actions() == s.legal_actions()
            assert r.observation_tensor(p) == s.observation_tensor(p)
            # the opponent's information state stays consistent with their hand
            opp = jp.GameState(r._core).players[1 - p]
            dealt = r.information_state_string(1 - p).split()[1]
            assert all(dealt.count(c) >= (opp.hand.count(c) - opp.known.count(c)) for c in "DGSCPL")


def test_openspiel_ismcts_plays_the_jaipur_ai_bot(game):
    """OpenSpiel's own ISMCTS bot against JaipurBot, two rounds, seats swapped."""
    from open_spiel.python.algorithms import ismcts, mcts
    scores = []
    for r in range(2):
        rs = np.random.RandomState(r)
        theirs = ismcts.ISMCTSBot(game=game, evaluator=mcts.RandomRolloutEvaluator(1, rs),
                                  uct_c=2.0, max_simulations=30, random_state=rs)
        seat = r % 2
        bots = {seat: js.JaipurBot(seat, "ismcts:iterations=300", seed=r), 1 - seat: theirs}
        s = game.new_initial_state()
        while not s.is_terminal():
            if s.is_chance_node():
                a, p = zip(*s.chance_outcomes())
                s.apply_action(int(rs.choice(a, p=p)))
            else:
                action = bots[s.current_player()].step(s)
                assert action in s.legal_actions()
                s.apply_action(action)
        scores.append(s.returns()[seat])
    assert len(scores) == 2 and all(x in (-1.0, 0.0, 1.0) for x in scores)

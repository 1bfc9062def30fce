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


# ------------------------------------------------------------------ information states
def _one_card_sales(state):
    """The player to move's sales of one card of a good it holds once (no bonus)."""
    out = {}
    for a in state.legal_actions():
        m = jp.Move.from_dense_index(a)
        if m.kind == "sell" and m.count == 1:
            out[m.good] = a
    return out


def test_information_states_remember_what_observations_forget():
    # player 0 sells one card of good x, player 1 one of good z, player 0 one of good y;
    # and in the other order, y first then x: the same position (token stacks are kept
    # per good, no card is drawn), the same observation, another history
    game = pyspiel.load_game("python_jaipur")
    for seed in range(400):
        s = play_random(game, seed, until=12 + seed % 25)
        if s.is_terminal() or s.is_chance_node() or s.current_player() != 0:
            continue
        mine = _one_card_sales(s)
        if len(mine) < 2:
            continue
        (x, ax), (y, ay) = list(mine.items())[:2]
        a, b = s.clone(), s.clone()
        a.apply_action(ax)
        theirs = {g: act for g, act in _one_card_sales(a).items() if g not in (x, y)}
        if not theirs or a.is_chance_node():
            continue
        z = next(iter(theirs.values()))
        a.apply_action(z)
        b.apply_action(ay)
        if b.is_chance_node() or z not in b.legal_actions():
            continue
        b.apply_action(z)
        if ay not in a.legal_actions() or ax not in b.legal_actions():
            continue
        a.apply_action(ay)
        b.apply_action(ax)
        for p in (0, 1):
            assert a.observation_tensor(p) == b.observation_tensor(p)
            assert a.information_state_tensor(p) != b.information_state_tensor(p)
            assert a.information_state_string(p) != b.information_state_string(p)
        return
    pytest.fail("no pair of one-card sales found in 400 random rounds")


def test_the_information_state_tensor_has_perfect_recall_of_moves_and_draws(game):
    s = play_random(game, 3, until=60)
    n = len(game.information_state_tensor_shape()) and game.information_state_tensor_shape()[0]
    assert n == js.information_state_size(400)
    t = np.asarray(s.information_state_tensor(0))
    o = encoding.OBSERVATION_SIZE
    assert (t[:o] == np.asarray(s.observation_tensor(0))).all()
    moves = [jp.Move.from_dense_index(h["action"]) for h in s._history]
    base = o + js.OPENING
    for j, m in enumerate(moves):
        r = t[base + j * js.MOVE_RECORD: base + (j + 1) * js.MOVE_RECORD]
        assert r[2 + ("take", "camels", "sell", "swap").index(m.kind)] == 1.0
        assert r[0] + r[1] == 1.0
    assert not t[base + len(moves) * js.MOVE_RECORD:].any()
    # the opponent's bonus values are never in a player's tensor
    for h in s._history:
        if h["bonus"] is not None:
            j = s._history.index(h)
            taker = h["bonus"][0]
            other = np.asarray(s.information_state_tensor(1 - taker))
            assert other[base + j * js.MOVE_RECORD + js.MOVE_RECORD - 1] == 0.0


DEEP_CFR = """
import json, sys
import numpy as np
import pyspiel
from open_spiel.python.jax import deep_cfr
from jaipur_ai import openspiel as js

np.random.seed(7)                     # Deep CFR samples chance and moves from numpy
game = pyspiel.load_game("python_jaipur", {"max_plies": 2})
solver = deep_cfr.DeepCFRSolver(
    game, policy_network_layers=(16,), advantage_network_layers=(16,),
    num_iterations=2, num_traversals=2, learning_rate=1e-3, batch_size_advantage=8,
    batch_size_strategy=8, memory_capacity=1000)
_, advantage_losses, policy_loss = solver.solve()
s = game.new_initial_state()
while s.is_chance_node():
    s.apply_action(s.chance_outcomes()[0][0])
probs = solver.action_probabilities(s)
print(json.dumps({
    "size": js.information_state_size(2),
    "shape": list(game.information_state_tensor_shape()),
    "policy_loss": float(policy_loss),
    "advantage_losses": [float(x) for p in (0, 1) for x in advantage_losses[p]
                         if x is not None],
    "memories": [int(len(solver.advantage_buffers[p])) for p in (0, 1)],
    "memory_width": [int(solver.advantage_buffers[p].experience.info_state.shape[-1])
                     for p in (0, 1)],
    "probs": {str(a): float(q) for a, q in probs.items()},
    "legal": s.legal_actions()}))
"""


def test_openspiel_deep_cfr_trains_on_the_information_state_tensor():
    """OpenSpiel's Deep CFR (its JAX version), an algorithm that needs a perfect-recall
    information state tensor, runs a few iterations on the game.  The rounds are cut off
    after 2 moves (``max_plies=2``): its traverser tries every move at each of its nodes.
    It runs in a child process: JAX starts threads, and the later tests fork workers."""
    import importlib.util
    import json
    import subprocess
    import sys
    if importlib.util.find_spec("jax") is None or importlib.util.find_spec("flax") is None \
            or importlib.util.find_spec("optax") is None or importlib.util.find_spec("chex") is None:
        pytest.skip("JAX, Flax, Optax or chex is missing (the test extra installs them where "
                    "open_spiel has wheels)")
    done = subprocess.run([sys.executable, "-c", DEEP_CFR], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    r = json.loads(done.stdout.strip().splitlines()[-1])
    assert r["shape"] == [r["size"]]
    assert np.isfinite(r["policy_loss"]) and all(np.isfinite(r["advantage_losses"]))
    # the regrets it learned from were keyed by our information states, one per node
    assert min(r["memories"]) > 0 and r["memory_width"] == [r["size"], r["size"]]
    # its policy puts all its weight on legal moves
    assert {int(a) for a in r["probs"]} <= set(r["legal"])
    assert abs(sum(r["probs"].values()) - 1.0) < 1e-5

"""jaipur_ai.VectorEnv: n rounds stepped in one compiled call (docs/ecosystem.md)."""
from __future__ import annotations

import numpy as np
import pytest

import jaipur_ai as jp
from jaipur_ai.rules import encoding as E


def seal_reward(state: jp.GameState, mover: int) -> float:
    w = state.round_winner()
    return 0.0 if w == "draw" else (1.0 if w == mover else -1.0)


def test_self_play_steps_exactly_as_the_python_api():
    env = jp.VectorEnv(3, seed=4, opponent="self")
    obs, mask = env.reset()
    ends = 0
    for _ in range(300):
        before = [env.state(i) for i in range(env.n)]
        for i, s in enumerate(before):
            assert env.to_move[i] == s.to_move
            assert (obs[i] == E.observation(s, s.to_move)).all()
            assert (mask[i] == E.action_mask(s).astype(bool)).all()
        actions = env.sample_actions().copy()
        obs, mask, reward, terminated, truncated = env.step(actions)
        for i, s in enumerate(before):
            after = s.apply(jp.Move.from_dense_index(int(actions[i])))
            if after.is_round_over:
                ends += 1
                assert terminated[i] and reward[i] == seal_reward(after, s.to_move)
                assert env.state(i).round == 1 and not env.state(i).is_round_over   # dealt afresh
            else:
                assert not terminated[i] and not truncated[i] and reward[i] == 0
                assert env.state(i) == after
    assert ends >= 3


def test_random_opponent_replies_with_a_legal_move_and_the_agent_is_seat_0():
    env = jp.VectorEnv(4, seed=9)
    env.reset()
    assert (env.to_move == 0).all()
    for i in range(env.n):
        assert env.state(i).to_move == 0
    ends = 0
    for _ in range(200):
        before = [env.state(i) for i in range(env.n)]
        actions = env.sample_actions().copy()
        obs, mask, reward, terminated, truncated = env.step(actions)
        for i, s in enumerate(before):
            after = s.apply(jp.Move.from_dense_index(int(actions[i])))
            if terminated[i]:
                ends += 1
                if after.is_round_over:
                    assert reward[i] == seal_reward(after, 0)
                else:   # the opponent's reply ended it
                    finals = [after.apply(m) for m in after.legal_moves()]
                    assert any(f.is_round_over and seal_reward(f, 0) == reward[i] for f in finals)
            else:
                assert env.state(i) in [after.apply(m) for m in after.legal_moves()]
                assert env.state(i).to_move == 0
                assert (obs[i] == E.observation(env.state(i), 0)).all()
    assert ends >= 3
    assert env.rounds_done == ends


def test_same_seed_same_rounds_and_reset_reseeds():
    def run(env, steps=60):
        env.reset()
        out = []
        for _ in range(steps):
            o, m, r, t, tr = env.step(env.sample_actions(), copy=True)
            out.append((o, r, t))
        return out
    a, b = run(jp.VectorEnv(5, seed=3)), run(jp.VectorEnv(5, seed=3))
    assert all((x[0] == y[0]).all() and (x[1] == y[1]).all() for x, y in zip(a, b))
    c = jp.VectorEnv(5, seed=8)
    first = c.reset()[0].copy()
    c.reset(seed=3)
    assert (c.obs == jp.VectorEnv(5, seed=3).reset()[0]).all()
    assert not (first == c.obs).all()


def test_illegal_action_raises_and_nothing_moves():
    env = jp.VectorEnv(2, seed=1)
    obs, mask = env.reset()
    states = [env.state(i) for i in range(2)]
    actions = env.sample_actions().copy()
    actions[1] = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(ValueError, match="env 1"):
        env.step(actions)
    assert [env.state(i) for i in range(2)] == states
    with pytest.raises(ValueError):
        env.step([0])
    with pytest.raises(jp.InvalidOptionError):
        jp.VectorEnv(2, opponent="greedy")


def test_margin_reward_and_truncation():
    env = jp.VectorEnv(2, seed=2, opponent="self", reward="margin", max_plies=5)
    env.reset()
    for ply in range(1, 6):
        before = [env.state(i) for i in range(2)]
        _, _, reward, terminated, truncated = env.step(env.sample_actions())
        if ply < 5:
            assert not truncated.any()
        else:   # no round ends in 5 plies from the deal
            assert truncated.all() and not terminated.any() and (reward == 0).all()
            assert all(env.state(i) != before[i] for i in range(2))
    env = jp.VectorEnv(1, seed=5, opponent="self", reward="margin")
    env.reset()
    while True:
        s = env.state(0)
        a = env.sample_actions().copy()
        _, _, reward, terminated, _ = env.step(a)
        if terminated[0]:
            t = s.apply(jp.Move.from_dense_index(int(a[0]))).round_totals()
            assert reward[0] == t[s.to_move] - t[1 - s.to_move]
            break

"""jaipur_ai.VectorEnv: n rounds stepped in one compiled call (docs/ecosystem.md)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

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
        jp.VectorEnv(2, opponent="nobody")


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


# ------------------------------------------------------------------ compact actions
def test_max_legal_is_the_most_legal_moves_of_any_position():
    from jaipur_ai.rules._cards import CARD_TOTALS
    from jaipur_ai.rules._movegen import max_legal_moves
    most, (market, hand, herd) = max_legal_moves(CARD_TOTALS)
    assert most == E.MAX_LEGAL
    # the position it names has that many, as the rules' own move list counts them
    s = jp.GameState.new(seed=1, starter=0)
    raw = s._core.raw()
    raw["market"], raw["hand"][0], raw["herd"][0] = market, hand, herd
    from jaipur_ai.rules._bridge import CoreState
    assert len(CoreState.from_raw(raw).legal_actions()) == E.MAX_LEGAL


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["random", "self"]), st.integers(1, 120))
def test_legal_id_lists_equal_the_mask(seed, opponent, steps):
    env = jp.VectorEnv(4, seed=seed, opponent=opponent)
    obs, mask = env.reset()
    for _ in range(steps):
        for i in range(env.n):
            k = env.n_legal[i]
            assert sorted(env.legal_ids[i, :k]) == list(np.flatnonzero(mask[i]))
            assert (env.legal_ids[i, k:] == -1).all() and 1 <= k <= E.MAX_LEGAL
        obs, mask, *_ = env.step(env.sample_actions())


def test_index_actions_and_no_mask_play_the_same_rounds():
    dense = jp.VectorEnv(6, seed=9, opponent="self")
    index = jp.VectorEnv(6, seed=9, opponent="self", actions="index", mask=False)
    dense.reset()
    obs, mask = index.reset()
    assert mask is None and index.mask is None
    rng = np.random.default_rng(2)
    for _ in range(300):
        pick = (rng.random(6) * index.n_legal).astype(np.int64)
        ids = index.legal_ids[np.arange(6), pick].astype(np.int64)
        a = dense.step(ids, copy=True)
        b = index.step(pick, copy=True)
        assert (a[0] == b[0]).all() and (a[2] == b[2]).all() and (a[3] == b[3]).all()
        assert (dense.legal_ids == index.legal_ids).all()
    # an index past the list, or an illegal dense id without a mask, is refused by name
    with pytest.raises(ValueError, match="env 0: action 999 is not an index"):
        index.step(np.full(6, 999))
    plain = jp.VectorEnv(2, seed=1, mask=False)
    plain.reset()
    bad = np.array([plain.legal_ids[0, 0], 25_000])
    with pytest.raises(ValueError, match="env 1: action 25000 is not legal"):
        plain.step(bad)
    with pytest.raises(jp.InvalidOptionError, match="actions"):
        jp.VectorEnv(2, actions="sparse")


def test_index_sampling_draws_indices():
    env = jp.VectorEnv(16, seed=5, actions="index")
    env.reset()
    for _ in range(50):
        a = env.sample_actions()
        assert ((0 <= a) & (a < env.n_legal)).all()
        env.step(a)


# ------------------------------------------------------------------ opponents, Gymnasium
def test_an_external_opponent_plays_exactly_the_moves_it_returns():
    asked = []

    def first_legal(view):
        asked.append(view)
        return view.legal_moves()[-1]
    env = jp.VectorEnv(5, seed=8, opponent=first_legal)
    obs, mask = env.reset()
    states = [env.state(i) for i in range(env.n)]
    for _ in range(150):
        actions = env.sample_actions().copy()
        obs, mask, reward, terminated, truncated = env.step(actions)
        for i, s in enumerate(states):
            s = s.apply(jp.Move.from_dense_index(int(actions[i])))
            while not s.is_round_over and s.to_move == 1:
                s = s.apply(s.view(1).legal_moves()[-1])
            if s.is_round_over:
                assert terminated[i] and reward[i] == seal_reward(s, 0)
                assert (env.final_obs[i] == E.observation(s, 0)).all()
                states[i] = env.state(i)        # dealt afresh
            else:
                assert not terminated[i] and s == env.state(i)
                assert (obs[i] == E.observation(s, 0)).all()
                states[i] = s
    assert asked and all(v.observer == 1 for v in asked)


@pytest.mark.parametrize("opponent", ["greedy", "learned", "ismcts:iterations=30"])
def test_stronger_opponents_beat_a_random_agent(opponent):
    env = jp.VectorEnv(8, seed=2, opponent=opponent)
    env.reset()
    won = lost = 0
    for _ in range(120 if opponent.startswith("ismcts") else 400):
        _, _, reward, terminated, _ = env.step(env.sample_actions())
        won += int((reward > 0).sum())
        lost += int((reward < 0).sum())
    assert lost > 5 * max(1, won), (won, lost)
    with pytest.raises(jp.InvalidOptionError, match="opponent"):
        jp.VectorEnv(2, opponent="nobody:iterations=3")
    with pytest.raises(jp.InvalidOptionError, match="weights"):
        jp.VectorEnv(2, opponent="greedy", weights="x.npz")


def test_gymnasium_vector_env_by_make_vec():
    gymnasium = pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")
    from jaipur_ai.gymnasium import ENV_ID, JaipurVectorEnv
    for actions in ("dense", "index"):
        envs = gymnasium.make_vec(ENV_ID, num_envs=6, vectorization_mode="vector_entry_point",
                                  opponent="greedy", actions=actions)
        assert isinstance(envs, JaipurVectorEnv)
        assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
        obs, info = envs.reset(seed=3)
        assert envs.observation_space.contains(obs)
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(300):
            if actions == "dense":
                act = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
            else:
                act = np.array([rng.integers((ids >= 0).sum()) for ids in obs["legal_ids"]])
            assert envs.action_space.contains(act)
            obs, reward, terminated, truncated, info = envs.step(act)
            assert envs.observation_space.contains(obs)
            assert reward.shape == (6,) and terminated.dtype == bool
            if terminated.any() or truncated.any():
                done = terminated | truncated
                assert (info["_final_obs"] == done).all()
                for i in np.flatnonzero(done):
                    assert envs.single_observation_space.contains(info["final_obs"][i])
                ended += int(done.sum())
        assert ended > 0
        envs.close()
    # the same seed, the same rounds
    a = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point")
    b = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point")
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    assert (oa["observation"] == ob["observation"]).all()


def first_legal(view: jp.View) -> jp.Move:
    """A deterministic opponent: the legal move with the lowest dense id."""
    return min(view.legal_moves(), key=lambda m: m.dense_index)


@pytest.mark.parametrize("actions", ["dense", "index"])
def test_gymnasium_vector_env_equals_single_envs_stepped_by_hand(actions):
    """Round i of JaipurVectorEnv reset with seed s is JaipurEnv(seat=0) reset with s + i:
    the same deals, observations, legal moves, rewards and ends, through the auto-resets."""
    pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")
    from jaipur_ai.gymnasium import JaipurEnv, JaipurVectorEnv
    n, seed = 4, 21
    vec = JaipurVectorEnv(n, opponent=first_legal, actions=actions, reward="margin")
    singles = [JaipurEnv(opponent=first_legal, seat=0, actions=actions, reward="margin")
               for _ in range(n)]
    key = "legal_ids" if actions == "index" else "action_mask"

    def same(i: int, vec_obs: dict, one: dict) -> None:
        assert (vec_obs["observation"][i] == one["observation"]).all()
        assert (vec_obs[key][i] == one[key]).all()

    obs, info = vec.reset(seed=seed)
    ones = []
    for i, env in enumerate(singles):
        one, one_info = env.reset(seed=seed + i)
        assert int(info["deal_seed"][i]) == one_info["deal_seed"]
        same(i, obs, one)
        ones.append(one)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(250):
        if actions == "index":
            act = np.array([rng.integers((o["legal_ids"] >= 0).sum()) for o in ones])
        else:
            act = np.array([rng.choice(np.flatnonzero(o["action_mask"])) for o in ones])
        obs, reward, terminated, truncated, info = vec.step(act)
        for i, env in enumerate(singles):
            one, r, te, tr, _ = env.step(int(act[i]))
            assert (r, te, tr) == (reward[i], terminated[i], truncated[i])
            if te or tr:
                ended += 1
                assert (info["final_obs"][i]["observation"] == one["observation"]).all()
                one, one_info = env.reset()
                assert info["_deal_seed"][i] and int(info["deal_seed"][i]) == one_info["deal_seed"]
            same(i, obs, one)
            ones[i] = one
    assert ended >= n


@pytest.mark.parametrize("kwargs,field", [
    ({"n": 2**70}, "n"), ({"n": True}, "n"), ({"n": 0}, "n"), ({"n": 2.0}, "n"),
    ({"n": 2, "max_plies": 2**70}, "max_plies"), ({"n": 2, "max_plies": 0}, "max_plies"),
    ({"n": 2, "seed": -1}, "seed"), ({"n": 2, "seed": 1.5}, "seed"),
    ({"n": 2, "seed": 2**64}, "seed"), ({"n": 2, "seed": True}, "seed"),
])
def test_bad_sizes_and_seeds_are_refused_by_name(kwargs, field):
    with pytest.raises(jp.InvalidOptionError) as e:
        jp.VectorEnv(**kwargs)
    assert e.value.field == field
    env = jp.VectorEnv(1, seed=3)
    if field == "seed":
        with pytest.raises(jp.InvalidOptionError) as e:
            env.reset(seed=kwargs["seed"])
        assert e.value.field == "seed" and env._seed == 3


def test_a_vector_env_seeded_with_none_says_the_seed_it_drew():
    env = jp.VectorEnv(2, seed=None)
    drawn = env._seed
    assert f"seed={drawn}" in repr(env)
    again = jp.VectorEnv(2, seed=drawn)
    assert (env.reset()[0] == again.reset()[0]).all()
    assert jp.VectorEnv(1, seed=2**64 - 1)._seed == 2**64 - 1

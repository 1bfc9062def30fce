"""The framework adapters against each framework's own conformance checks
(docs/ecosystem.md).  Each module is skipped when its framework is not installed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import jaipur_ai as jp
from jaipur_ai.rules import encoding


# --------------------------------------------------------------------------- gymnasium
def test_gymnasium_check_env():
    gymnasium = pytest.importorskip("gymnasium")
    from gymnasium.utils.env_checker import check_env
    from jaipur_ai.gymnasium import ENV_ID, JaipurEnv
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # check_env's advice on render fps and specs
        check_env(JaipurEnv(opponent="greedy"))
        check_env(gymnasium.make(ENV_ID, opponent="random", render_mode="ansi").unwrapped)


def test_gymnasium_episode_against_greedy_ends_with_the_seal():
    pytest.importorskip("gymnasium")
    from jaipur_ai.gymnasium import JaipurEnv
    env = JaipurEnv(opponent="greedy", seat=1)
    obs, info = env.reset(seed=11)
    assert info["seat"] == 1 and env.state.to_move == 1
    rng = np.random.default_rng(0)
    for _ in range(400):
        assert (obs["action_mask"] == encoding.action_mask(env.state)).all()
        assert (obs["observation"] == encoding.observation(env.state, 1)).all()
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break
        assert reward == 0
    assert terminated and env.state.is_round_over
    w = env.state.round_winner()
    assert reward == (0 if w == "draw" else (1 if w == 1 else -1))
    assert not obs["action_mask"].any()


def test_gymnasium_illegal_action_ends_the_episode():
    pytest.importorskip("gymnasium")
    from jaipur_ai.gymnasium import JaipurEnv
    env = JaipurEnv(opponent="random")
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, info) == (-1.0, True, {"illegal_action": True})
    with pytest.raises(RuntimeError):
        env.step(0)


# --------------------------------------------------------------------------- pettingzoo
def test_pettingzoo_api_test_and_seed_test():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, seed_test
    from jaipur_ai.pettingzoo import env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # its advice to use Box/Discrete observations
        api_test(env(), num_cycles=300, verbose_progress=False)
        seed_test(env, num_cycles=300)


def test_pettingzoo_plays_rounds_to_the_seal():
    pytest.importorskip("pettingzoo")
    from jaipur_ai.pettingzoo import env
    e = env()
    for seed in range(3):
        e.reset(seed=seed)
        totals = {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter(max_iter=2000):
            obs, reward, termination, truncation, _ = e.last()
            totals[agent] += reward
            if termination or truncation:
                e.step(None)
                continue
            assert obs["action_mask"].sum() == len(e.unwrapped.state.legal_moves())
            e.step(e.action_space(agent).sample(obs["action_mask"]))
        state = e.unwrapped.state
        assert state.is_round_over
        w = state.round_winner()
        assert totals == ({"player_0": 0.0, "player_1": 0.0} if w == "draw" else
                          {f"player_{w}": 1.0, f"player_{1 - w}": -1.0})


def test_the_core_imports_no_framework():
    """``import jaipur_ai`` (and the VectorEnv, the encoding) needs only numpy."""
    import subprocess
    import sys
    code = ("import sys, jaipur_ai, jaipur_ai.rules.encoding, jaipur_ai.vecenv\n"
            "bad = [m for m in ('gymnasium', 'pettingzoo', 'pyspiel', 'open_spiel') if m in sys.modules]\n"
            "assert not bad, bad\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------ index actions
def test_single_envs_in_index_mode_list_the_legal_ids():
    pytest.importorskip("gymnasium", reason="the gymnasium extra is not installed")
    from gymnasium.utils.env_checker import check_env
    from jaipur_ai.gymnasium import JaipurEnv
    env = JaipurEnv(opponent="greedy", actions="index")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=4)
    assert env.action_space.n == encoding.MAX_LEGAL
    rng = np.random.default_rng(1)
    done = False
    while not done:
        state = env.state
        n = int(obs["action_mask"].sum())
        ids = obs["legal_ids"]
        assert sorted(ids[:n]) == sorted(encoding.legal_dense_ids(state)) and (ids[n:] == -1).all()
        a = int(rng.integers(n))
        obs, reward, terminated, truncated, info = env.step(a)
        assert info.get("move") == str(jp.Move.from_dense_index(int(ids[a])))
        done = terminated or truncated
    obs, _ = env.reset(seed=5)
    _, reward, terminated, _, info = env.step(encoding.MAX_LEGAL - 1)   # past the list
    assert terminated and info["illegal_action"]


def test_pettingzoo_in_index_mode():
    pytest.importorskip("pettingzoo", reason="the pettingzoo extra is not installed")
    from pettingzoo.test import api_test
    from jaipur_ai.pettingzoo import env as jaipur_env, raw_env
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(jaipur_env(actions="index"), num_cycles=200)
    e = raw_env(actions="index")
    e.reset(seed=3)
    obs = e.observe(e.agent_selection)
    assert e.action_space(e.agent_selection).n == encoding.MAX_LEGAL
    with pytest.raises(jp.JaipurError, match="names no legal move"):
        e.step(int(obs["action_mask"].sum()))

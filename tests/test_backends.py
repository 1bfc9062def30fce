"""The backends' interface without Ray (jaipur_ai/matches/backends.py): the local pool, stopping,
a game that comes back twice, and the errors of --backend and --address (Ray missing,
a cluster that cannot be reached) with a stand-in for the ray module."""
from __future__ import annotations

import sys
import types
from contextlib import closing

import pytest

from jaipur_ai.matches.backends import BackendError, LocalBackend, RayBackend, make_backend
from jaipur_ai.doors.cli import main
from jaipur_ai.errors import InvalidOptionError, MissingExtraError
from jaipur_ai.matches.runner import run_match


def _key(res):
    return [(r.deal, r.a_seat, r.winner, r.points, tuple(r.moves)) for r in res.records]


def test_local_map_one_and_two_workers_same_results():
    tasks = list(range(-6, 7))
    one = list(LocalBackend(1).map(abs, tasks))
    assert one == [abs(t) for t in tasks]                    # in order, in this process
    assert sorted(LocalBackend(2).map(abs, iter(tasks))) == sorted(one)


def test_local_map_stops_and_closes_early():
    seen: list = []
    for x in LocalBackend(1).map(abs, range(10), should_stop=lambda: len(seen) >= 3):
        seen.append(x)
    assert seen == [0, 1, 2]
    with closing(LocalBackend(2).map(abs, range(1000))) as it:   # the pool is ended
        first = next(it)
    assert first in range(1000)


class _Twice(LocalBackend):
    """Every result comes back twice (as a task run again would)."""

    def map(self, fn, tasks, should_stop=None):
        for r in super().map(fn, tasks, should_stop):
            yield r
            yield r


def test_a_game_that_comes_back_twice_counts_once(tmp_path):
    f = tmp_path / "r.jsonl"
    whole = run_match("greedy", "random", games=3, seed=4)
    twice = run_match("greedy", "random", games=3, seed=4, backend=_Twice(), out=str(f))
    assert _key(twice) == _key(whole) and twice.n_games == 6 and not twice.interrupted
    assert len(f.read_text().splitlines()) == 1 + 6


def test_backend_and_address_checked():
    with pytest.raises(InvalidOptionError) as e:
        make_backend("cluster")
    assert e.value.field == "backend"
    with pytest.raises(BackendError) as e:
        make_backend("local", address="10.0.0.1:6379")
    assert e.value.field == "address"
    with pytest.raises(InvalidOptionError) as e:
        make_backend("local", workers=0)
    assert e.value.field == "workers"
    with pytest.raises(InvalidOptionError):
        run_match("greedy", "random", games=1, backend=3)


def test_cli_bad_backend_and_address_one_line_exit_2(capsys):
    assert main(["match", "greedy", "random", "--backend", "cluster"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jaipur-ai: error: --backend: must be one of local, ray") \
        and err.count("\n") == 1
    assert main(["match", "greedy", "random", "--backend", "ray", "--address", "a b"]) == 2
    assert "--address: expected HOST:PORT" in capsys.readouterr().err
    assert main(["selfplay", "x", "--address", "10.0.0.1:6379"]) == 2
    assert "--address: only with the ray backend" in capsys.readouterr().err


@pytest.mark.parametrize("cmd", [
    ["match", "greedy", "random", "--games", "1", "--backend", "ray"],
    ["selfplay", "{d}", "--rounds", "2", "--engine", "policy", "--backend", "ray"],
    ["learn", "{d}", "--backend", "ray"],
])
def test_ray_missing_names_the_flag_and_the_extra(cmd, monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)          # import ray fails
    d = tmp_path / "out"
    assert main([c.replace("{d}", str(d)) for c in cmd]) == 2
    err = capsys.readouterr().err
    assert err.startswith('jaipur-ai: error: --backend: ray is not installed: pip install '
                          '"jaipur-ai[ray]"') and err.count("\n") == 1
    assert not d.exists()                                   # nothing written first
    with pytest.raises(MissingExtraError) as e:
        run_match("greedy", "random", games=1, backend="ray")
    assert e.value.field == "backend"


def _fake_ray(init_error: Exception) -> types.ModuleType:
    ray = types.ModuleType("ray")
    ray.is_initialized = lambda: False                     # type: ignore[attr-defined]

    def init(**kw):
        raise init_error
    ray.init = init                                        # type: ignore[attr-defined]
    return ray


@pytest.mark.parametrize("error", [ConnectionError("Could not find any running Ray "
                                                   "instance."),
                                   TimeoutError("timed out waiting for the GCS")])
def test_unreachable_cluster_is_an_address_error(error, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", _fake_ray(error))
    with pytest.raises(BackendError) as e:
        RayBackend(address="auto").start()
    assert e.value.field == "address" and "cannot start or reach Ray at auto" in e.value.reason
    assert main(["match", "greedy", "random", "--games", "1", "--backend", "ray",
                 "--address", "10.0.0.1:6379", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jaipur-ai: error: --address: cannot start or reach Ray at "
                          "10.0.0.1:6379")

"""jaipur_ai.client: the engine protocol driven from Python, against a real
``jaipur-ai serve`` child process (each test bounds its waits: a guard, not a timing
check)."""
from __future__ import annotations

import threading

import pytest

import jaipur_ai as jp
from jaipur_ai.client import SERVE_COMMAND, EngineClient, EngineError, EngineTerminated

STATE = jp.GameState.new(seed=7, starter=0)


@pytest.fixture
def engine():
    with EngineClient.popen() as e:
        yield e


def test_the_client_gets_the_same_analysis_as_the_api(engine):
    got = engine.analyse(STATE, iterations=800, seed=3)
    want = jp.Engine(seed=3, settings=jp.Settings(max_nodes=1_000_000)).analyse(
        STATE, iterations=800)
    assert got["best"] == str(want.best)
    assert [c["visits"] for c in got["candidates"]] == [c.visits for c in want.candidates]
    assert engine.best_move(STATE.view(0), iterations=800, seed=3) == want.best
    assert engine.version()["protocol"] == 1


def test_an_error_answer_is_an_engine_error_naming_the_field(engine):
    with pytest.raises(EngineError) as e:
        engine.analyse("S nonsense", iterations=10)
    assert e.value.field.startswith("position") or e.value.field == "text"
    with pytest.raises(EngineError) as e:
        engine.analyse(STATE, time=10_000)
    assert e.value.field == "time" and e.value.type == "LimitError"
    assert engine.best_move(STATE, iterations=50, seed=1) in STATE.legal_moves()  # serves on


def test_searches_in_flight_at_once_each_get_their_answer(engine):
    out: dict = {}

    def ask(k: int) -> None:
        out[k] = engine.analyse(STATE, iterations=300 + k, seed=k)["iterations"]
    threads = [threading.Thread(target=ask, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert out == {k: 300 + k for k in range(4)}


def test_a_followed_analysis_reports_and_stops_when_closed(engine):
    seen = []
    for answer in engine.analysis(STATE, report_every=0.05, time=60):
        seen.append(answer)
        if len(seen) == 2:
            break                                   # closing it stops the search
    assert all(a["final"] is False for a in seen)
    assert engine.best_move(STATE, iterations=50, seed=1) in STATE.legal_moves()


def test_a_dead_engine_is_engine_terminated():
    e = EngineClient.popen()
    e.process.kill()
    e.process.wait(30)
    with pytest.raises(EngineTerminated):
        e.analyse(STATE, iterations=10)
    e.quit()


def test_the_serve_command_is_this_library():
    assert SERVE_COMMAND[-3:] == ("-m", "jaipur_ai", "serve")

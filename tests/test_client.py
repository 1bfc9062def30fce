"""jaipur_ai.client: the engine protocol driven from Python, against a real
``jaipur-ai serve`` child process (each test bounds its waits: a guard, not a timing
check)."""
from __future__ import annotations

import threading

import pytest

import jaipur_ai as jp
from jaipur_ai.client import SERVE_COMMAND, EngineClient, EngineError, EngineTerminated
from jaipur_ai.search.analysis import Analysis

STATE = jp.GameState.new(seed=7, starter=0)


@pytest.fixture
def engine():
    with EngineClient.popen() as e:
        yield e


def test_the_client_gets_the_same_analysis_as_the_api(engine):
    got = engine.analyse(STATE, iterations=800, seed=3)
    want = jp.Engine(seed=3, settings=jp.Settings(max_nodes=1_000_000)).analyse(
        STATE, iterations=800)
    assert isinstance(got, Analysis)               # typed, as jp.analyse gives it
    assert got.best == want.best
    assert [(c.move, c.visits, c.pv) for c in got] == [(c.move, c.visits, c.pv) for c in want]
    assert got.options == want.options and got.seed == want.seed
    assert engine.best_move(STATE.view(0), iterations=800, seed=3) == want.best
    assert engine.version()["protocol"] == 2


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
        out[k] = engine.analyse(STATE, iterations=300 + k, seed=k).iterations
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
    assert all(isinstance(a, Analysis) and not a.stopped for a in seen)
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


# ------------------------------------------------------------------ issue 51, item 10
def within(seconds: float, fn, *args, **kw):
    """fn(*args, **kw) in a thread: its result, or the exception it raised; a failure
    when it has not returned after ``seconds`` (a guard against a hang, not a timing)."""
    out: list = []

    def run() -> None:
        try:
            out.append((True, fn(*args, **kw)))
        except BaseException as e:      # noqa: BLE001 - handed to the test
            out.append((False, e))
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert out, f"no return within {seconds} s"
    ok, value = out[0]
    if not ok:
        raise value
    return value


@pytest.mark.parametrize("options", [
    {"iteration": 10},                                  # a typo: refused, not ignored
    {"exploraton": 0.1},
    {"xyzzy": 1},
    {"iterations": -1},
    {"time": float("nan")},
    {"threads": 0},
    {"top": 0},
    {"seed": "x"},
    {"exploration": "high"},
    {"evaluation": "handset", "weights": "w.npz"},
    {"time": 1, "time_left": 10},
    {"increment": 1},
])
def test_the_client_refuses_what_the_api_refuses_with_the_same_error(options):
    with pytest.raises(jp.InvalidOptionError) as want:
        jp.analyse(STATE, **options)
    e = EngineClient(FakeProcess())          # nothing reaches an engine: checked first
    with pytest.raises(jp.InvalidOptionError) as got:
        within(20, e.analyse, STATE, **options)
    assert (got.value.field, got.value.reason) == (want.value.field, want.value.reason)
    assert type(got.value) is type(want.value)
    assert e.process.written == b""


class FakeProcess:
    """A process that takes what is written and never answers (output: end at once)."""

    def __init__(self) -> None:
        import io
        self.written = b""
        self.stdout = io.BytesIO(b"")
        outer = self

        class In:
            def write(self, data: bytes) -> None:
                outer.written += data

            def flush(self) -> None:
                pass

            def close(self) -> None:
                pass
        self.stdin = In()

    def wait(self, timeout=None) -> int:
        return 0


FAKE_ENGINE = r"""
import json, sys
mode = sys.argv[1]
for line in sys.stdin:
    req = json.loads(line)
    rid, action = req.get("id"), req.get("action")
    if mode == "silent" or action == "terminate":
        continue
    if action == "version":
        print(json.dumps({"id": rid, "action": "version", "limits": {"max_time": 1}}))
    elif mode == "error-string":
        print(json.dumps({"id": rid, "action": action, "error": "boom"}))
    elif mode == "error-list":
        print(json.dumps({"id": rid, "action": action, "error": ["boom"]}))
    elif mode == "list":
        print(json.dumps(["boom"]))
    elif mode == "not-json":
        print("hello")
    elif mode == "bad-move":
        print(json.dumps({"id": rid, "action": "analyse", "best": "fly", "final": True,
                          "candidates": [{"move": "fly", "visits": 1}]}))
    elif mode == "bad-visits":
        print(json.dumps({"id": rid, "action": "analyse", "best": "take S", "final": True,
                          "candidates": [{"move": "take S", "visits": "many"}]}))
    elif mode == "quiet-search":
        pass                          # answers version, never a search
    sys.stdout.flush()
"""


def fake(mode: str, **kw) -> EngineClient:
    import sys
    return EngineClient.popen([sys.executable, "-c", FAKE_ENGINE, mode], **kw)


@pytest.mark.parametrize("mode,field", [
    ("error-string", "error"),
    ("error-list", "error"),
    ("list", "request"),
    ("not-json", "request"),
    ("bad-move", "candidates[0].move"),
    ("bad-visits", "candidates[0].visits"),
])
def test_a_malformed_answer_is_a_typed_error_naming_its_field(mode, field):
    from jaipur_ai.client import EngineProtocolError
    e = fake(mode, timeout=20)                         # (20 s: a guard, never reached)
    try:
        with pytest.raises(EngineProtocolError) as err:
            within(30, e.analyse, STATE, iterations=10)
    finally:
        e.process.kill()
        e.quit()
    assert err.value.field == field and err.value.type == "ProtocolError"


@pytest.mark.parametrize("mode,limits", [
    ("silent", {"iterations": 10}),              # not even a version answer
    ("quiet-search", {"iterations": 10}),        # its time limit (1 s) + the timeout
    ("quiet-search", {"time": 0.5}),
])
def test_a_silent_engine_is_a_timeout_not_a_hang(mode, limits):
    # the waits are bounded by the timeout (0.5 s past what the search may take); the
    # test waits for the error with a bound of its own: a guard, not a timing
    from jaipur_ai.client import EngineTimeout
    out: list = []

    def ask() -> None:
        e = fake(mode, timeout=0.5)
        try:
            e.best_move(STATE, **limits)
        except EngineTimeout as err:
            out.append(err)
        finally:
            e.process.kill()
            e.quit()
    t = threading.Thread(target=ask, daemon=True)
    t.start()
    t.join(60)
    assert out and "no answer" in out[0].reason


def test_error_answers_are_the_librarys_typed_errors(engine):
    with pytest.raises(jp.InvalidPositionError) as e:
        within(60, engine.analyse, "V 1.0.0.00.- 0 GSMMM 40", iterations=10)
    assert isinstance(e.value, EngineError) and e.value.field.startswith("position")
    with pytest.raises(jp.InvalidOptionError) as e2:     # the server's own limit
        within(60, engine.analyse, STATE, time=10_000)
    assert e2.value.field == "time" and e2.value.type == "LimitError"

"""``jaipur-ai serve``: the JSON-lines engine protocol (docs/protocol.md).

Most tests talk to a real server process over pipes, as a frontend would; a few
drive :class:`jaipur_ai.doors.serve.Server` in-process with StringIO where that is
simpler.  Limits are small and nothing asserts on clocks: a search that "ended
early" is one whose iteration count is far below what was asked.
"""
from __future__ import annotations

import importlib.util
import io
import json
import random
import os
import queue
import subprocess
import sys
import threading

import pytest

import jaipur_ai as jp
from jaipur_ai.doors import serve
from jaipur_ai.doors import requests as serve_requests
from jaipur_ai.doors.serve import Server

HAVE_ENGINE = importlib.util.find_spec("jaipur_ai.search.engine") is not None
needs_engine = pytest.mark.skipif(not HAVE_ENGINE, reason="jaipur_ai.search.engine not built yet")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVE_CMD = [sys.executable, "-m", "jaipur_ai", "serve"]

TIMEOUT = 30.0   # a guard against a hung server, never a timing assertion

STATE = jp.GameState.new(seed=7, starter=0)
TEXT = STATE.to_text()
BIG = 10**7      # iterations no test ever waits for (the server's default limit)


def play_random(state: jp.GameState, seed: int):
    """The states of a round played by uniformly random moves, to its end."""
    rng = random.Random(seed)
    while not state.is_round_over:
        state = state.apply(rng.choice(state.legal_moves()))
        yield state


def finished_state() -> jp.GameState:
    s = STATE
    for s in play_random(STATE, 3):
        pass
    assert s.is_round_over
    return s


class ServerProcess:
    """A server process and a reader thread that parses what it writes."""

    def __init__(self, *args: str) -> None:
        env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(SERVE_CMD + list(args), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=ROOT, env=env)
        self.lines: queue.Queue = queue.Queue()
        self.raw: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.raw.append(line)
            self.lines.put(json.loads(line))   # every line is one JSON object
        self.lines.put(None)

    def send(self, obj) -> None:
        data = obj if isinstance(obj, bytes) else (
            obj if isinstance(obj, str) else json.dumps(obj)).encode()
        self.proc.stdin.write(data.rstrip(b"\n") + b"\n")
        self.proc.stdin.flush()

    def recv(self) -> dict:
        msg = self.lines.get(timeout=TIMEOUT)
        assert msg is not None, "the server closed its output"
        return msg

    def ask(self, obj) -> dict:
        """A request that needs no search: its answer is the next line."""
        self.send(obj)
        return self.recv()

    def final(self, rid) -> tuple[dict, list[dict]]:
        """Read until the final answer (or error) of ``rid``; returns it and the
        partial answers of ``rid`` before it (other ids' lines are dropped)."""
        partials = []
        while True:
            msg = self.recv()
            if msg.get("id") != rid or msg.get("action") == "terminate":
                continue
            if "error" in msg or msg.get("final") is True:
                return msg, partials
            assert msg["final"] is False
            partials.append(msg)

    def close(self) -> int:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            rc = self.proc.wait(timeout=TIMEOUT)
        finally:
            if self.proc.poll() is None:  # pragma: no cover - a hung server
                self.proc.kill()
                self.proc.wait()
        self._reader.join(TIMEOUT)
        err = self.proc.stderr.read().decode(errors="replace")
        assert "Traceback" not in err, err
        return rc


@pytest.fixture(scope="module")
def server():
    e = ServerProcess()
    yield e
    assert e.close() == 0


def candidates(msg: dict) -> list:
    return [(c["move"], c["visits"]) for c in msg["candidates"]]


# --------------------------------------------------------------------------- no search
def test_version_and_help(server):
    v = server.ask({"id": "v1", "action": "version"})
    assert v["id"] == "v1" and v["action"] == "version"
    assert v["version"] == jp.__version__ and v["protocol"] == serve.PROTOCOL_VERSION
    assert "jaipur-state/1" in v["formats"] and "ismcts" in v["algorithms"]
    for name in ("help", "actions"):
        h = server.ask({"id": 2, "action": name})
        assert h["id"] == 2 and h["action"] == name
        assert set(h["actions"]) >= {"analyse", "legal_moves", "apply", "view", "result",
                                     "terminate", "quit", "version", "help"}


def test_legal_moves_text_object_and_view(server):
    want = [str(m) for m in STATE.legal_moves()]
    ids = [m.action_id for m in STATE.legal_moves()]
    for pos in (TEXT, STATE.to_dict(), STATE.to_json()):
        r = server.ask({"id": 3, "action": "legal_moves", "position": pos})
        assert r["id"] == 3 and r["moves"] == want and r["action_ids"] == ids
        assert r["to_move"] == 0
    r = server.ask({"id": 4, "action": "legal_moves", "position": STATE.view(0).to_text()})
    assert r["moves"] == want
    r = server.ask({"id": 5, "action": "legal_moves", "position": STATE.view(1).to_dict()})
    assert r["error"]["type"] == "InvalidPositionError"
    assert r["error"]["field"] == "position.to_move"


def test_apply_keeps_the_form(server):
    after = STATE.apply("take G")
    r = server.ask({"id": "t", "action": "apply", "position": TEXT, "move": "Take gold"})
    assert r["position"] == after.to_text() and r["move"] == "take G" and r["action_id"] == 1
    assert r["to_move"] == 1 and r["result"] is None and r["round_over"] is False
    r = server.ask({"id": "o", "action": "apply", "position": STATE.to_dict(), "move": 1})
    assert r["position"] == after.to_dict()
    r = server.ask({"id": "j", "action": "apply", "position": STATE.to_json(), "move": "take G"})
    assert isinstance(r["position"], str) and jp.GameState.from_json(r["position"]) == after


def test_apply_the_last_move_of_a_round(server):
    s = STATE
    for s in play_random(STATE, 3):
        if not s.is_round_over:
            before = s
    last = next(m for m in before.legal_moves() if before.apply(m) == s)
    r = server.ask({"id": 1, "action": "apply", "position": before.to_text(), "move": str(last)})
    assert r["round_over"] is True and r["result"] == s.result
    assert r["seals"] == list(s.seals) and r["position"] == s.to_text()


def test_view(server):
    for player in (0, 1):
        r = server.ask({"id": player, "action": "view", "position": TEXT, "player": player})
        assert r["position"] == STATE.view(player).to_text() and r["player"] == player
    r = server.ask({"action": "view", "position": STATE.to_dict(), "player": 1})
    assert r["id"] is None and r["position"] == STATE.view(1).to_dict()


def test_result(server):
    end = finished_state()
    r = server.ask({"id": "r", "action": "result", "position": end.to_text()})
    assert r["round_over"] is True and r["result"] == end.result == r["winner"]
    assert r["totals"] == list(end.round_totals()) and r["seals"] == list(end.seals)
    assert r["match_over"] is False and r["match_winner"] is None
    r = server.ask({"id": "r2", "action": "result", "position": TEXT})
    assert r["round_over"] is False and r["result"] is None and r["winner"] is None


def test_unknown_fields_are_ignored(server):
    r = server.ask({"id": 9, "action": "legal_moves", "position": TEXT, "colour": "blue",
                    "options": {"x": 1}, "protocol": 99})
    assert "error" not in r and r["moves"] == [str(m) for m in STATE.legal_moves()]


def test_ids_are_echoed_as_given(server):
    for rid in ("abc", 0, -3, 2.5, True, None, "ü"):
        assert server.ask({"id": rid, "action": "version"})["id"] == rid


# --------------------------------------------------------------------------- bad input
_IMPOSSIBLE = STATE.to_dict()
_IMPOSSIBLE["players"][0]["hand"] = "DDDDDDDD"

BAD = [
    # (request line, expected id, error type, error field)
    (b'{"id": 7, "action": "version"', 7, "InvalidRequestError", None),
    (b"hello", None, "InvalidRequestError", None),
    (b"[1, 2]", None, "InvalidRequestError", None),
    (b"null", None, "InvalidRequestError", None),
    (b'{"id": "x", "time": NaN, "position": "' + TEXT.encode() + b'"}',
     "x", "InvalidRequestError", None),
    (b'\xff\xfe{"id": 1}', None, "InvalidRequestError", None),
    ({"id": [1], "action": "version"}, None, "InvalidRequestError", "id"),
    ({"id": 1, "action": "fly"}, 1, "InvalidRequestError", "action"),
    ({"id": 1, "action": 5}, 1, "InvalidRequestError", "action"),
    ({"id": 2, "action": "legal_moves"}, 2, "InvalidRequestError", "position"),
    ({"id": 3, "action": "apply", "position": TEXT}, 3, "InvalidRequestError", "move"),
    ({"id": 4, "action": "view", "position": TEXT}, 4, "InvalidRequestError", "player"),
    ({"id": 5, "action": "view", "position": TEXT, "player": 2}, 5, "InvalidRequestError",
     "player"),
    ({"id": 6, "action": "legal_moves", "position": "S nonsense"}, 6,
     "InvalidPositionError", "position"),
    ({"id": 7, "action": "legal_moves", "position": 42}, 7, "InvalidRequestError", "position"),
    ({"id": 8, "action": "legal_moves", "position": _IMPOSSIBLE}, 8,
     "InvalidPositionError", "position.players[0].hand"),
    ({"id": 9, "action": "legal_moves", "position": {"format": "chess"}}, 9,
     "InvalidPositionError", "position.format"),
    ({"id": 10, "action": "apply", "position": TEXT, "move": "sell 3D"}, 10,
     "IllegalMoveError", "move"),
    ({"id": 11, "action": "apply", "position": TEXT, "move": "dance"}, 11,
     "InvalidMoveError", "move"),
    ({"id": 12, "action": "apply", "position": TEXT, "move": 10**7}, 12,
     "InvalidMoveError", "move"),
    ({"id": 13, "action": "apply", "position": STATE.view(0).to_text(), "move": "take G"}, 13,
     "InvalidPositionError", "position"),
    ({"id": 14, "action": "result", "position": STATE.view(0).to_dict()}, 14,
     "InvalidPositionError", "position"),
    ({"id": 15, "action": "analyse", "position": finished_state().to_text(), "iterations": 10},
     15, "InvalidPositionError", "position.result"),
    ({"id": 16, "position": TEXT, "time": -1}, 16, "InvalidRequestError", "time"),
    ({"id": 17, "position": TEXT, "time": "fast"}, 17, "InvalidRequestError", "time"),
    ({"id": 18, "position": TEXT, "iterations": -1}, 18, "InvalidRequestError", "iterations"),
    ({"id": 19, "position": TEXT, "iterations": 2.5}, 19, "InvalidRequestError", "iterations"),
    ({"id": 20, "position": TEXT, "iterations": 10, "top": 0}, 20, "InvalidRequestError", "top"),
    ({"id": 21, "position": TEXT, "iterations": 10, "seed": -1}, 21,
     "InvalidRequestError", "seed"),
    ({"id": 22, "position": TEXT, "time": 1, "report_every": 0}, 22,
     "InvalidRequestError", "report_every"),
    ({"id": 23, "position": TEXT, "iterations": True}, 23, "InvalidRequestError", "iterations"),
    ({"id": 24, "position": STATE.view(1).to_text(), "iterations": 10}, 24,
     "InvalidPositionError", "position.to_move"),
]


@pytest.mark.parametrize("line,rid,etype,field", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_input_then_a_good_request(server, line, rid, etype, field):
    r = server.ask(line)
    assert r["id"] == rid, r
    assert r["error"]["type"] == etype, r
    assert r["error"]["field"] == field, r
    assert isinstance(r["error"]["message"], str) and r["error"]["message"]
    good = server.ask({"id": "ok", "action": "legal_moves", "position": TEXT})
    assert good["id"] == "ok" and "error" not in good


@needs_engine
def test_bad_engine_options(server):
    r = server.ask({"id": 1, "position": TEXT, "iterations": 10, "algorithm": "oracle"})
    assert r["id"] == 1 and "error" in r
    r = server.ask({"id": 2, "position": TEXT, "iterations": 10, "algorithm": 3})
    assert r["error"]["field"] == "algorithm"
    r = server.ask({"id": 3, "position": TEXT, "iterations": 10, "threads": 0})
    assert r["error"]["field"] == "threads"
    msg, _ = server_final(server, {"id": 4, "position": TEXT, "iterations": 50})
    assert msg["final"] is True


def server_final(server, req):
    server.send(req)
    return server.final(req.get("id"))


def test_blank_lines_are_skipped(server):
    server.send(b"   ")
    assert server.ask({"id": "after-blank", "action": "version"})["id"] == "after-blank"


# --------------------------------------------------------------------------- searches
@needs_engine
def test_analyse_is_deterministic_with_a_seed(server):
    req = {"id": "d", "position": TEXT, "iterations": 300, "seed": 11, "top": 3}
    first, partials = server_final(server, req)
    assert partials == []
    assert first["action"] == "analyse" and first["final"] is True
    assert first["iterations"] == 300 and first["seed"] == 11
    assert 1 <= len(first["candidates"]) <= 3
    legal = {str(m) for m in STATE.legal_moves()}
    assert all(c["move"] in legal for c in first["candidates"])
    second, _ = server_final(server, req)
    assert candidates(second) == candidates(first)
    assert [c["win_probability"] for c in second["candidates"]] == \
        [c["win_probability"] for c in first["candidates"]]


@needs_engine
def test_analyse_a_view_and_other_algorithms(server):
    view = STATE.view(0)
    for algo in ("ismcts", "expectimax", "greedy", "random"):
        msg, _ = server_final(server, {"id": algo, "action": "analyze", "position": view.to_dict(),
                                       "iterations": 100, "seed": 1, "algorithm": algo})
        assert msg["final"] is True and msg["candidates"], msg
        assert msg["algorithm"] == algo


@needs_engine
def test_engine_options_reach_the_engine(server):
    msg, _ = server_final(server, {"id": "o", "position": TEXT, "iterations": 100, "seed": 2,
                                   "algorithm": "expectimax", "depth": 1, "samples": 2})
    assert msg["final"] is True and msg["options"]["depth"] == 1
    assert msg["options"]["samples"] == 2
    msg, _ = server_final(server, {"id": "e", "position": TEXT, "iterations": 100, "seed": 2,
                                   "exploration": 1.5, "threads": 2})
    assert msg["options"]["exploration"] == 1.5 and msg["threads"] == 2
    for key, value in (("playout", "psychic"), ("exploration", "high"), ("depth", 0),
                       ("depth", 1.5), ("perfect_information", "yes")):
        r = server.ask({"id": "bad", "position": TEXT, "iterations": 10, key: value})
        assert r["error"]["type"] in ("InvalidRequestError", "InvalidOptionError") and r["error"]["field"] == key, r


@needs_engine
def test_partial_reports(server):
    msg, partials = server_final(server, {"id": "p", "position": TEXT, "time": 1.0,
                                          "report_every": 0.05, "seed": 3})
    assert msg["final"] is True
    assert len(partials) >= 1
    assert all(p["final"] is False and p["id"] == "p" and "candidates" in p for p in partials)
    assert partials[-1]["iterations"] <= msg["iterations"]


@needs_engine
def test_two_searches_in_flight(server):
    server.send({"id": "slow", "position": TEXT, "time": 0.5, "seed": 1})
    server.send({"id": "fast", "position": TEXT, "iterations": 100, "seed": 1})
    finals = {}
    while len(finals) < 2:
        msg = server.recv()
        assert "error" not in msg, msg
        if msg.get("final"):
            finals[msg["id"]] = msg
    assert set(finals) == {"slow", "fast"}
    assert finals["fast"]["iterations"] == 100


@needs_engine
def test_terminate_ends_a_search_early(server):
    server.send({"id": "long", "position": TEXT, "iterations": BIG, "report_every": 0.05})
    first = server.recv()
    assert first["id"] == "long" and first["final"] is False  # it is running
    server.send({"id": "long", "action": "terminate"})
    ack = server.recv()
    assert ack == {"id": "long", "action": "terminate", "terminated": 1}
    msg, _ = server.final("long")
    assert msg["final"] is True and msg["terminated"] is True
    assert msg["iterations"] < BIG // 10 and msg["candidates"]
    # nothing is left to terminate now
    assert server.ask({"id": "long", "action": "terminate"})["terminated"] == 0


@needs_engine
def test_terminate_at_once(server):
    # the terminate may land before the search did its first iteration
    server.send(json.dumps({"id": "now", "position": TEXT, "iterations": BIG}) + "\n" +
                json.dumps({"id": "now", "action": "terminate"}))
    msg, _ = server.final("now")
    assert msg["final"] is True and msg["terminated"] is True
    assert msg["iterations"] < BIG // 10
    assert (msg["best"] is None) == (msg["candidates"] == [])


@needs_engine
def test_an_analysis_without_candidates_is_answered():
    from jaipur_ai.search.engine import Engine as RealEngine
    stop = threading.Event()
    stop.set()
    report = RealEngine("ismcts").analyse(STATE, iterations=100, seed=1, stop_event=stop)
    d = serve._analysis_dict(report)
    assert d["best"] is None and d["candidates"] == [] and d["iterations"] == 0
    assert json.loads(json.dumps(d)) == d


def test_terminate_without_a_search(server):
    assert server.ask({"id": "nothing", "action": "terminate"}) == \
        {"id": "nothing", "action": "terminate", "terminated": 0}


@needs_engine
def test_quit_answers_searches_in_flight():
    e = ServerProcess()
    e.send({"id": 1, "position": TEXT, "iterations": BIG, "report_every": 0.05})
    assert e.recv()["final"] is False
    e.send({"id": "bye", "action": "quit"})
    msg, _ = e.final(1)
    assert msg["final"] is True and msg["iterations"] < BIG // 10
    assert e.recv() == {"id": "bye", "action": "quit"}
    assert e.proc.wait(timeout=TIMEOUT) == 0
    assert e.close() == 0


def test_quit_without_searches():
    e = ServerProcess()
    assert e.ask({"action": "quit"}) == {"id": None, "action": "quit"}
    assert e.close() == 0
    assert e.lines.get(timeout=TIMEOUT) is None     # nothing after the quit answer


@needs_engine
def test_end_of_input_finishes_searches_first():
    e = ServerProcess("--threads", "1", "--algorithm", "ismcts")
    e.send({"id": "eof", "position": TEXT, "iterations": 200, "seed": 5})
    e.proc.stdin.close()
    msg, _ = e.final("eof")
    assert msg["final"] is True and msg["iterations"] == 200
    assert e.close() == 0


@pytest.mark.parametrize("args, words", [
    (["--threads", "0"], ["--threads", "at least 1"]),
    (["--time", "-1"], ["--time", "> 0"]),
    (["--algorithm", "alphabeta"], ["--algorithm", "alphabeta"]),
    (["--bogus"], ["unrecognized arguments: --bogus"]),
])
def test_bad_command_line(args, words):
    """The one command-line parser reads serve's options: one line, exit 2."""
    r = subprocess.run(SERVE_CMD + args, input=b"", capture_output=True,
                       cwd=ROOT, timeout=TIMEOUT)
    assert r.returncode == 2 and r.stdout == b""
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jaipur-ai: error: "), r.stderr
    assert all(w in lines[0] for w in words), lines[0]


def test_serve_reads_its_options_with_the_cli_parser(capsys):
    from jaipur_ai.doors.cli import main
    assert main(["serve", "--threads", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("jaipur-ai: error: --threads: ") and err.count("\n") == 1


# --------------------------------------------------------------------------- in-process
def run_lines(*requests, **kw) -> list[dict]:
    text = "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)
    out = io.StringIO()
    assert Server(io.StringIO(text), out, **kw).run() == 0
    lines = out.getvalue().splitlines()
    return [json.loads(x) for x in lines]


def test_in_process_eof_and_quit():
    out = run_lines({"id": 1, "action": "version"}, {"action": "quit"},
                    {"id": 2, "action": "version"})
    assert [m["id"] for m in out] == [1, None]       # nothing is read after quit


def test_in_process_binary_streams():
    out = io.BytesIO()
    inp = io.BytesIO(b'{"id": 1, "action": "version"}\n{"id": 2, "action": "help"}\n')
    assert Server(inp, out).run() == 0
    assert [json.loads(x)["id"] for x in out.getvalue().splitlines()] == [1, 2]


def test_internal_errors_become_answers(monkeypatch, capsys):
    def boom(self, req):
        raise RuntimeError("kaboom")
    monkeypatch.setattr(Server, "_do_version", boom)
    out = run_lines({"id": "x", "action": "version"}, {"id": "y", "action": "help"})
    assert out[0]["id"] == "x" and out[0]["error"]["type"] == "InternalError"
    assert "kaboom" in out[0]["error"]["message"]
    assert out[1]["id"] == "y" and "actions" in out[1]
    assert "kaboom" in capsys.readouterr().err       # the traceback goes to stderr


class _StubAnalysis:
    def __init__(self, d):
        self._d = d

    def to_dict(self):
        return dict(self._d)


class _StubEngine:
    """Stands in for jaipur_ai.search.engine.Engine to test the server's side alone."""

    def __init__(self, algorithm="ismcts", threads=1, exploration=0.7):
        # (the server checks the options by the table before an engine is made)
        self.algorithm = "boom" if exploration == 13 else algorithm
        self.exploration = exploration

    @classmethod
    def from_options(cls, algorithm="ismcts", threads=1, exploration=0.7, max_nodes=None):
        return cls(algorithm, threads, exploration)

    def analyse(self, pos, time=None, iterations=None, top=5, seed=None, stop_event=None,
                on_progress=None, report_every=None):
        if self.algorithm == "boom":
            raise RuntimeError("search exploded")
        n = 0
        while iterations is None or n < iterations:
            if stop_event is not None and stop_event.is_set():
                break
            n += 1
            if on_progress is not None and n % 10 == 0:
                on_progress(_StubAnalysis({"iterations": n, "candidates": []}))
            if stop_event is not None and iterations is None:
                stop_event.wait(0.001)
        return _StubAnalysis({"iterations": n, "candidates": [],
                              "exploration": self.exploration, "nan": float("nan")})


@pytest.fixture
def stub_engine(monkeypatch):
    class Module:
        Engine = _StubEngine
    monkeypatch.setattr(serve, "_engine_module", lambda: Module)


def test_stub_engine_options_partials_and_errors(stub_engine, capsys):
    out = run_lines(
        {"id": 1, "position": TEXT, "iterations": 25, "report_every": 0.5, "exploration": 2.0,
         "unknown": 1},
        {"id": 2, "position": TEXT, "iterations": 5, "exploration": 13},
        {"id": 3, "position": TEXT, "iterations": 5, "algorithm": "nope"},
    )
    by_id: dict = {}
    for m in out:
        by_id.setdefault(m["id"], []).append(m)
    one = by_id[1]
    assert [m["final"] for m in one] == [False, False, True]
    assert one[-1]["exploration"] == 2.0 and one[-1]["nan"] is None   # NaN is not JSON
    assert by_id[2][0]["error"]["type"] == "InternalError"
    assert "search exploded" in capsys.readouterr().err
    assert by_id[3][0]["error"]["type"] == "InvalidRequestError"
    assert by_id[3][0]["error"]["field"] == "algorithm"
    assert by_id[3][0]["error"]["message"].startswith("algorithm: must be one of ismcts")


def test_stub_engine_terminate_in_process(stub_engine):
    # the terminate line is read while the search runs (it has no iteration limit)
    out = run_lines({"id": "t", "position": TEXT, "time": 60},
                    {"id": "t", "action": "terminate"})
    assert out[0] == {"id": "t", "action": "terminate", "terminated": 1}
    assert out[1]["id"] == "t" and out[1]["final"] is True and out[1]["terminated"] is True


def test_an_over_long_line_gets_one_error_and_the_server_reads_on():
    """A request line past the limit (20 MiB here) is answered by one error, its rest
    skipped in linear time, and the next request is served as usual."""
    from jaipur_ai.doors.serve import MAX_LINE
    big = b'{"id": "big", "position": "' + b"x" * (MAX_LINE + 4 * 1024 * 1024) + b'"}\n'
    p = subprocess.run(SERVE_CMD, input=big + b'{"id": "v", "action": "version"}\n',
                       capture_output=True, timeout=120, cwd=ROOT)
    answers = [json.loads(x) for x in p.stdout.decode().splitlines()]
    assert p.returncode == 0 and len(answers) == 2, p.stdout[:500]
    assert "error" in answers[0] and "at most" in answers[0]["error"]["message"]
    assert answers[0]["id"] == "big"
    assert answers[1]["id"] == "v" and answers[1]["action"] == "version"


def test_the_sample_position_is_read_as_at_the_other_doors():
    """``"position": "sample"`` is the shipped sample, as ``jaipur-ai analyse sample``."""
    from jaipur_ai.doors.requests import SAMPLE_PATH
    out = io.StringIO()
    Server(io.StringIO('{"id": 1, "position": "sample", "action": "legal_moves"}\n'),
           out).run()
    got = json.loads(out.getvalue())
    want = jp.read_position(SAMPLE_PATH.read_text())
    assert got["moves"] == [str(m) for m in want.legal_moves()]


# ------------------------------------------------------------------ limits
def _answers(lines, **kw):
    out = io.StringIO()
    Server(io.StringIO("".join(json.dumps(x) + "\n" for x in lines)), out, **kw).run()
    return sorted((json.loads(x) for x in out.getvalue().splitlines()),   # by request
                  key=lambda a: a["id"])


def test_a_request_past_a_limit_is_a_limit_error_naming_its_field(tmp_path):
    from jaipur_ai.doors.limits import Limits
    limits = Limits(max_time=5, max_iterations=1000, max_threads=2, max_nodes=10_000)
    asks = [({"time": 10}, "time"), ({"iterations": 5000}, "iterations"),
            ({"iterations": 10, "threads": 3}, "threads"),
            ({"iterations": 10, "max_nodes": 20_000}, "max_nodes"),
            ({"iterations": 10, "weights": "/etc/passwd"}, "weights")]
    got = _answers([{"id": i, "position": TEXT, **ask} for i, (ask, _) in enumerate(asks)],
                   limits=limits)
    for (ask, field), answer in zip(asks, got):
        assert answer["error"]["type"] == "LimitError" and answer["error"]["field"] == field
    ok = _answers([{"id": 9, "position": TEXT, "iterations": 200, "seed": 1}], limits=limits)[0]
    assert ok["final"] and ok["options"]["max_nodes"] == 10_000      # the server's limit


@pytest.mark.parametrize("ask", [
    {"iterations": BIG},                                                  # minutes
    {"iterations": BIG, "endgame": True, "endgame_deck": 40, "endgame_nodes": 10**9},
    {"iterations": BIG, "algorithm": "expectimax", "depth": 12},
])
def test_the_servers_time_limit_bounds_a_search_limited_otherwise(ask):
    # each of these runs for minutes; --limit-time 0.3 stops it, whatever limit it names
    # (30 s waited for the answer: a guard, not a timing)
    from jaipur_ai.doors.limits import Limits
    out: queue.Queue = queue.Queue()

    class Out(io.TextIOBase):
        def writable(self):
            return True

        def write(self, s):
            out.put(s)
            return len(s)

    server = Server(io.StringIO(), Out(), limits=Limits(max_time=0.3))
    server.handle_line(json.dumps({"id": 1, "position": TEXT, "seed": 1, **ask}))
    try:
        answer = json.loads(out.get(timeout=TIMEOUT))
    finally:
        server.terminate_all()
    assert answer["final"] and answer["stopped"] and answer["capped"] is True
    assert not answer["terminated"] and answer["iterations"] < BIG
    # a search that ends by its own limit says nothing of the cap
    server.handle_line(json.dumps({"id": 2, "position": TEXT, "seed": 1, "iterations": 50}))
    answer = json.loads(out.get(timeout=TIMEOUT))
    assert answer["final"] and "capped" not in answer


def test_weights_come_only_from_the_servers_folder(tmp_path):
    from jaipur_ai.doors.limits import Limits
    from jaipur_ai.search.evaluation import DEFAULT_WEIGHTS
    (tmp_path / "mine.npz").write_bytes(DEFAULT_WEIGHTS.read_bytes())
    limits = Limits(weights_dir=str(tmp_path))
    got = _answers([{"id": 1, "position": TEXT, "iterations": 50, "weights": "mine.npz"},
                    {"id": 2, "position": TEXT, "iterations": 50, "weights": "../mine.npz"},
                    {"id": 3, "position": TEXT, "iterations": 50, "weights": "none.npz"}],
                   limits=limits)
    assert got[0]["final"] and got[0]["options"]["weights"] == str(tmp_path / "mine.npz")
    assert got[1]["error"]["field"] == "weights" and got[1]["error"]["type"] == "LimitError"
    assert got[2]["error"]["field"] == "weights" and "no such file" in got[2]["error"]["message"]
    # a file of the folder that is not weights: the field the client sent, its file name,
    # and nothing of the server's own path
    (tmp_path / "bad.npz").write_text("not weights")
    err = _answers([{"id": 4, "position": TEXT, "iterations": 50, "weights": "bad.npz"}],
                   limits=limits)[0]["error"]
    assert err["type"] == "InvalidWeightsError" and err["field"] == "weights"
    assert err["reason"].startswith("bad.npz: ") and str(tmp_path) not in err["message"]


def test_searches_past_the_servers_count_or_memory_wait_their_turn():
    from jaipur_ai.doors.limits import Budget, Limits
    b = Budget(Limits(max_searches=2, memory_mb=16))
    b.admit(1 << 20)
    b.admit(1 << 20)
    with pytest.raises(serve_requests.RequestError) as e:
        b.admit(1 << 20)                                # a third search
    assert e.value.field == "search"
    b.release(1 << 20)
    with pytest.raises(serve_requests.RequestError, match="MB"):
        b.admit(20 << 20)                               # past the memory budget
    b.admit(1 << 20)
    assert (b.running, b.reserved) == (2, 2 << 20)


def test_top_null_means_all_as_in_python_and_absent_the_default():
    got = _answers([{"id": 1, "position": TEXT, "iterations": 300, "seed": 2, "top": None},
                    {"id": 2, "position": TEXT, "iterations": 300, "seed": 2}])
    everything = jp.analyse(STATE.view(STATE.to_move), iterations=300, seed=2, top=None)
    assert [c["move"] for c in got[0]["candidates"]] == [str(c.move) for c in everything.candidates]
    assert len(got[0]["candidates"]) > 5 and len(got[1]["candidates"]) == 5


def test_json_past_pythons_own_limits_is_said_in_the_users_terms():
    lines = ['{"id": 1, "iterations": ' + "1" * 5000 + "}\n", "[" * 5000 + "]" * 5000 + "\n"]
    out = io.StringIO()
    Server(io.StringIO("".join(lines)), out).run()
    reasons = [json.loads(x)["error"]["reason"] for x in out.getvalue().splitlines()]
    assert reasons == ["not valid JSON: a number of more than 4,300 digits",
                       "not valid JSON: nested too deeply"]

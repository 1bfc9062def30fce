"""The ``jaipur-ai`` command line, driven as a subprocess (``python -m jaipur_ai``).

Searches use tiny iteration limits; no assertion is about time."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import jaipur_ai as jp
from jaipur_ai.doors.commands import SAMPLE_PATH
from jaipur_ai.doors._bench import ismcts_configs
from processes import default_sigint

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
ANALYSIS_KEYS = {"algorithm", "seed", "best", "candidates", "iterations", "determinizations",
                 "elapsed", "iterations_per_second"}


def cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaipur_ai", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=ENV)


def assert_bad_input(p: subprocess.CompletedProcess, *words: str) -> None:
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("jaipur-ai: error: ")
    assert "Traceback" not in p.stderr + p.stdout
    for w in words:
        assert w in lines[0]


def table_rows(out: str) -> list[str]:
    """The candidate rows of an analysis table (no timing in them)."""
    return [line for line in out.splitlines() if line[:1].isdigit()]


def finished_state() -> jp.GameState:
    s = jp.GameState.new(seed=21, starter=0)
    eng = jp.Engine("greedy")
    while not s.is_round_over:
        s = s.apply(eng.best_move(s, seed=1))
    return s


# --------------------------------------------------------------- version, help
def test_version():
    for args in (["version"], ["--version"]):
        p = cli(*args)
        assert p.returncode == 0
        assert p.stdout.startswith(f"jaipur-ai {jp.__version__}")


@pytest.mark.parametrize("cmd", [[], ["analyse"], ["play"], ["match"], ["bench"], ["serve"]])
def test_help_everywhere(cmd):
    p = cli(*cmd, "--help")
    assert p.returncode == 0 and p.stderr == ""
    assert "usage: jaipur-ai" in p.stdout
    assert "examples:" in p.stdout


def test_no_command_is_one_line_error():
    assert_bad_input(cli(), "command")


def test_serve_dispatches():
    p = cli("serve", "--help")
    assert p.returncode == 0
    assert "usage: jaipur-ai serve" in p.stdout
    for option in ("--algorithm", "--threads", "--time"):
        assert option in p.stdout
    p = cli("serve", stdin='{"id": 1, "action": "version"}\n')
    assert p.returncode == 0 and json.loads(p.stdout)["version"] == jp.__version__


def test_serve_bad_option_is_one_line_error():
    assert_bad_input(cli("serve", "--threads", "0"), "--threads", "at least 1")


# -------------------------------------------------------------------- analyse
def test_sample_position_is_a_mid_round_view():
    pos = jp.read_position(SAMPLE_PATH.read_text())
    assert isinstance(pos, jp.View)
    assert pos.to_move == pos.observer and not pos.is_round_over
    assert 0 < pos.deck_size < 40
    assert SAMPLE_PATH.read_text().count("\n") == 1


def test_analyse_sample_table():
    p = cli("analyse", "sample", "--iterations", "300", "--seed", "1", "--top", "3")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "as seen by player" in out                     # the view is drawn
    header = next(line for line in out.splitlines() if line.startswith("#"))
    for col in ("move", "win", "margin", "visits", "principal variation"):
        assert col in header
    rows = table_rows(out)
    assert len(rows) == 3 and "%" in rows[0]
    totals = ("300 iterations", "seed 1", "elapsed")   # the words of the totals line
    assert all(word in out for word in totals)
    legal = {str(m) for m in jp.read_position(SAMPLE_PATH.read_text()).legal_moves()}
    assert any(m in rows[0] for m in legal)


def test_analyse_json_fields_and_reproducible():
    args = ("analyse", "sample", "--iterations", "200", "--seed", "5", "--top", "4", "--json")
    p = cli(*args)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert ANALYSIS_KEYS <= set(d)
    assert d["seed"] == 5 and d["iterations"] == 200 and 1 <= len(d["candidates"]) <= 4
    c = d["candidates"][0]
    assert {"move", "visits", "win_probability", "expected_margin", "pv"} <= set(c)
    assert d["best"] == c["move"]
    d2 = json.loads(cli(*args).stdout)
    assert d2["candidates"] == d["candidates"]


def test_analyse_takes_settings_fields_as_options():
    # docs/cli.md's own example: -o sets the engine's options and its settings' fields,
    # as a spec does; the analysis records what it ran with
    p = cli("analyse", "sample", "--iterations", "50", "--seed", "1", "--json",
            "-o", "playout=random", "-o", "exploration=0.5", "-o", "cutoff=8")
    assert p.returncode == 0, p.stderr
    options = json.loads(p.stdout)["options"]
    assert (options["playout"], options["exploration"], options["cutoff"]) == ("random", 0.5, 8)
    p = cli("analyse", "sample", "--iterations", "50", "-o", "algorithm=greedy")
    assert p.returncode == 2 and p.stderr.startswith("jaipur-ai: error: --option: ")


def test_analyse_full_state_uses_the_movers_view():
    s = jp.GameState.new(seed=7, starter=1)
    p = cli("analyse", s.to_text(), "--iterations", "200", "--seed", "2")
    assert p.returncode == 0, p.stderr
    assert "Full state given: analysing for player 1" in p.stdout
    assert "as seen by player 1" in p.stdout
    # the words of the one-line form may also come unquoted
    p2 = cli("analyse", *s.to_text().split(), "--iterations", "200", "--seed", "2")
    assert p2.returncode == 0
    assert table_rows(p2.stdout) == table_rows(p.stdout) != []


def test_analyse_from_stdin_and_files(tmp_path):
    s = jp.GameState.new(seed=9, starter=0)
    v = s.view(0)
    p = cli("analyse", "-", "--algorithm", "greedy", stdin=v.to_text() + "\n")
    assert p.returncode == 0, p.stderr
    assert "algorithm greedy" in p.stdout
    f = tmp_path / "pos.json"
    f.write_text(s.to_json(indent=2))
    p = cli("analyse", str(f), "--algorithm", "greedy", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["algorithm"] == "greedy"
    t = tmp_path / "pos.txt"
    t.write_text("# a comment line\n" + v.to_text() + "\n")
    p = cli("analyse", str(t), "--iterations", "100", "--seed", "1")
    assert p.returncode == 0, p.stderr
    # a file saved with a byte-order mark (Windows Notepad), and stdin that starts so
    b = tmp_path / "bom.txt"
    b.write_bytes(b"\xef\xbb\xbf" + v.to_text().encode() + b"\n")
    for source, stdin in ((str(b), ""), ("-", "\ufeff" + v.to_text() + "\n")):
        p = cli("analyse", source, "--algorithm", "greedy", "--json", stdin=stdin)
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["algorithm"] == "greedy"


def test_analyse_other_algorithms():
    p = cli("analyse", "sample", "--algorithm", "expectimax", "--iterations", "2000",
            "--seed", "1", "--top", "2")
    assert p.returncode == 0, p.stderr
    assert "algorithm expectimax" in p.stdout and "nodes" in p.stdout
    p = cli("analyse", "sample", "--algorithm", "random", "--seed", "1")
    assert p.returncode == 0 and "algorithm random" in p.stdout


def test_analyse_perfect_information():
    s = jp.GameState.new(seed=4, starter=0)
    p = cli("analyse", s.to_text(), "--perfect-information", "--iterations", "200",
            "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["perfect_information"] is True
    p = cli("analyse", s.to_text(), "--perfect-information", "--iterations", "200")
    assert "Perfect-information mode" in p.stdout
    assert_bad_input(cli("analyse", "sample", "--perfect-information"),
                     "--perfect-information")


@pytest.mark.parametrize("args, words", [
    (["analyse"], ["POSITION"]),
    (["analyse", "nonsense"], ["position"]),
    (["analyse", "missing/file.json"], ["no such file"]),
    (["analyse", "S 1.0.0.00.- GSMMM"], ["position"]),
    (["analyse", "V 1.0.0.00.- 0 GSMMM 40 - 555779 765 DSSPPPPP/0/-/-.-.-.-.-.-/-.-.- "
                 "4/1/-/-.-.-.-.-.-/0.0.0"], ["players[0].hand"]),
    (["analyse", "{not json"], ["position"]),
    (["analyse", "sample", "--time", "soon"], ["--time"]),
    (["analyse", "sample", "--time", "-1"], ["--time"]),
    (["analyse", "sample", "--iterations", "-1"], ["--iterations"]),
    (["analyse", "sample", "--algorithm", "alphazero"], ["--algorithm"]),
    (["analyse", "sample", "--option", "zork=1"], ["zork"]),
    (["analyse", "sample", "--bogus"], ["--bogus"]),
    (["frobnicate"], ["frobnicate"]),
    (["match", "ismcts:time=fast", "greedy"], ["A"]),
    (["match", "greedy"], ["B"]),
    (["match", "greedy", "random", "--games", "0"], ["--games"]),
    (["match", "greedy", "ismcts:iterations=10,zork=1", "--games", "1"], ["zork"]),
    (["play", "--level", "grandmaster"], ["--level"]),
    (["play", "--you", "2"], ["--you"]),
])
def test_bad_input_is_one_line_exit_2(args, words):
    assert_bad_input(cli(*args), *words)


def test_analyse_positions_without_a_move():
    s = finished_state()
    assert_bad_input(cli("analyse", s.to_text()), "round is over")
    s = jp.GameState.new(seed=3, starter=0)
    assert_bad_input(cli("analyse", s.view(1).to_text()), "turn")


# ------------------------------------------------------------------------ play
def test_play_scripted_commands():
    script = "help\nmoves\nsell 9Z\nsell 5D\nfoo bar\nhint\n1\nquit\n"
    p = cli("play", "--level", "easy", "--seed", "3", "--you", "0",
            "--hint", "ismcts:iterations=150", stdin=script)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "you are player 0" in out
    assert "market" in out and "your hand" in out and "goods tokens left" in out
    assert "legal moves:" in out and "  1. " in out
    assert "cannot read 'sell 9Z' as a move" in out
    assert "illegal move: sell 5D" in out
    assert "cannot read 'foo bar'" in out
    assert "principal variation" in out                   # the hint's table
    assert "you play:" in out
    assert "You left the game." in out
    assert "Traceback" not in out + p.stderr


def test_play_typed_moves_from_the_library():
    """Moves computed in the test with the library, typed in the notation."""
    state = jp.GameState.new(8)
    seat = 1 - state.to_move            # the engine moves first, then us
    p = cli("play", "--level", "easy", "--seed", "8", "--you", str(seat), stdin="")
    assert "End of input" in p.stdout and p.returncode == 0
    first = next(line for line in p.stdout.splitlines() if line.startswith("engine plays:"))
    engine_move = first.split(":", 1)[1].split("(")[0].strip()
    state = state.apply(engine_move)
    mine = state.legal_moves()[-1]
    p = cli("play", "--level", "easy", "--seed", "8", "--you", str(seat),
            stdin=f"{str(mine).upper()}\n")
    assert f"you play: {mine}" in p.stdout
    assert p.stdout.count("engine plays:") == 2
    assert p.returncode == 0


def test_play_whole_match_to_two_seals():
    script = "moves\n1\n" * 400
    p = cli("play", "--level", "easy", "--seed", "5", "--you", "random", stdin=script)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "==== Round 1 over ====" in out and "==== Round 2 over ====" in out
    assert "seal" in out and "the match," in out
    assert ("You win the match" in out) or ("The engine wins the match" in out)


def test_play_end_of_input_is_clean():
    p = cli("play", "--level", "easy", "--seed", "2", "--you", "0", stdin="moves\n")
    assert p.returncode == 0
    assert "End of input" in p.stdout
    assert p.stderr == ""


# ----------------------------------------------------------------------- match
def test_match_json_mirrored_and_reproducible():
    args = ("match", "ismcts:iterations=100", "greedy", "--games", "2", "--seed", "3",
            "--json", "--quiet")
    p = cli(*args)
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    for key in ("wins", "draws", "losses", "win_rate", "win_rate_ci95", "elo", "elo_ci95",
                "mean_margin", "seconds_per_move", "by_start", "by_seat", "records"):
        assert key in d
    assert d["games_played"] == 4 and d["reproducible"] is True
    assert d["wins"] + d["draws"] + d["losses"] == 4
    seats = sorted((g["deal"], g["a_seat"]) for g in d["records"])
    assert seats == [(0, 0), (0, 1), (1, 0), (1, 1)]
    p2 = cli(*args[:-2], "--json", "--quiet", "--workers", "2")
    d2 = json.loads(p2.stdout)
    assert [g["moves"] for g in d2["records"]] == [g["moves"] for g in d["records"]]


def test_match_text_and_progress():
    p = cli("match", "greedy", "random", "--games", "2", "--seed", "1")
    assert p.returncode == 0, p.stderr
    assert "A: greedy" in p.stdout and "B: random" in p.stdout
    assert "win rate" in p.stdout and "Wilson" in p.stdout and "Elo" in p.stdout
    assert "A moves first" in p.stdout and "time per move" in p.stdout
    assert "4/4 games" in p.stderr                          # the progress bar
    p = cli("match", "greedy", "random", "--games", "1", "--seed", "1", "--unit", "match",
            "-q")
    assert p.returncode == 0 and "2 matches played" in p.stdout and p.stderr == ""


# ----------------------------------------------------------------------- bench
def test_bench_quick_json():
    p = cli("bench", "--quick", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["rules"]["ratio"] > 0
    rows = d["search"]["ismcts"]
    names = [c[0] for c in ismcts_configs()]
    configs = len(names)
    assert [r["phase"] for r in rows] == [
        phase for phase in ("early", "middle", "late") for _ in range(configs)]
    assert [r["config"] for r in rows[:configs]] == names
    assert {r["playout"] for r in rows} == {"informed", "random"}
    assert all(r["iterations_per_second"] > 0 for r in rows)
    assert [r["phase"] for r in d["search"]["expectimax"]] == ["early", "middle", "late"]


# --------------------------------------------------------------------- Ctrl-C
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT and preexec_fn are POSIX")
def test_ctrl_c_stops_an_analysis_with_its_result():
    proc = subprocess.Popen([sys.executable, "-m", "jaipur_ai", "analyse", "sample",
                             "--time", "60", "--seed", "1"], cwd=ROOT, env=ENV,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=default_sigint)
    # (the search runs 60 s: the signal must come after the start-up, which a busy
    # machine can stretch past 2 s, and long before the end)
    time.sleep(6.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in out and "principal variation" in out
    assert "Traceback" not in err


# ------------------------------------------------------- play: the table and the notices
def _scripted_game(monkeypatch, capsys, state, script, spec="greedy"):
    import io

    from jaipur_ai.doors.play import Game
    from jaipur_ai.matches.spec import EngineSpec
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    game = Game(EngineSpec.parse(spec), EngineSpec.parse("greedy"), seed=4, you=0)
    game.state = state
    assert game.run() == 0
    return game, capsys.readouterr().out


def test_play_table_counts_discard_and_bonus_tokens(monkeypatch, capsys):
    from search_positions import build
    state = build(market="SCPLM", deck="L", hands=("DGC", "P"), herds=(5, 5),
                  owners={"D": 0, "S": 0, "L": 0, "G": 1, "C": 1, "P": 1})
    game, _ = _scripted_game(monkeypatch, capsys, state, "")
    game.state = state
    table = game.table()
    assert "engine     1 card, known" in table and "1 cards" not in table
    assert "herd 5 camels" in table
    discard = state.to_dict()["discard"]
    assert f"  discard    {' '.join(discard)}   ({len(discard)} cards)" in table
    assert "3 cards: 7 tokens" in table and "4 cards: 6 tokens" in table
    assert "5+ cards: 5 tokens" in table


def test_play_round_summary_says_why_the_round_ended(monkeypatch, capsys):
    from search_positions import build
    state = build(market="SCPLM", deck="L", hands=("DGC", "P"), herds=(5, 5),
                  owners={"D": 0, "S": 0, "L": 0, "G": 1, "C": 1, "P": 1})
    # selling the last cloth token empties a third stack (diamond and gold are gone)
    _, out = _scripted_game(monkeypatch, capsys, state, "sell 1C\n")
    assert "==== Round 1 over ====\n  the round ended: three goods token stacks are " \
           "empty (diamond, gold, cloth)" in out
    # taking a card draws the deck's last one: the market cannot be refilled
    after = state.apply("take S")
    if not after.is_round_over:
        after = after.apply(after.legal_moves()[0])
    game, out = _scripted_game(monkeypatch, capsys, state, "")
    game.state = after
    game.round_summary()
    out = capsys.readouterr().out
    assert after.is_round_over and "the round ended: the deck ran out" in out


def test_play_says_when_the_engine_thinks_and_its_budget():
    from jaipur_ai.doors.play import _budget
    from jaipur_ai.matches.spec import EngineSpec
    assert _budget(EngineSpec.parse("ismcts:time=0.2")) == "up to 0.2 s"
    assert _budget(EngineSpec.parse("ismcts:time=0.2,threads=2")) == "up to 0.2 s"
    assert _budget(EngineSpec.parse("300")) == "300 iterations"
    assert _budget(EngineSpec.parse("ismcts:time=1,iterations=5000")) == "5,000 iterations or 1 s"
    assert _budget(EngineSpec.parse("greedy")) == ""            # answers at once
    p = cli("play", "--level", "ismcts:time=0.05", "--seed", "3", "--you", "0",
            "--hint", "200", stdin="hint\n1\n")
    lines = p.stdout.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("engine plays:"))
    assert lines[k - 1] == "the engine is thinking (up to 0.05 s) ..."
    assert "thinking (ismcts:iterations=200: 200 iterations) ..." in p.stdout


def test_play_scripted_input_does_not_load_readline():
    code = ("import io, sys; sys.stdin = io.StringIO(''); from jaipur_ai.doors.play import Game; "
            "from jaipur_ai.matches.spec import EngineSpec; "
            "Game(EngineSpec.parse('greedy'), EngineSpec.parse('greedy'), seed=1); "
            "print('readline' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV,
                       cwd=ROOT, timeout=60)
    assert p.stdout.strip() == "False", p.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_play_on_a_terminal_has_line_editing():
    """The Up arrow recalls the last line (readline), instead of 'cannot read '\\x1b[A''."""
    pytest.importorskip("readline")
    import pty
    import select
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "jaipur_ai", "play", "--level", "easy",
                          "--seed", "3", "--you", "0"], stdin=slave, stdout=slave,
                         stderr=slave, cwd=ROOT, env={**ENV, "TERM": "xterm"})
    os.close(slave)
    out = b""

    def read_until(marker: bytes, count: int, timeout: float = 30) -> None:
        nonlocal out
        end = time.monotonic() + timeout
        while out.count(marker) < count and time.monotonic() < end:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    break

    try:
        read_until(b"your move> ", 1)
        os.write(master, b"board\r")
        read_until(b"your move> ", 2)
        os.write(master, b"\x1b[A\r")           # Up arrow: 'board' again
        read_until(b"your move> ", 3)
        os.write(master, b"quit\r")
        read_until(b"You left the game.", 1)
        assert p.wait(timeout=30) == 0
    finally:
        if p.poll() is None:
            p.kill()
        os.close(master)
    text = out.decode("utf-8", "replace")
    assert "cannot read" not in text, text
    assert text.count("==== Round 1  |") == 3, text      # drawn at the turn and twice by 'board'


def test_fifos_devices_and_oversized_files_are_refused_by_name(tmp_path):
    """A FIFO would block and /dev/zero never end: every file argument is refused
    unless it is a regular file of a bounded size, naming the argument."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    big = tmp_path / "big.txt"
    big.write_bytes(b" " * ((1 << 20) + 1))
    for argv, field, why in (
            (["analyse", str(fifo)], "position", "not a regular file"),
            (["analyse", "/dev/zero"], "position", "not a regular file"),
            (["analyse", str(big)], "position", "more than"),
            (["analyse", str(tmp_path)], "position", "a directory"),
            (["review", str(fifo)], "record", "not a regular file"),
            (["analyse", "sample", "--iterations", "10", "--history", str(fifo)],
             "--history", "not a regular file")):
        r = subprocess.run([sys.executable, "-m", "jaipur_ai", *argv], capture_output=True,
                           text=True, env=ENV, cwd=ROOT, timeout=60)
        assert r.returncode == 2, (argv, r.stderr)
        assert r.stderr.startswith(f"jaipur-ai: error: {field}: ") and why in r.stderr, r.stderr


def test_analyse_with_no_iterations_says_what_would_be_played():
    r = subprocess.run([sys.executable, "-m", "jaipur_ai", "analyse", "sample",
                        "--iterations", "0", "--seed", "1"], capture_output=True, text=True,
                       env=ENV, cwd=ROOT, timeout=60)
    assert r.returncode == 0
    greedy = jp.Engine("greedy").best_move(
        jp.read_position((ROOT / "jaipur_ai" / "data" / "sample.txt").read_text()), seed=1)
    assert f"(nothing was searched: the greedy engine would play {greedy})" in r.stdout


def test_play_calls_a_move_no_rule_allows_illegal_and_unreadable_text_unreadable():
    r = subprocess.run([sys.executable, "-m", "jaipur_ai", "play", "--level", "easy", "--seed",
                        "3", "--you", "0"], input="sell 1S\nsell 9Z\nquit\n",
                       capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=60)
    assert "illegal move: sell 1S: silver needs a sale of at least 2 cards" in r.stdout
    assert "cannot read 'sell 9Z' as a move" in r.stdout


# ------------------------------------------------ analyse: the board at once, then progress
@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
def test_analyse_shows_the_board_at_once_then_the_search_as_it_goes_on_a_terminal():
    """On a terminal (a pseudo-terminal here) the board comes before the search ends (a
    60 s search, stopped by Ctrl-C once a progress line has come: so no wait here is a
    timing, each is bounded by a guard), then a line rewritten in place with the
    iterations and the best move so far, erased before the table."""
    import pty
    import select
    primary, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "jaipur_ai", "analyse", "sample",
                             "--time", "60", "--seed", "1"], cwd=ROOT, env=ENV,
                            stdout=secondary, stderr=subprocess.PIPE,
                            preexec_fn=default_sigint)
    os.close(secondary)
    seen = b""

    def read_until(marker: bytes, guard: float = 45.0) -> None:
        nonlocal seen
        deadline = time.monotonic() + guard
        while marker not in seen and time.monotonic() < deadline:
            if select.select([primary], [], [], 0.5)[0]:
                try:
                    chunk = os.read(primary, 65536)
                except OSError:              # the child is gone and the pty closed
                    break
                if not chunk:
                    break
                seen += chunk
    try:
        read_until(b"searching: ")
        assert b"market" in seen and b"searching: " in seen, seen[-500:]
        assert seen.index(b"market") < seen.index(b"searching: ")
        read_until(b"% to win")                   # a best move so far, with its figures
        assert proc.poll() is None                # (the 60 s search still runs)
        proc.send_signal(signal.SIGINT)
        read_until(b"interrupted")
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(primary)
    text = seen.decode()
    progress = text[text.index("searching: "):text.index("#  move")]
    assert "iterations" in progress and "best " in progress
    assert progress.endswith("\r\x1b[K")             # erased before the table


def test_analyse_piped_prints_no_progress_and_json_is_unchanged():
    p = cli("analyse", "sample", "--iterations", "300", "--seed", "1")
    assert p.returncode == 0 and "searching:" not in p.stdout + p.stderr
    assert "\x1b" not in p.stdout
    d = json.loads(cli("analyse", "sample", "--iterations", "300", "--seed", "1",
                       "--json").stdout)
    assert ANALYSIS_KEYS <= set(d)

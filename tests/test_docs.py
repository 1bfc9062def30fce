"""Every command output shown in the docs is real: this test runs it and compares.

docs/api.md and the other ``>>>`` examples are doctests (pytest's ``--doctest-glob``);
this file does the same for the command line and the server protocol, so the docs
cannot drift from what the programs print (docs/development.md, "Docs").

In README.md and docs/*.md, a fenced block whose first line starts with ``$ `` is a
**console session**: each ``$ COMMAND`` line is followed by what it prints (stdout,
then stderr).  COMMAND is ``jaipur-ai ...``, optionally fed by ``printf 'TEXT' |``
(TEXT, with ``\\n`` escapes, becomes stdin).  A fenced block whose first line starts
with ``> `` is a **protocol transcript**: the ``>`` lines are sent to one
``jaipur-ai serve`` session and the ``<`` lines are the answers, in order.

The **ellipsis marker** ``...``: a line that is only ``...`` (indentation allowed)
stands for any number of lines, none included; ``...`` inside a line stands for any
text within that line.  Use it for what depends on the machine or the clock
(timings, speeds, a random seed, versions) and to shorten long outputs.

Only seeded, iteration-limited commands are reproducible.  A protocol transcript with
a time-limited request (a ``"time"`` field) is not compared line by line (its answers
depend on the machine's speed); its answers are checked for the current layout
instead: the same fields and the same engine options as a fresh answer.  Console
examples are all run, so time-limited parts of them must be elided with ``...``.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import sys
from pathlib import Path

import pytest

from jaipur_ai.doors import cli
from jaipur_ai.doors.serve import Server

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def fenced_blocks(path: Path):
    """(line number, text) of every fenced block of a Markdown file."""
    text = path.read_text()
    for m in FENCE.finditer(text):
        yield text.count("\n", 0, m.start(1)) + 1, m.group(1)


def console_sessions():
    for path in DOCS:
        for line, block in fenced_blocks(path):
            if not block.startswith("$ "):
                continue
            cur = None
            for k, row in enumerate(block.splitlines()):
                if row.startswith("$ "):
                    cur = [f"{path.name}:{line + k}", row[2:], []]
                    yield cur
                else:
                    assert cur is not None
                    cur[2].append(row)


def transcripts():
    for path in DOCS:
        for line, block in fenced_blocks(path):
            if block.startswith("> "):
                yield f"{path.name}:{line}", block.splitlines()


def pattern(expected: list[str]) -> re.Pattern:
    """The regular expression of an expected output with ``...`` markers."""
    parts = []
    for row in expected:
        if row.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(p) for p in row.split("...")) + r"[ \t]*\n")
    return re.compile("".join(parts))


def matches(expected: list[str], actual: str) -> bool:
    actual = "\n".join(r.rstrip() for r in actual.splitlines()) + "\n" if actual else ""
    while expected and expected[-1] == "":
        expected = expected[:-1]
    return pattern(expected).fullmatch(actual) is not None


def run_command(command: str) -> str:
    """What ``command`` prints (stdout then stderr), run in this process."""
    stdin = ""
    if command.startswith("printf "):
        feed, command = command.split(" | ", 1)
        stdin = shlex.split(feed)[1].encode().decode("unicode_escape")
    argv = shlex.split(command)
    assert argv[0] == "jaipur-ai", command
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main(argv[1:])
    finally:
        sys.stdin = old_stdin
    return out.getvalue() + err.getvalue()


SESSIONS = list(console_sessions())


def test_the_docs_have_console_examples():
    assert len(SESSIONS) >= 15 and list(transcripts())


@pytest.mark.parametrize("where,command,expected", SESSIONS, ids=[s[0] for s in SESSIONS])
def test_console_example(where, command, expected):
    actual = run_command(command)
    assert matches(expected, actual), f"{where}: $ {command}\nprints now:\n{actual}"


def serve_lines(requests: list[str]) -> list[str]:
    out = io.StringIO()
    Server(io.StringIO("".join(r + "\n" for r in requests)), out, log=io.StringIO()).run()
    return out.getvalue().splitlines()


def is_time_limited(request: str) -> bool:
    """A search with a time limit (an invalid one is answered at once, with an error)."""
    try:
        t = json.loads(request).get("time")
    except (ValueError, AttributeError):
        return False
    return isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0


@pytest.mark.parametrize("where,rows", list(transcripts()), ids=[t[0] for t in transcripts()])
def test_protocol_transcript(where, rows):
    requests = [r[2:] for r in rows if r.startswith("> ")]
    answers = [r[2:] for r in rows if r.startswith("< ")]
    assert len(requests) + len(answers) == len(rows), f"{where}: a line is neither > nor <"
    if not any(is_time_limited(r) for r in requests):
        actual = serve_lines(requests)
        assert matches(answers, "\n".join(actual)), f"{where}: the server answers now:\n" + \
            "\n".join(actual)
        return
    # time-limited: the layout of each analysis answer, against an iteration-limited one
    for a in answers:
        doc = json.loads(a)
        if doc.get("action") != "analyse" or "error" in doc:
            continue
        req = next(json.loads(r) for r in requests if json.loads(r).get("id") == doc["id"])
        req.pop("time", None)
        req.pop("report_every", None)
        req.update(iterations=50, id="fresh")
        fresh = json.loads(serve_lines([json.dumps(req)])[0])
        assert set(doc) - {"terminated"} == set(fresh) - {"terminated"}, where
        assert doc["options"] == fresh["options"], where
        assert set(doc["candidates"][0]) == set(fresh["candidates"][0]), where


def test_the_ellipsis_marker():
    assert matches(["a ... c", "..."], "a b c\nmore\nlines\n")
    assert matches(["a", "  ...", "z"], "a\nz\n")
    assert not matches(["a ... c"], "a b c\nextra\n")
    assert not matches(["x 1"], "x 2\n")


# ------------------------------------------------------------------ snippets, as pasted
# (issue 51, item 14: the Gymnasium snippet of docs/ecosystem.md raised NameError: np, and
# gymnasium.make after "import jaipur_ai" alone found no environment; the doctests passed,
# run in one process that had imported everything.)  A Python snippet that begins with an
# import is where a reader starts pasting: it runs in a fresh interpreter, in an empty
# folder, with the snippets after it on the same page (until the next one that begins
# with an import) pasted into the same interpreter.  ``>>>`` snippets are checked as
# doctests; plain code, on the pages of a newcomer's first hour (README.md,
# docs/getting-started.md), must run without an error (elsewhere plain code may be a
# sketch, as docs/search.md's lower level, or a long run, as docs/cli.md's match).
PY_FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)
FRESH = re.compile(r"(?:>>> )?(?:import |from \S+ import )")
RUN_PLAIN = ("README.md", "getting-started.md")
PASTE = r'''
import doctest, sys
text = sys.stdin.read()
if text.lstrip().startswith(">>>"):
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__main__"}, sys.argv[1],
                                               None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    sys.exit(1 if runner.failures else 0)
exec(compile(text, sys.argv[1], "exec"), {"__name__": "__main__"})
'''


def pasted_sessions():
    """(where, the snippets pasted into one fresh interpreter) of README.md and docs/."""
    for path in DOCS:
        text = path.read_text()
        cur = None
        for m in PY_FENCE.finditer(text):
            block = m.group(1)
            doctest = block.lstrip().startswith(">>>")
            if not doctest and path.name not in RUN_PLAIN:
                continue
            if FRESH.match(block.lstrip()):
                cur = [f"{path.name}:{text.count(chr(10), 0, m.start(1)) + 1}", [], doctest]
                yield cur
            if cur is not None and cur[2] == doctest:
                cur[1].append(block)


PASTED = list(pasted_sessions())


@pytest.mark.parametrize("where,blocks,doctest", PASTED, ids=[p[0] for p in PASTED])
def test_python_snippets_run_as_pasted_into_a_fresh_interpreter(where, blocks, doctest, tmp_path):
    import subprocess
    p = subprocess.run([sys.executable, "-c", PASTE, where], input="\n".join(blocks),
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, f"{where}, pasted into a fresh interpreter:\n{p.stdout}{p.stderr}"


# ------------------------------------------------------------------ the install lines
# (issue 51, item 13: README's install line failed on a system Python with
# "externally-managed-environment")
@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md"])
def test_the_install_lines_make_a_virtual_environment_first(page, tmp_path):
    import subprocess
    shell = [b for _, b in fenced_blocks(ROOT / page) if "pip install" in b]
    first = shell[0].splitlines()
    venv = next((i for i, row in enumerate(first) if row.startswith("python3 -m venv ")), None)
    pip = next(i for i, row in enumerate(first) if "pip install" in row)
    assert venv is not None and venv < pip, f"{page}: no virtual environment before pip"
    # the line runs as shown (sh), and leaves a pip of the environment's own
    line = first[venv].split("#")[0]
    p = subprocess.run(["sh", "-c", f"{line} && python3 -c 'import sys; print(sys.prefix)'"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str(tmp_path / ".venv")

"""Issue 11: one validation layer for the API, the CLI and the server (one test, at
least, per defect of the issue; the fuzz test is tests/test_fuzz.py)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import jaipur_ai as jp
from jaipur_ai import options as O
from jaipur_ai.errors import InvalidOptionError, JaipurError

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
SAMPLE = "V 1.0.0.00.- 0 GSMMM 40 - 555779 765 DSSPP/0/-/-.-.-.-.-.-/-.-.- 4/1/-/-.-.-.-.-.-/0.0.0"


def run_py(code: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=ENV)


def cli(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaipur_ai", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=ENV)


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout[-2000:], p.stderr[-2000:])
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("jaipur-ai: error: "), p.stderr
    assert "Traceback" not in p.stderr + p.stdout
    return lines[0]


# ------------------------------------------------------------------ defect 0
def test_selection_never_indexes_out_of_range():
    """Scores that are huge or NaN (out-of-range options reach the low-level searcher
    unchecked) used to make the child selection index -1: a segfault."""
    p = run_py("""
        import jaipur_ai as jp
        from jaipur_ai import _search as S
        v = jp.View.from_text(%r)._core
        for mw in (1e308, float("nan"), -1e308):
            for seed in range(10):
                se = S.IsmctsSearcher(v, seed=seed, margin_weight=mw, cutoff=10,
                                      chance_nodes=True, puct=1.5)
                se.run(iterations=3000)
                assert se.best_action() is not None
                se = S.IsmctsSearcher(v, seed=seed, margin_weight=mw)
                se.run(iterations=3000)
                assert se.best_action() is not None
        print("ok")
    """ % SAMPLE)
    assert p.returncode == 0 and p.stdout.strip() == "ok", (p.returncode, p.stderr[-2000:])

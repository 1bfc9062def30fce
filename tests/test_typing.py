"""Static types: ``mypy -p jaipur_ai`` is clean under ``strict = true`` (pyproject.toml's
[tool.mypy]; the check the test runs is ``mypy --strict -p jaipur_ai``), and a user's
script type-checks under ``mypy --strict`` against the installed package (the
compiled modules have .pyi stubs).  mypy is part of the test extra, so CI runs these;
they are not skipped when it is missing."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

USER_SCRIPT = textwrap.dedent("""\
    from typing import Optional

    import jaipur_ai as jp
    from jaipur_ai.errors import InvalidOptionError
    from jaipur_ai.options import OPTIONS, check

    state: jp.GameState = jp.GameState.new(seed=7, starter=0)
    move: jp.Move = jp.best_move(state, iterations=200, seed=1)
    report: jp.Analysis = jp.analyse(state, iterations=200, seed=1, top=3)
    best: Optional[jp.Move] = report.best
    for c in report.candidates:
        visits: int = c.visits
        pv: list[str] = [str(m) for m in c.pv]
    first: jp.Candidate = report[0]
    after: jp.GameState = state.apply(move)
    view: jp.View = after.view(after.to_move)
    moves: list[jp.Move] = view.legal_moves()
    threads: int = check("threads", 2)
    names: list[str] = [o.name for o in OPTIONS]
    try:
        jp.Engine(threads=0)
    except InvalidOptionError as e:
        field: str = e.field
""")


def mypy(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--no-incremental",
                           "--cache-dir", os.devnull, *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
    env.update(extra)
    return env


def _installed_here() -> bool:
    """Whether the installed jaipur_ai is this checkout (pip install -e .)."""
    try:
        dist = metadata.distribution("jaipur_ai")
    except metadata.PackageNotFoundError:
        return False
    import jaipur_ai
    return Path(jaipur_ai.__file__).resolve().parent == ROOT / "jaipur_ai" and dist is not None


def test_mypy_strict_package_is_clean():
    p = mypy("--strict", "-p", "jaipur_ai", cwd=ROOT, env=_env(MYPYPATH=str(ROOT)))
    assert p.returncode == 0, p.stdout + p.stderr


def test_mypy_strict_user_script(tmp_path):
    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT)
    if _installed_here():
        # the README's editable install: mypy finds the package by itself
        env = _env()
    else:  # (running from a plain checkout: point mypy at it, check only the script)
        env = _env(MYPYPATH=str(ROOT))
    p = mypy("--strict", "--follow-imports=silent", str(script), cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    bad = tmp_path / "bad_script.py"
    bad.write_text(USER_SCRIPT + "oops: int = jp.best_move(state, iterations=10)\n")
    p = mypy("--strict", "--follow-imports=silent", str(bad), cwd=tmp_path, env=env)
    assert p.returncode == 1 and "bad_script.py" in p.stdout and "Move" in p.stdout, p.stdout

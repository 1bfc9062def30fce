"""The package's imports: its layers, no circle at all, no private names across modules.

Every import of a jaipur_ai module counts: at module level, inside functions, under
``if TYPE_CHECKING:``, and the ``cimport``/``import`` lines of the compiled sources
(``src_cy/``).  They must

- form a graph without a cycle between modules;
- run one way between the layers (docs/development.md draws them): ``rules`` at the
  bottom, then ``search``, ``matches``, ``learning``, the framework environments'
  ``envs``, the ``doors``, and the public faces at the top level; the modules every
  layer may read (``errors``, ``options``, ``_version``) import no other layer;
- not import an underscore-prefixed *name* from another module: what two modules share
  is public in the module that holds it (a private *module* is fine:
  ``from jaipur_ai.rules import _fields``).

And no module is much longer than 600 lines.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Optional

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "jaipur_ai"
SOURCES = ROOT / "src_cy" / "jaipur_ai"
PKG = "jaipur_ai"

# A layer may import the layers listed for it (and itself).
BASE = {"jaipur_ai.errors", "jaipur_ai.options", "jaipur_ai._version"}
LAYERS: dict[str, set[str]] = {
    "base": set(),
    "rules": {"base"},
    "search": {"base", "rules"},
    "matches": {"base", "rules", "search"},
    "learning": {"base", "rules", "search", "matches"},
    "envs": {"base", "rules", "search", "matches"},
    "doors": {"base", "rules", "search", "matches", "learning"},
    "faces": {"base", "rules", "search", "matches", "envs"},
    "top": {"base", "rules", "search", "matches", "learning", "envs", "doors", "faces"},
}
MAX_LINES = 600


def layer_of(module: str) -> str:
    if module in BASE:
        return "base"
    parts = module.split(".")
    if module in (PKG, f"{PKG}.__main__"):
        return "top"
    if len(parts) >= 3 or (len(parts) == 2 and parts[1] in LAYERS):
        return parts[1]
    return "faces"      # jaipur_ai.gymnasium, .pettingzoo, .openspiel, .vecenv


def _name_of(path: Path) -> str:
    rel = path.relative_to(ROOT / "src_cy" if SOURCES in path.parents else ROOT)
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_modules() -> dict[str, Path]:
    return {_name_of(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def compiled_modules() -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for p in sorted(SOURCES.rglob("*.pyx")) + sorted(SOURCES.rglob("*.pxd")):
        out.setdefault(_name_of(p), []).append(p)
    return out


def all_modules() -> set[str]:
    return set(python_modules()) | set(compiled_modules())


def _resolve(node: ast.ImportFrom, here: str) -> Optional[str]:
    """The absolute module an ``from X import ...`` names (None: not ours)."""
    if node.level:
        base = here.split(".")
        is_pkg = python_modules().get(here, Path()).name == "__init__.py"
        base = base if is_pkg else base[:-1]
        base = base[:len(base) - (node.level - 1)]
        mod = ".".join(base + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    return mod if mod == PKG or mod.startswith(PKG + ".") else None


def imports(path: Path, here: str) -> Iterator[tuple[int, str, str]]:
    """(line, imported module, imported name or "") for every import of jaipur_ai
    modules in the Python file ``path`` (module ``here``), wherever it stands."""
    known = all_modules()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == PKG or a.name.startswith(PKG + "."):
                    yield node.lineno, a.name, ""
        elif isinstance(node, ast.ImportFrom):
            mod = _resolve(node, here)
            if mod is None:
                continue
            for a in node.names:
                sub = f"{mod}.{a.name}"
                if sub in known:                 # from jaipur_ai.rules import _fields
                    yield node.lineno, sub, ""
                else:
                    yield node.lineno, mod, a.name


_CIMPORT = re.compile(r"^\s*from\s+(jaipur_ai[\w.]*)\s+c?import\s+\(?([\w\s,]*)", re.M)


def compiled_imports(path: Path) -> Iterator[tuple[int, str, str]]:
    text = path.read_text()
    for m in _CIMPORT.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        yield line, m.group(1), ""


def graph() -> dict[str, set[str]]:
    g: dict[str, set[str]] = {m: set() for m in all_modules()}
    for m, path in python_modules().items():
        for _, target, _name in imports(path, m):
            if target != m:
                g[m].add(target)
    for m, paths in compiled_modules().items():
        for path in paths:
            for _, target, _name in compiled_imports(path):
                if target != m:
                    g[m].add(target)
    return g


def find_cycle(g: dict[str, set[str]]) -> Optional[list[str]]:
    """A cycle of ``g`` as [a, b, ..., a], or None."""
    colour = {m: 0 for m in g}                  # 0 new, 1 on the path, 2 done
    path: list[str] = []

    def visit(m: str) -> Optional[list[str]]:
        colour[m] = 1
        path.append(m)
        for n in sorted(g.get(m, ())):
            if colour.get(n) == 1:
                return path[path.index(n):] + [n]
            if colour.get(n) == 0:
                found = visit(n)
                if found:
                    return found
        path.pop()
        colour[m] = 2
        return None

    for m in sorted(g):
        if colour[m] == 0:
            found = visit(m)
            if found:
                return found
    return None


# ------------------------------------------------------------------ the checker
def test_the_checker_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_checker_reads_every_import_wherever_it_stands(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("from typing import TYPE_CHECKING\n"
                   "from jaipur_ai.rules import _fields as F\n"
                   "if TYPE_CHECKING:\n    from jaipur_ai.rules.position import View\n"
                   "def f():\n    from jaipur_ai.search.engine import Engine\n"
                   "class C:\n    from .move import Move\n")
    found = {(t, n) for _, t, n in imports(src, "jaipur_ai.rules.mod")}
    assert found == {("jaipur_ai.rules._fields", ""), ("jaipur_ai.rules.position", "View"),
                     ("jaipur_ai.search.engine", "Engine"), ("jaipur_ai.rules.move", "Move")}


def test_the_checker_reads_cimports(tmp_path):
    src = tmp_path / "m.pyx"
    src.write_text("from libc.stdint cimport int32_t\n"
                   "from jaipur_ai.rules._core cimport (State, Move,\n    Rng)\n"
                   "from jaipur_ai.search._root import derive_seed\n")
    assert [t for _, t, _ in compiled_imports(src)] == ["jaipur_ai.rules._core",
                                                        "jaipur_ai.search._root"]


def test_the_graph_holds_the_known_edges():
    g = graph()
    assert "jaipur_ai.rules.move" in g["jaipur_ai.rules.position"]
    assert "jaipur_ai.rules._core" in g["jaipur_ai.rules._bridge"]      # a cimport
    assert "jaipur_ai.search.engine" in g["jaipur_ai.matches.spec"]     # inside a function
    assert "jaipur_ai.doors.cli" in g["jaipur_ai.__main__"]


def test_layers_are_known():
    for m in all_modules():
        assert layer_of(m) in LAYERS, m
    assert layer_of("jaipur_ai.rules.position") == "rules"
    assert layer_of("jaipur_ai.gymnasium") == "faces"
    assert layer_of("jaipur_ai.options") == "base"


# ------------------------------------------------------------------ the package
def test_no_import_cycle_between_the_modules():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_imports_run_one_way_between_the_layers():
    bad = []
    for m, targets in graph().items():
        mine = layer_of(m)
        for t in targets:
            theirs = layer_of(t)
            if theirs != mine and theirs not in LAYERS[mine]:
                bad.append(f"{m} ({mine}) imports {t} ({theirs})")
    assert not bad, "imports against the layers:\n" + "\n".join(sorted(bad))


def test_no_module_imports_another_modules_private_names():
    bad = []
    for m, path in python_modules().items():
        for line, target, name in imports(path, m):
            if target != m and name.startswith("_") and not name.startswith("__"):
                bad.append(f"{path.relative_to(ROOT)}:{line}: from {target} import {name}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def test_no_module_is_much_longer_than_600_lines():
    files = list(PACKAGE.rglob("*.py")) + list(SOURCES.rglob("*.pyx"))
    long = {str(p.relative_to(ROOT)): n for p in files
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


@pytest.mark.parametrize("name", sorted(python_modules()))
def test_every_module_imports_on_its_own(name):
    """Each module can be the first one imported (no order-dependent import)."""
    if name == f"{PKG}.__main__":
        pytest.skip("runs the command line")
    r = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr

"""The package's imports: no circle between its modules, no private names across them.

The module-level imports of ``jaipur_ai/*.py`` (wherever they stand in the file,
the bottom included; not those inside functions or under ``if TYPE_CHECKING:``)
must form a graph without a cycle, so that every module can be read, and imported,
after the modules it uses (docs/development.md shows the graph).  And no module
imports an underscore-prefixed *name* from another jaipur_ai module, at module
level or inside a function: what two modules share is public in the module that
holds it.  Importing a private *module* (``from . import _fields``,
``from ._cards import GOODS``) is fine.
"""
from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Iterator, Optional

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jaipur_ai"
PKG = "jaipur_ai"


def _modules() -> dict[str, Path]:
    return {p.stem: p for p in sorted(PACKAGE.glob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module_level(body: list) -> Iterator[ast.stmt]:
    """The statements run at import time: the body, and the branches of its
    ``if``/``try``/``with`` blocks, except ``if TYPE_CHECKING:``; not functions
    and classes' methods (a class body runs at import time, its methods do not)."""
    for node in body:
        if isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            yield from _module_level(node.body)
            for h in node.handlers:
                yield from _module_level(h.body)
            yield from _module_level(node.orelse)
            yield from _module_level(node.finalbody)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            yield from _module_level(node.body)
        elif isinstance(node, ast.ClassDef):
            yield from _module_level(node.body)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        else:
            yield node


def _target(node: ast.ImportFrom, alias: Optional[str] = None) -> Optional[str]:
    """The jaipur_ai module an ``from X import ...`` reads (``None``: not ours).
    ``from . import name`` reads the module ``name`` when there is one."""
    if node.level == 0:
        mod = node.module or ""
        if mod == PKG:
            return alias
        if not mod.startswith(PKG + "."):
            return None
        return mod.split(".")[1]
    if node.level > 1:  # pragma: no cover - the package has no subpackages
        return None
    if node.module:
        return node.module.split(".")[0]
    return alias


def _is_module(name: str) -> bool:
    """A module of the package: a .py file or a compiled one (``_core``, ``_search``)."""
    if name in _modules():
        return True
    try:
        return importlib.util.find_spec(f"{PKG}.{name}") is not None
    except (ImportError, ValueError):
        return False


def imports(path: Path, module_level_only: bool) -> Iterator[tuple[ast.stmt, str, str]]:
    """(node, imported module, imported name or "") for each import of jaipur_ai
    modules in ``path``.  ``name`` is what ``from M import name`` takes."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = _module_level(tree.body) if module_level_only else ast.walk(tree)
    mods = _modules()
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == PKG or a.name.startswith(PKG + "."):
                    parts = a.name.split(".")
                    yield node, parts[1] if len(parts) > 1 else "__init__", ""
        elif isinstance(node, ast.ImportFrom):
            whole = _target(node)
            for a in node.names:
                if whole is not None and whole in mods:
                    yield node, whole, a.name
                elif whole is None and _is_module(a.name):   # from . import engine, _core
                    yield node, a.name, ""
                elif whole is None and (node.level == 1 or node.module == PKG):
                    yield node, "__init__", a.name   # from . import __version__
                elif whole is not None:          # a compiled module: _core, _search
                    yield node, whole, a.name


def graph() -> dict[str, set[str]]:
    mods = _modules()
    g: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for _, target, _name in imports(path, module_level_only=True):
            if target in mods and target != m:
                g[m].add(target)
    return g


def find_cycle(g: dict[str, set[str]]) -> Optional[list[str]]:
    """A cycle of ``g`` as [a, b, ..., a], or None."""
    colour = {m: 0 for m in g}                  # 0 new, 1 on the path, 2 done
    path: list[str] = []

    def visit(m: str) -> Optional[list[str]]:
        colour[m] = 1
        path.append(m)
        for n in sorted(g[m]):
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


def test_the_checker_reads_bottom_imports_and_skips_function_and_type_checking_ones(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text("from typing import TYPE_CHECKING\n"
                   "from . import _fields as F\n"
                   "if TYPE_CHECKING:\n    from .view import View\n"
                   "def f():\n    from .engine import Engine\n"
                   "class C:\n    from .move import Move\n"
                   "from .state import GameState  # at the bottom\n")
    found = {(t, n) for _, t, n in imports(src, module_level_only=True)}
    assert found == {("_fields", ""), ("move", "Move"), ("state", "GameState")}
    every = {(t, n) for _, t, n in imports(src, module_level_only=False)}
    assert ("engine", "Engine") in every and ("view", "View") in every


def test_the_graph_holds_the_known_edges():
    g = graph()
    assert "state" in g["view"]          # a view samples full states
    assert "move" in g["state"] and "_position" in g["state"]
    assert "cli" in g["__main__"]


# ------------------------------------------------------------------ the package
def test_no_import_cycle_between_the_modules():
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_module_imports_another_modules_private_names():
    bad = []
    for m, path in _modules().items():
        for node, target, name in imports(path, module_level_only=False):
            if target != m and name.startswith("_") and not name.startswith("__"):
                bad.append(f"{path.name}:{node.lineno}: from {target} import {name}")
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


@pytest.mark.parametrize("name", sorted(_modules()))
def test_every_module_imports_on_its_own(name):
    """Each module can be the first one imported (no order-dependent circle)."""
    import subprocess
    import sys
    mod = PKG if name == "__init__" else f"{PKG}.{name}"
    if name == "__main__":
        pytest.skip("runs the command line")
    r = subprocess.run([sys.executable, "-c", f"import {mod}"], capture_output=True, text=True,
                       cwd=PACKAGE.parent, timeout=60)
    assert r.returncode == 0, r.stderr

"""Load a script of bench/ as a module, for the tests of the bench scripts."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(relpath: str, name: str) -> ModuleType:
    """bench/``relpath`` imported as module ``name`` (registered in sys.modules, so that
    its functions pickle into worker processes)."""
    spec = importlib.util.spec_from_file_location(name, BENCH / relpath)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod

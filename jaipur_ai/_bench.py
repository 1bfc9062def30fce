"""Speed measurements shared by ``bench/`` and ``jaipur-ai bench``.

Timings are wall-clock on one core; every figure is the median of several runs.
Nothing here is used by the tests: speed is measured, never asserted.
"""
from __future__ import annotations

import random
import statistics
import time
from typing import Callable

from . import _core, _reference
from .state import GameState


def _median_rate(fn: Callable[[], tuple[float, int, int]], repeat: int) -> dict:
    runs = [fn() for _ in range(repeat)]
    secs = [r[0] for r in runs]
    rounds, plies = runs[0][1], runs[0][2]
    med = statistics.median(secs)
    return {
        "rounds": rounds,
        "plies": plies,
        "seconds_median": med,
        "rounds_per_second": rounds / med,
        "moves_per_second": plies / med,
        "runs_seconds": secs,
    }


def core_random_rounds(rounds: int = 20000, seed: int = 1, repeat: int = 5) -> dict:
    """Uniformly random full rounds played by the compiled core (deal included)."""
    def run() -> tuple[float, int, int]:
        t = time.perf_counter()
        plies, moves = _core.bench_random_rounds(rounds, seed)
        return time.perf_counter() - t, rounds, plies

    out = _median_rate(run, repeat)
    out["legal_moves_per_ply"] = _core.bench_random_rounds(rounds, seed)[1] / out["plies"]
    return out


def reference_random_rounds(rounds: int = 100, seed: int = 1, repeat: int = 3) -> dict:
    """The same deals played by the pure-Python reference (dealing not timed)."""
    deals = [GameState.new(seed + i, starter=i % 2).to_dict() for i in range(rounds)]

    def run() -> tuple[float, int, int]:
        plies = 0
        t = time.perf_counter()
        for i, d in enumerate(deals):
            plies += len(_reference.random_game(d, random.Random(seed + i)))
        return time.perf_counter() - t, rounds, plies

    return _median_rate(run, repeat)


def rules_report(core_rounds: int = 20000, ref_rounds: int = 100, repeat: int = 5,
                 seed: int = 1) -> dict:
    core = core_random_rounds(core_rounds, seed, repeat)
    ref = reference_random_rounds(ref_rounds, seed, max(1, repeat // 2 + 1))
    return {"core": core, "reference": ref,
            "ratio": core["rounds_per_second"] / ref["rounds_per_second"]}


def format_rules_report(r: dict) -> str:
    c, p = r["core"], r["reference"]
    lines = [
        f"{'engine':<22}{'rounds':>8}{'rounds/s':>12}{'moves/s':>14}",
        f"{'compiled core':<22}{c['rounds']:>8}{c['rounds_per_second']:>12,.0f}"
        f"{c['moves_per_second']:>14,.0f}",
        f"{'pure-Python reference':<22}{p['rounds']:>8}{p['rounds_per_second']:>12,.1f}"
        f"{p['moves_per_second']:>14,.0f}",
        f"ratio core/reference: {r['ratio']:,.0f}x   "
        f"(plies per round {c['plies'] / c['rounds']:.1f}, "
        f"legal moves per ply {c['legal_moves_per_ply']:.1f})",
    ]
    return "\n".join(lines)

"""Speed of the rules core: random full rounds, compiled core vs its plain-C limit and vs
the pure-Python reference.

Usage:  python bench/bench_core.py [--rounds 20000] [--ref-rounds 100] [--repeat 5]
                                   [--no-limit] [--callgrind ROUNDS] [--json]

Every engine plays the same deals (round i is ``GameState.new(seed + i, starter=i % 2)``),
picking uniformly among all legal moves at every ply until the round ends.

The limit is bench/c/limit.c, compiled here with the system C compiler (``$CC``, else
``cc``, ``-O3``): the same rounds played by a plain-C program with only the rules that
decide the legal moves, in two modes, each beside the core's matching path:

* enumerate: every legal move written out, one drawn (``_movegen.bench_random_rounds``);
* count: the legal moves counted, only the drawn one built (``counted=True``, the path of
  random playouts and VectorEnv's random opponent).

Both programs must play the very same rounds (the plies and the legal moves summed over
them agree, or the script stops).  The runs alternate core, C, core, C, ... so that a
machine shared with other jobs slows both alike; each figure is the median of
``--repeat`` runs and the ratio core/limit is the median of the paired ratios.
``--callgrind N`` counts instructions, branches and branch mispredictions per ply
(valgrind's callgrind with its branch simulator, N rounds) instead of timing.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from jaipur_ai.rules import _movegen
from jaipur_ai.doors._bench import format_rules_report, rules_report

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "c", "limit.c")
MODES = (("enumerate", False), ("count", True))


def compile_limit(directory: str) -> str:
    """Path of the compiled limit program (SystemExit with the compiler's message)."""
    exe = os.path.join(directory, "limit")
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-O3", "-o", exe, SOURCE]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit(f"bench_core: no C compiler {cc!r} (set CC, or pass --no-limit)")
    if res.returncode != 0:
        raise SystemExit(f"bench_core: {' '.join(cmd)} failed:\n{res.stderr}")
    return exe


def run_limit(exe: str, mode: str, rounds: int, seed: int) -> tuple[float, int, int]:
    """(seconds, plies, legal moves) of the C program (its own clock: the rounds only)."""
    out = subprocess.run([exe, mode, str(rounds), str(seed)], capture_output=True,
                         text=True, check=True).stdout.split()
    return float(out[2]), int(out[0]), int(out[1])


def run_core(counted: bool, rounds: int, seed: int) -> tuple[float, int, int]:
    t = time.perf_counter()
    plies, moves = _movegen.bench_random_rounds(rounds, seed, counted)
    return time.perf_counter() - t, plies, moves


def limit_report(rounds: int, repeat: int, seed: int) -> dict:
    """The core beside the C limit, both modes, alternating runs."""
    directory = tempfile.mkdtemp(prefix="jaipur-limit-")
    try:
        exe = compile_limit(directory)
        rows = []
        for mode, counted in MODES:
            core_s, c_s = [], []
            for _ in range(repeat):
                t, plies, moves = run_core(counted, rounds, seed)
                core_s.append(t)
                t, c_plies, c_moves = run_limit(exe, mode, rounds, seed)
                c_s.append(t)
                if (plies, moves) != (c_plies, c_moves):
                    raise SystemExit(f"bench_core: the limit played other rounds ({mode}: "
                                     f"core {plies} plies {moves} moves, "
                                     f"C {c_plies} plies {c_moves} moves)")
            rows.append({"mode": mode, "plies": plies, "moves": moves,
                         "core_plies_per_second": plies / statistics.median(core_s),
                         "limit_plies_per_second": plies / statistics.median(c_s),
                         "ratio": statistics.median(c / k for k, c in zip(core_s, c_s)),
                         "core_seconds": core_s, "limit_seconds": c_s})
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {"rounds": rounds, "repeat": repeat, "seed": seed, "modes": rows}


def format_limit_report(r: dict) -> str:
    lines = [f"{'mode':<11}{'core plies/s':>15}{'C limit plies/s':>18}{'core/limit':>12}"]
    for row in r["modes"]:
        lines.append(f"{row['mode']:<11}{row['core_plies_per_second']:>15,.0f}"
                     f"{row['limit_plies_per_second']:>18,.0f}{row['ratio']:>11.2f}x")
    e, c = r["modes"]
    lines.append(f"count/enumerate: core {c['core_plies_per_second'] / e['core_plies_per_second']:.2f}x, "
                 f"C {c['limit_plies_per_second'] / e['limit_plies_per_second']:.2f}x   "
                 f"({r['rounds']} rounds, {e['plies']} plies, median of {r['repeat']}, "
                 f"alternating)")
    return "\n".join(lines)


_CG = {"instructions": r"I\s+refs:\s+([\d,]+)", "branches": r"Branches:\s+([\d,]+)",
       "mispredictions": r"Mispredicts:\s+([\d,]+)"}


def _callgrind(cmd: list[str], collect: str) -> dict:
    res = subprocess.run(["valgrind", "--tool=callgrind", "--branch-sim=yes",
                          f"--toggle-collect={collect}", "--callgrind-out-file=/dev/null", *cmd],
                         capture_output=True, text=True, check=True)
    return {k: int(re.search(p, res.stderr).group(1).replace(",", "")) for k, p in _CG.items()}


def callgrind_report(rounds: int, seed: int) -> dict:
    """Per ply: instructions, branches and mispredictions of the rounds only (the core's
    bench_random_rounds, the limit's play())."""
    if shutil.which("valgrind") is None:
        raise SystemExit("bench_core: --callgrind needs valgrind")
    directory = tempfile.mkdtemp(prefix="jaipur-limit-")
    try:
        exe = compile_limit(directory)
        rows = []
        for mode, counted in MODES:
            plies = run_limit(exe, mode, rounds, seed)[1]
            core = _callgrind([sys.executable, "-c", "from jaipur_ai.rules import _movegen; "
                               f"_movegen.bench_random_rounds({rounds}, {seed}, {counted})"],
                              "__pyx_pf_*bench_random_rounds*")
            limit = _callgrind([exe, mode, str(rounds), str(seed)], "play*")
            rows.append({"mode": mode, "plies": plies,
                         "core": {k: v / plies for k, v in core.items()},
                         "limit": {k: v / plies for k, v in limit.items()}})
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {"rounds": rounds, "seed": seed, "modes": rows}


def format_callgrind_report(r: dict) -> str:
    lines = [f"per ply ({r['rounds']} rounds)    instructions      branches   mispredictions",
             f"{'':<22}{'core':>7}{'C':>7}{'core':>8}{'C':>6}{'core':>9}{'C':>7}"]
    for row in r["modes"]:
        c, k = row["core"], row["limit"]
        lines.append(f"{row['mode']:<22}{c['instructions']:>7.0f}{k['instructions']:>7.0f}"
                     f"{c['branches']:>8.1f}{k['branches']:>6.1f}"
                     f"{c['mispredictions']:>9.1f}{k['mispredictions']:>7.1f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20000)
    ap.add_argument("--ref-rounds", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-limit", action="store_true", help="skip the plain-C limit")
    ap.add_argument("--callgrind", type=int, metavar="ROUNDS",
                    help="count instructions and branches per ply instead of timing")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.callgrind:
        r = callgrind_report(a.callgrind, a.seed)
        print(json.dumps(r, indent=2) if a.json else format_callgrind_report(r))
        return
    out = {"rules": rules_report(a.rounds, a.ref_rounds, a.repeat, a.seed)}
    if not a.no_limit:
        out["limit"] = limit_report(a.rounds, a.repeat, a.seed)
    if a.json:
        print(json.dumps(out, indent=2))
        return
    print(format_rules_report(out["rules"]))
    if "limit" in out:
        print()
        print(format_limit_report(out["limit"]))


if __name__ == "__main__":
    main()

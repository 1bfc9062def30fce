"""Speed measurements shared by ``bench/`` and ``jaipur-ai bench``.

Timings are wall-clock on one core; every figure is the median of several runs.
Nothing here is used by the tests: speed is measured, never asserted.
"""
from __future__ import annotations

import random
import statistics
import time
from typing import Any, Callable, Optional

from jaipur_ai.rules import _movegen

from jaipur_ai.rules import _reference
from jaipur_ai.rules.position import GameState


def _median_rate(fn: Callable[[], tuple[float, int, int]], repeat: int) -> dict[str, Any]:
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


def core_random_rounds(rounds: int = 20000, seed: int = 1, repeat: int = 5) -> dict[str, Any]:
    """Uniformly random full rounds played by the compiled core (deal included)."""
    def run() -> tuple[float, int, int]:
        t = time.perf_counter()
        plies, moves = _movegen.bench_random_rounds(rounds, seed)
        return time.perf_counter() - t, rounds, plies

    out = _median_rate(run, repeat)
    out["legal_moves_per_ply"] = _movegen.bench_random_rounds(rounds, seed)[1] / out["plies"]
    return out


def reference_random_rounds(rounds: int = 100, seed: int = 1, repeat: int = 3) -> dict[str, Any]:
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
                 seed: int = 1) -> dict[str, Any]:
    core = core_random_rounds(core_rounds, seed, repeat)
    ref = reference_random_rounds(ref_rounds, seed, max(1, repeat // 2 + 1))
    return {"core": core, "reference": ref,
            "ratio": core["rounds_per_second"] / ref["rounds_per_second"]}


def format_rules_report(r: dict[str, Any]) -> str:
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


# ---------------------------------------------------------------------------
# Search speed
# ---------------------------------------------------------------------------
PHASES = (("early", 0.10), ("middle", 0.50), ("late", 0.75))


def search_positions(seeds: int = 8) -> dict[str, list[GameState]]:
    """{phase: [GameState]}: for each seed 1..n a round is dealt
    (``GameState.new(seed, starter=seed % 2)``) and played out by the greedy engine;
    the positions at 10 %, 50 % and 75 % of its plies are that seed's early, middle
    and late positions."""
    from jaipur_ai.search.engine import Engine
    greedy = Engine("greedy")
    out: dict[str, list[GameState]] = {name: [] for name, _ in PHASES}
    for seed in range(1, seeds + 1):
        s = GameState.new(seed=seed, starter=seed % 2)
        line = []
        while not s.is_round_over:
            line.append(s)
            s = s.apply(greedy.best_move(s, seed=seed * 1000 + len(line)))
        for name, frac in PHASES:
            out[name].append(line[min(len(line) - 1, int(frac * len(line)))])
    return out


def _engine_tree(**options: Any) -> dict[str, Any]:
    """The searcher settings an Engine passes by default (or with these options); the
    playout is given separately to ismcts_rate."""
    from jaipur_ai.search.engine import Engine
    d = Engine.from_options(**options).searcher_options()
    d.pop("playout")
    return d


def ismcts_configs(weights: Optional[str] = None) -> tuple[Any, ...]:
    """The configurations timed: the Engine's default (learned evaluation and priors,
    PUCT below the root, chance nodes, playouts cut after ``cutoff`` plies, the
    opponent's view, its statistics by hand, every move past 1000 visits), the same
    with pooled statistics and the candidates only (the previous default), the same
    without the opponent's view either, the default with the hand-set evaluation, the
    flat search, and the textbook UCB tree with whole playouts; ``weights``: a weights
    file the learned rows use instead of the shipped one (to time the weights of
    another feature set)."""
    learned = {} if weights is None else {"weights": weights}
    pooled = {"opponent_stats": "pooled", "all_moves_after": 0, **learned}
    heuristic = _engine_tree(evaluation="heuristic", settings="handset")
    return (
        ("default (learned evaluation and priors, opponent's view and hand)", "informed",
         _engine_tree(**learned)),
        ("learned, opponent_stats=pooled, all_moves_after=0 (an earlier default)", "informed",
         _engine_tree(**pooled)),
        ("learned, pooled, opponent_view=off", "informed",
         _engine_tree(opponent_view="off", **pooled)),
        ("hand-set evaluation and priors", "informed", heuristic),
        ("flat (depth 1), hand-set", "informed", {**heuristic, "tree_depth": 1}),
        ("UCB tree, whole playouts", "informed",
         {"tree_depth": 0, "cutoff": 0, "puct": 0.0, "chance_nodes": False}),
        ("UCB tree, random playouts", "random",
         {"tree_depth": 0, "cutoff": 0, "puct": 0.0, "chance_nodes": False}),
    )


def evaluation_cost(states: list[GameState], n: int = 200000,
                    weights: Optional[str] = None) -> dict[str, Any]:
    """Nanoseconds per leaf evaluation (hand-set and learned: the shipped weights, or
    ``weights``), median over states."""
    from jaipur_ai.search._evaluation import time_evaluation
    from jaipur_ai.search.evaluation import default_evaluation, load_evaluation
    ev = default_evaluation() if weights is None else load_evaluation(weights)
    return {"heuristic_ns": 1e9 * statistics.median(time_evaluation(s._core, n) for s in states),
            "learned_ns": 1e9 * statistics.median(time_evaluation(s._core, n, ev)
                                                  for s in states),
            "learned_features": ev.n_features}


def ismcts_rate(states: list[GameState], playout: str, iterations: int,
                **options: Any) -> tuple[float, float, float]:
    """(iterations/s, mean legal moves at the root, mean playout plies), one thread."""
    from jaipur_ai.search import _search
    total_t = 0.0
    moves = plies = 0.0
    for i, s in enumerate(states):
        se = _search.IsmctsSearcher(s.view(s.to_move)._core, seed=i + 1, playout=playout,
                                    **options)
        t = time.perf_counter()
        se.run(iterations=iterations)
        total_t += time.perf_counter() - t
        sm = se.summary()
        moves += sm["root_moves"]
        plies += sm["playout_plies"] / max(1, sm["iterations"])
    return len(states) * iterations / total_t, moves / len(states), plies / len(states)


def expectimax_rate(states: list[GameState], depth: int, samples: int) -> tuple[float, float]:
    """(nodes/s, mean nodes per search) for a full search to ``depth``, one thread."""
    from jaipur_ai.search import _search
    total_t = 0.0
    nodes = 0
    for i, s in enumerate(states):
        x = _search.ExpectimaxSearcher(s.view(s.to_move)._core, seed=i + 1, samples=samples)
        t = time.perf_counter()
        for d in range(1, depth + 1):
            x.run_depth(d)
        total_t += time.perf_counter() - t
        nodes += x.nodes
    return nodes / total_t, nodes / len(states)


def search_report(quick: bool = False, seeds: int = 8, iterations: int = 20000,
                  repeat: int = 5, depth: int = 3, samples: int = 8,
                  weights: Optional[str] = None,
                  progress: Optional[Callable[[str], None]] = None) -> dict[str, Any]:
    """ISMCTS iterations/s (informed and random playouts) and expectimax nodes/s on
    early, middle and late positions; medians of ``repeat`` runs (``weights``: see
    ismcts_configs); ``progress(text)`` is told each configuration as it starts."""
    if quick:
        seeds, iterations, repeat, depth = 2, 2000, 1, 2
    pos = search_positions(seeds)
    ismcts, expectimax = [], []
    configs = ismcts_configs(weights)
    done, total = 0, len(PHASES) * (len(configs) + 1)
    for name, _ in PHASES:
        for config, playout, options in configs:
            if progress is not None:
                progress(f"search {done + 1}/{total}: {name}, {config}")
            done += 1
            runs = [ismcts_rate(pos[name], playout, iterations, **options)
                    for _ in range(repeat)]
            ismcts.append({"phase": name, "config": config, "playout": playout,
                           "legal_moves": runs[0][1],
                           "iterations_per_second": statistics.median(r[0] for r in runs),
                           "plies_per_playout": runs[0][2]})
        if progress is not None:
            progress(f"search {done + 1}/{total}: {name}, expectimax")
        done += 1
        runs_x = [expectimax_rate(pos[name], depth, samples) for _ in range(repeat)]
        expectimax.append({"phase": name,
                           "nodes_per_second": statistics.median(r[0] for r in runs_x),
                           "nodes_per_search": runs_x[0][1]})
    cost = evaluation_cost(pos["middle"], 20000 if quick else 200000, weights)
    return {"seeds": seeds, "iterations": iterations, "repeat": repeat, "depth": depth,
            "samples": samples, "ismcts": ismcts, "expectimax": expectimax,
            "evaluation": cost}


def format_search_report(r: dict[str, Any]) -> str:
    lines = [f"ISMCTS, one thread, {r['iterations']} iterations per position, "
             f"{r['seeds']} positions per phase, median of {r['repeat']}",
             "| phase | legal moves | search | iterations/s | plies per playout |",
             "| --- | ---: | --- | ---: | ---: |"]
    for row in r["ismcts"]:
        lines.append(f"| {row['phase']} | {row['legal_moves']:.0f} | {row['config']} | "
                     f"{row['iterations_per_second']:,.0f} | {row['plies_per_playout']:.1f} |")
    lines += ["", f"Expectimax, one thread, depth {r['depth']}, {r['samples']} worlds, "
                  f"median of {r['repeat']}",
              "| phase | nodes/s | nodes per search |", "| --- | ---: | ---: |"]
    for row in r["expectimax"]:
        lines.append(f"| {row['phase']} | {row['nodes_per_second']:,.0f} | "
                     f"{row['nodes_per_search']:,.0f} |")
    c = r["evaluation"]
    lines += ["", "Leaf evaluation, one call, middle positions (median)",
              "| evaluation | ns per call |", "| --- | ---: |",
              f"| hand-set | {c['heuristic_ns']:,.0f} |",
              f"| learned | {c['learned_ns']:,.0f} |"]
    return "\n".join(lines)

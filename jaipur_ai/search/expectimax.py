"""Running expectimax (docs/search.md, "Expectimax"): iterative deepening over sampled
worlds, the root filter that picks what each deeper depth searches, more worlds where
the next depth would not finish (``more_worlds``), and the searchers' values merged into
an :class:`Analysis`.

Each :class:`~jaipur_ai.search._search.ExpectimaxSearcher` holds some of the worlds and
searches a whole depth at a time; a depth cut short by the budget is thrown away.  So
time spent on a depth that cannot finish is lost: with ``more_worlds`` the driver
predicts the next depth's cost from the last two (their ratio, the search's effective
branching factor) and, when it would not fit in what is left of the budget, spends the
rest on new batches of worlds searched to the depth already completed (with the same
root filter), each batch kept only when it completes.  More time then buys width
(worlds, the hidden cards averaged better) where it cannot buy depth.
"""
from __future__ import annotations

import time as _time
from typing import Any, Callable, Optional

from jaipur_ai.options import MAX_DEPTH
from jaipur_ai.rules.move import Move
from jaipur_ai.search._search import ExpectimaxSearcher, decisive_kind, derive_seed
from jaipur_ai.search.analysis import Analysis, Candidate
from jaipur_ai.search.clock import TimePlan
from jaipur_ai.search.drive import Call, Run, add_stats, decisive_means, judge, run_threads

__all__ = ["run_expectimax", "expectimax_stop", "DEFAULT_DEPTH", "BATCH_STREAM"]

DEFAULT_DEPTH = 3
"""Expectimax plies when ``depth`` is not given and the search has no time limit (with
one, it deepens until the time is spent, up to :data:`jaipur_ai.options.MAX_DEPTH`)."""

#: The worlds of ``more_worlds``' batch b, searcher i are drawn from
#: ``derive_seed(seed, BATCH_STREAM + b * threads + i)``: apart from the first worlds'.
BATCH_STREAM = 1 << 20


def _searchers(run: Run, core: Any, seeds: list[int], counts: list[int]) -> list[Any]:
    st = run.settings
    return [ExpectimaxSearcher(core, seed=s, samples=c, beam=st.beam,
                               chance_samples=st.chance_samples, chance_top=st.chance_top,
                               decisive_samples=st.decisive_samples,
                               evaluation=run.evaluation, judge=False,
                               inner_policy=st.inner_moves == "policy",
                               prior_temp=st.prior_temp, policy=st.policy)
            for s, c in zip(seeds, counts)]


def _split(total: int, n: int) -> list[int]:
    return [total // n + (1 if i < total % n else 0) for i in range(n)]


def run_expectimax(run: Run, core: Any, time: Optional[float], iterations: Optional[int],
                   seed: int, call: Call, on_progress: Optional[Callable[[Analysis], Any]],
                   short_circuit: bool, t0: float, top: Optional[int],
                   clock: bool = False) -> Analysis:
    """The expectimax analysis of ``core`` (its threads split the worlds).  ``clock``:
    the time is a clock's, so a forced move (one legal move) stops after depth 1."""
    settings = run.settings
    samples = 1 if run.perfect_information else settings.samples
    n = max(1, min(run.threads, samples))
    counts = _split(samples, n)
    seeds = [seed] if n == 1 else [derive_seed(seed, i) for i in range(n)]
    searchers = _searchers(run, core, seeds, counts)
    call.add(searchers)
    deadline = None if time is None else t0 + time
    judge(searchers, deadline, call)
    depth_done = 0
    decided = short_circuit and any(
        c["decisive"] == "win" for c in searchers[0].summary()["children"])
    max_depth = settings.depth if settings.depth is not None else (
        DEFAULT_DEPTH if time is None else MAX_DEPTH)
    keeps: list[Optional[list[int]]] = []     # the root moves searched at each depth
    costs: list[tuple[int, float]] = []       # each depth's nodes and seconds
    d = 1
    while not decided and d <= max_depth:
        if call.stopped():
            call.stop()
            break
        if deadline is not None and d > 1 and _time.monotonic() >= deadline:
            break           # the budget is spent: no deeper search starts
        if settings.more_worlds and not run.perfect_information and _next_depth_too_dear(
                costs, searchers, iterations, deadline):    # (one world is the truth)
            _more_worlds(run, core, seed, call, searchers, keeps, iterations, deadline)
            break
        keep = _root_filter(run, searchers, seed, t0, core, d, depth_done)
        before = (sum(s.nodes for s in searchers), _time.monotonic())
        if not _run_depth(searchers, d, keep, iterations, deadline, call):
            break
        costs.append((sum(s.nodes for s in searchers) - before[0],
                      _time.monotonic() - before[1]))
        keeps.append(keep)
        depth_done = d
        if clock and searchers[0].n_moves <= 1:
            break                   # (forced: no depth changes the answer)
        if on_progress is not None and d < max_depth:
            on_progress(_result(run, searchers, seed, t0, top, d))
        d += 1
    return _result(run, searchers, seed, t0, top, depth_done)


def expectimax_stop(a: Analysis, plan: Optional[TimePlan]) -> str:
    """Why an expectimax search on a clock's ``plan`` stopped, in the clock's words
    (:data:`jaipur_ai.search.clock.STOPS`): stopped, forced, soft (the plan's soft
    limit was spent) or depth (it reached its depth limit)."""
    if a.stopped:
        return "stopped"
    if a.legal_moves == 1:
        return "forced"
    return "soft" if plan is not None and a.elapsed >= plan.soft else "depth"


def _run_depth(searchers: list[Any], d: int, keep: Optional[list[int]],
               iterations: Optional[int], deadline: Optional[float], call: Call) -> bool:
    """Search depth ``d`` in every searcher's worlds (threads); True when all completed.
    A node budget is shared out evenly over the searchers."""
    results = [False] * len(searchers)
    budget = None if iterations is None else _split(iterations, len(searchers))
    jobs = []
    for i, s in enumerate(searchers):
        # depth 1 is completed whatever the node budget (unless stopped or out of
        # time): it is cheap, and without it nothing is ranked
        lim = None if budget is None or d == 1 else budget[i] - s.nodes

        def job(i: Any = i, s: Any = s, lim: Any = lim) -> None:
            results[i] = s.run_depth(d, node_limit=lim, deadline=deadline, moves=keep)
        jobs.append(job)
    run_threads(jobs, call)
    return all(results)


def _next_depth_too_dear(costs: list[tuple[int, float]], searchers: list[Any],
                         iterations: Optional[int], deadline: Optional[float]) -> bool:
    """Whether the next depth, priced at the last depth's cost times its growth in
    nodes over the depth before, would need more than TOO_DEAR times what is left of
    the budget (seconds on a clock, priced at the last depth's rate; else nodes)."""
    if len(costs) < 2 or costs[-2][0] <= 0:
        return False
    growth = costs[-1][0] / costs[-2][0]
    if deadline is not None:
        return costs[-1][1] * growth > TOO_DEAR * (deadline - _time.monotonic())
    if iterations is not None:
        spent: int = sum(s.nodes for s in searchers)
        return costs[-1][0] * growth > TOO_DEAR * (iterations - spent)
    return False


#: The next depth gives way to more worlds when its predicted cost is more than this
#: many times the budget left.
TOO_DEAR = 1.0


def _more_worlds(run: Run, core: Any, seed: int, call: Call, searchers: list[Any],
                 keeps: list[Optional[list[int]]], iterations: Optional[int],
                 deadline: Optional[float]) -> None:
    """Batches of new worlds searched to the depths already completed, with the same
    root moves at each depth, until the budget is spent; a batch cut short is dropped.
    Completed batches join ``searchers``."""
    n = len(searchers)
    counts = [1] * n              # a world a thread: small batches waste little at the end
    b = 0
    while not call.stopped() and b < MAX_BATCHES:
        if deadline is not None and _time.monotonic() >= deadline:
            break
        left = None if iterations is None else iterations - sum(s.nodes for s in searchers)
        if left is not None and left <= 0:
            break
        seeds = [derive_seed(seed, BATCH_STREAM + b * n + i) for i in range(n)]
        batch = _searchers(run, core, seeds, counts)
        call.add(batch)
        # (a node budget: what is left now, plus what the batch has spent so far)
        ok = all(_run_depth(batch, d, keep, None if left is None else
                            left + sum(s.nodes for s in batch), deadline, call)
                 for d, keep in enumerate(keeps, 1))
        if not ok:
            break
        searchers.extend(batch)
        b += 1


#: At most this many batches of new worlds (a bound for a long search on a small tree).
MAX_BATCHES = 512


def _root_filter(run: Run, searchers: list[Any], seed: int, t0: float, core: Any, d: int,
                 depth_done: int) -> Optional[list[int]]:
    """The root moves (their indices) searched at depth ``d``: every one, or with
    ``root_filter=k`` from depth 2 on the best k of the depth before (GNU Backgammon's
    move filters: a shallow pass picks what a deeper one looks at)."""
    k = run.settings.root_filter
    if k <= 0 or d < 2 or depth_done < 1 or searchers[0].n_moves <= k:
        return None
    ranked = _result(run, searchers, seed, t0, None, depth_done).candidates
    index = {a: i for i, a in enumerate(searchers[0].root_actions())}
    return sorted(index[c.move.action_id] for c in ranked[:k])


def _result(run: Run, searchers: list[Any], seed: int, t0: float, top: Optional[int],
            depth: int) -> Analysis:
    """The searchers' root moves merged: a move's value is the mean over the worlds
    that searched it to its deepest depth (a root filter leaves moves at different
    depths; values of different depths do not compare, so deeper moves rank first)."""
    sums: dict[int, dict[str, Any]] = {}
    nodes = 0
    worlds = 0
    stopped = False
    for s in searchers:
        # the values as of the depth reported (a thread may have finished a deeper one)
        sm = s.summary(depth if 0 < depth <= s.depth_done else None)
        nodes += sm["nodes"]
        worlds += sm["determinizations"]
        stopped = stopped or sm["stopped"]
        for c in sm["children"]:
            e = sums.setdefault(c["action"], {"action": c["action"], "n": 0, "v": 0.0,
                                              "m": 0.0, "pv": c["pv"], "dec": None,
                                              "depth": 0})
            e["dec"] = add_stats(e["dec"], c["decisive_stats"])
            if c["depth"] < e["depth"] or c["depth"] == 0:
                continue
            if c["depth"] > e["depth"]:       # a deeper search of the move: start again
                e.update(depth=c["depth"], n=0, v=0.0, m=0.0, pv=c["pv"])
            w = s.samples
            e["n"] += w
            e["v"] += c["value"] * w
            e["m"] += c["margin"] * w
            if len(c["pv"]) > len(e["pv"]):
                e["pv"] = c["pv"]
    children = []
    for e in sums.values():
        st = e["dec"]
        n_ = e["n"]
        if n_:
            val, mar = e["v"] / n_, e["m"] / n_
        elif st is not None and st[0]:
            # no depth completed: a round-ending move is still known by its samples
            val, mar = decisive_means(st)
        else:
            continue          # not searched: no candidate
        # a move the root filter left at a shallower depth keeps its value, with no
        # worlds: it is not among the moves the reported depth compared
        children.append({"action": e["action"], "visits": n_ if e["depth"] >= depth else 0,
                         "value": val,
                         "margin": mar, "pv": e["pv"], "decisive": decisive_kind(st),
                         "depth": e["depth"]})

    def key(c: Any) -> Any:
        cls = 0 if c["decisive"] == "win" else (2 if c["decisive"] == "loss" else 1)
        return (cls, -c["depth"], -c["value"], -c["margin"], c["action"])
    children.sort(key=key)
    if top is not None:
        children = children[:max(1, int(top))]
    cands = [Candidate(Move.from_action_id(c["action"]), c["visits"], c["value"],
                       c["margin"], [Move.from_action_id(a) for a in c["pv"]], None,
                       c["decisive"])
             for c in children]
    return Analysis(cands, "expectimax", seed, nodes, worlds, _time.monotonic() - t0,
                    threads=min(run.threads, len(searchers)), depth=depth, stopped=stopped,
                    perfect_information=run.perfect_information,
                    legal_moves=searchers[0].n_moves, options=run.options)

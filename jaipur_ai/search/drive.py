"""Running the compiled searchers of one search: the threads, the limits and stopping,
and the statistics of the threads' trees merged into an :class:`Analysis`
(:class:`jaipur_ai.search.engine.Engine` decides what to run, this module runs it)."""
from __future__ import annotations

import dataclasses
import threading
import time as _time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from jaipur_ai.errors import InvalidPositionError
from jaipur_ai.rules.move import Move
from jaipur_ai.search._evaluation import Evaluation
from jaipur_ai.search._search import (IsmctsSearcher, decisive_kind,
                                      derive_seed, greedy_scores, random_action,
                                      rank_children)
from jaipur_ai.search.analysis import Analysis, Candidate
from jaipur_ai.search.clock import MIN_CHECK, TimeKeeper, TimePlan
from jaipur_ai.search.endgame import near_end, solve_endgame
from jaipur_ai.search.evaluation import calibrated
from jaipur_ai.search.settings import Settings
from jaipur_ai.search.threads import run_threads

__all__ = ["Call", "Run", "run_ismcts", "run_greedy", "run_random", "judge", "add_stats", "decisive_means",
           "with_clock", "run_threads", "merge_trees", "candidates_of"]



def _initial_nodes(max_nodes: int) -> int:
    """Nodes each tree starts with: 1024 (the pool grows by doubling as needed, so a
    short search allocates little; node numbers, hence results, do not change)."""
    return min(max_nodes, 1024)


def _move(a: int) -> Move:
    return Move.from_action_id(int(a))


@dataclass(frozen=True)
class Run:
    """What the searches of one engine run with."""

    threads: int                          #: threads (trees, or shares of the worlds)
    settings: Settings                    #: the search's tuning
    evaluation: Optional[Evaluation]      #: the loaded learned evaluation, or None
    perfect_information: bool             #: searching the true full state
    options: dict[str, Any]               #: the engine's options, recorded in each Analysis
    searcher: dict[str, Any]              #: the keyword arguments of IsmctsSearcher


class Call:
    """One running search: its searchers and how it is stopped (Engine.stop() or the
    caller's stop_event)."""

    def __init__(self, stop_event: Optional[threading.Event]) -> None:
        self.event = stop_event
        self.searchers: list[Any] = []
        self.requested = False
        self.lock = threading.Lock()

    def add(self, searchers: list[Any]) -> None:
        with self.lock:
            self.searchers.extend(searchers)
            if self.requested:
                for s in searchers:
                    s.stop()

    def stop(self) -> None:
        with self.lock:
            self.requested = True
            for s in self.searchers:
                s.stop()

    def stopped(self) -> bool:
        return self.requested or (self.event is not None and self.event.is_set())


def judge(searchers: list[Any], deadline: Optional[float], call: Call) -> None:
    """The round-ending root moves of each searcher, judged in threads: within the
    time budget and stopped by stop()/stop_event like every other loop."""
    if call.stopped():
        call.stop()
        return
    # the absolute deadline, not the seconds left: a thread that starts late
    # must not carry its start-up delay past the budget
    run_threads([lambda s=s: s.judge_decisive(deadline=deadline) for s in searchers], call)


# ISMCTS ------------------------------------------------------------------


def run_ismcts(run: Run, core: Any, time: Optional[float], iterations: Optional[int],
               seed: int, call: Call, on_progress: Optional[Callable[[Analysis], Any]],
               report_every: Optional[float], short_circuit: bool, t0: float,
               top: Optional[int], hand_prior: Optional[tuple[Any, Any]] = None,
               plan: Optional[TimePlan] = None) -> Analysis:
    """The ISMCTS analysis of ``core``.  With a clock's ``plan``
    (:mod:`jaipur_ai.search.clock`) the search runs until its :class:`TimeKeeper`
    stops it, at the latest at ``plan.hard`` seconds (``time`` is then that limit)."""
    keeper = None if plan is None else TimeKeeper(plan)
    # the searchers run in slices: a report interval, or the keeper's interval
    # between looks at the root when it is shorter
    chunk = report_every
    if keeper is not None:
        chunk = keeper.plan.check_every if chunk is None else min(chunk,
                                                                  keeper.plan.check_every)
    if near_end(core, run.settings):
        solved = solve_endgame(run.settings, core, time, iterations, seed, call, t0, top,
                               run.options, hand_prior)
        if solved is not None:
            return with_clock(solved, plan, "endgame")
    n = run.threads
    seeds = [seed] if n == 1 else [derive_seed(seed, i) for i in range(n)]
    opts = dict(run.searcher)
    opts["initial_nodes"] = _initial_nodes(run.settings.max_nodes)
    searchers = [IsmctsSearcher(core, seed=s, judge=False, **opts) for s in seeds]
    if hand_prior is not None:
        for s in searchers:
            try:
                s.set_hand_prior(*hand_prior)
            except (TypeError, ValueError, OverflowError) as e:
                raise InvalidPositionError("hand_prior", str(e) or type(e).__name__) from None
    quota = None
    if iterations is not None:
        quota = [iterations // n + (1 if i < iterations % n else 0) for i in range(n)]
    call.add(searchers)
    deadline = None if time is None else t0 + time
    judge(searchers, deadline, call)
    why = None                    # why the search stopped (a search on a clock says)
    if short_circuit and searchers[0].decisive_win is not None:
        why = "decisive"
    elif keeper is not None and deadline is not None and \
            searchers[0].summary(pv_len=1)["root_moves"] <= 1:
        deadline = min(deadline, _time.monotonic() + MIN_CHECK)  # a forced move: one slice
    started = _time.monotonic()   # (the keeper's rate counts the search's own time)
    last_report = t0
    while why is None:
        if call.stopped():
            call.stop()
            why = "stopped"
            break
        # the searchers stop at the absolute deadline (a thread's start-up
        # delay is not added to the budget), or after a slice
        jobs = []
        for i, s in enumerate(searchers):
            it = None if quota is None else quota[i] - s.iterations
            jobs.append(lambda s=s, it=it: s.run(iterations=it, seconds=chunk,
                                                 deadline=deadline))
        run_threads(jobs, call)
        if call.stopped():
            why = "stopped"
        elif quota is not None and all(s.iterations >= q for s, q in zip(searchers, quota)):
            why = "iterations"
        elif keeper is not None and _keeper_stops(keeper, searchers, t0, started):
            why = keeper.reason
        elif deadline is not None and _time.monotonic() >= deadline:
            why = "hard"
        elif on_progress is not None and report_every is not None \
                and _time.monotonic() - last_report >= report_every * 0.999:
            # (every slice is a report interval long without a keeper; with one, a
            # report comes once the interval is over; the tolerance absorbs rounding)
            last_report = _time.monotonic()
            on_progress(_ismcts_result(run, searchers, seed, t0, top, hand_prior))
    return with_clock(_ismcts_result(run, searchers, seed, t0, top, hand_prior), plan,
                      why or "hard")


def with_clock(analysis: Analysis, plan: Optional[TimePlan], stop: str) -> Analysis:
    """``analysis`` with its ``clock``: the plan of a move on a clock and why its search
    stopped (:data:`jaipur_ai.search.clock.STOPS`); unchanged without a plan."""
    if plan is None:
        return analysis
    return dataclasses.replace(analysis, clock=dict(plan.to_dict(), stop=stop))


def _keeper_stops(keeper: TimeKeeper, searchers: list[Any], t0: float,
                  started: float) -> bool:
    """Whether the time keeper of a move on a clock stops its search now: it reads the
    root moves' visits and values, summed over the threads, most visited first (the
    summaries without their lines of play: this runs every few milliseconds), and the
    rate of the search since it ``started``."""
    visits: dict[int, int] = {}
    values: dict[int, float] = {}
    legal = iterations = 0
    for s in searchers:
        sm = s.summary(pv_len=1)
        legal, iterations = sm["root_moves"], iterations + sm["iterations"]
        for c in sm["children"]:
            a, v = c["action"], c["visits"]
            visits[a] = visits.get(a, 0) + v
            values[a] = values.get(a, 0.0) + c["value"] * v
    order = sorted(visits, key=lambda a: -visits[a])
    now = _time.monotonic()
    rate = iterations / (now - started) if now > started else 0.0
    return keeper.decide([visits[a] for a in order],
                         [values[a] / visits[a] if visits[a] else 0.0 for a in order],
                         legal, rate, now - t0)


def decisive_means(st: Sequence[Any]) -> tuple[float, float]:
    """A round-ending move's win chance and mean margin from its decisive statistics
    ``[worlds, wins, draws, losses, margin sum]`` (worlds > 0), a draw half a win."""
    return (st[1] + 0.5 * st[2]) / st[0], st[4] / st[0]


def add_stats(total: Optional[list[Any]], st: Optional[Sequence[Any]]) -> Optional[list[Any]]:
    """The decisive statistics of one root move summed over searchers (None: none yet)."""
    if st is None:
        return total
    return list(st) if total is None else [x + y for x, y in zip(total, st)]


def merge_trees(searchers: list[Any], calibration: Any = None,
                ) -> tuple[list[dict[str, Any]], int, int, int, bool]:
    """The root moves of several trees (root-parallel ISMCTS, or PIMC's worlds) merged:
    visits summed, values weighted by visits, each move's line from the tree that
    visited it most; ranked by :func:`rank_children`.  With ``calibration`` (the
    learned evaluation's map) the win % is mapped as a fair search's is.  Returns the
    children, the iterations and worlds in all, the legal moves and whether stopped."""
    sums: dict[int, dict[str, Any]] = {}
    iters = dets = 0
    legal = 0
    stopped = False
    for s in searchers:
        sm = s.summary()
        iters += sm["iterations"]
        dets += sm["determinizations"]
        legal = sm["root_moves"]
        stopped = stopped or sm["stopped"]
        for c in sm["children"]:
            a = c["action"]
            e = sums.setdefault(a, {"action": a, "visits": 0, "v": 0.0, "w": 0.0,
                                    "m": 0.0, "pv": c["pv"], "pvv": -1, "dec": None})
            v = c["visits"]
            e["visits"] += v
            e["v"] += c["value"] * v
            e["w"] += c["win"] * v
            e["m"] += c["margin"] * v
            if v > e["pvv"]:
                e["pv"], e["pvv"] = c["pv"], v
            e["dec"] = add_stats(e["dec"], c["decisive_stats"])
    children = []
    for e in sums.values():
        v = e["visits"]
        st = e["dec"]
        if v:
            val, win, mar = e["v"] / v, e["w"] / v, e["m"] / v
            if calibration is not None and not (st is not None and st[0]):
                win = calibrated(win, calibration, iters)
        elif st is not None and st[0]:
            val, mar = decisive_means(st)
            win = val
        else:
            val = win = mar = 0.0
        children.append({"action": e["action"], "visits": v, "value": val, "win": win,
                         "margin": mar, "pv": e["pv"], "decisive": decisive_kind(st)})
    rank_children(children)
    return children, iters, dets, legal, stopped


def candidates_of(children: list[dict[str, Any]]) -> list[Candidate]:
    """The :class:`Candidate` of each merged child (:func:`merge_trees`), in order."""
    return [Candidate(_move(c["action"]), c["visits"], c["win"], c["margin"],
                      [_move(a) for a in c["pv"]], None, c["decisive"])
            for c in children]


def _ismcts_result(run: Run, searchers: list[Any], seed: int, t0: float,
                   top: Optional[int], hand_prior: Any = None) -> Analysis:
    # a search whose belief read the round's moves (a hand prior) is less optimistic
    # than one of the position alone, and has a map of its own (docs/search.md,
    # "Calibration of the reported win probability")
    ev = run.evaluation
    children, iters, dets, legal, stopped = merge_trees(
        searchers, None if ev is None else
        ev.calibration if hand_prior is None else ev.calibration_moves)
    if top is not None:
        children = children[:max(1, int(top))]
    return Analysis(candidates_of(children), "ismcts", seed, iters, dets,
                    _time.monotonic() - t0, threads=len(searchers), stopped=stopped,
                    perfect_information=run.perfect_information, legal_moves=legal,
                    options=run.options)


# Expectimax --------------------------------------------------------------


# Greedy and random ---------------------------------------------------------


def run_greedy(run: Run, core: Any, seed: int, t0: float, top: Optional[int],
               time: Optional[float] = None) -> Analysis:
    scores, table = greedy_scores(core, seed, run.settings.decisive_samples, time)
    cands = []
    for a, sc, st in scores[: (len(scores) if top is None else max(1, int(top)))]:
        win = mar = None
        if st is not None and st[0]:
            win, mar = decisive_means(st)
        cands.append(Candidate(_move(a), 0, win, mar, [_move(a)], float(sc),
                               decisive_kind(st)))
    dets = (1 if run.perfect_information else run.settings.decisive_samples) if table else 0
    return Analysis(cands, "greedy", seed, 0, dets, _time.monotonic() - t0,
                    perfect_information=run.perfect_information,
                    legal_moves=len(scores), options=run.options)


def run_random(run: Run, core: Any, seed: int, t0: float) -> Analysis:
    a, n = random_action(core, seed)
    m = _move(a)
    return Analysis([Candidate(m, 0, None, None, [m])], "random", seed, 0, 0,
                    _time.monotonic() - t0, perfect_information=run.perfect_information,
                    legal_moves=n, options=run.options)

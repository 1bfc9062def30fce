"""Exact endgames for the ISMCTS engine: near the end of the round, the rest of the round
is solved first (the compiled :class:`~jaipur_ai.search._endgame.EndgameSolver`), and
when one move is proven best within the budget the search returns it; otherwise the tree
search runs as usual (docs/search.md, "Exact endgames").

The solve deepens one ply at a time, each depth solved twice (the positions left at the
horizon worth 0, then 1), until one root move's lower bound is at least every other
move's upper bound (unless the round is lost in every world: the tree search then
plays for what the worlds may have missed), the solve is exact, or the budget is
spent: a share of the move's
time (:data:`TIME_SHARE`), and a number of positions (``Settings.endgame_nodes``, and
with an iteration limit at most :data:`NODES_PER_ITERATION` per iteration, so that the
same iterations give the same move).

It also says which positions are late (:func:`is_late`: the round can end within a few
moves), those an ISMCTS engine with ``late_search="expectimax"`` hands to expectimax.
"""
from __future__ import annotations

import time as _time
from typing import Any, Callable, Optional

from jaipur_ai.errors import InvalidPositionError
from jaipur_ai.options import LATE_SEARCH_OPTIONS, MAX_DEPTH
from jaipur_ai.rules._cards import empty_stacks
from jaipur_ai.rules.move import Move
from jaipur_ai.search._endgame import EndgameSolver
from jaipur_ai.search._search import derive_seed
from jaipur_ai.search.analysis import Analysis, Candidate
from jaipur_ai.search.settings import Settings
from jaipur_ai.search.threads import run_threads

__all__ = ["near_end", "is_late", "hands_to_expectimax", "late_options", "solve_endgame",
           "TIME_SHARE", "NODES_PER_ITERATION", "LATE_PILE", "LATE_NODES_PER_ITERATION"]

TIME_SHARE = 0.5
"""The share of a move's time the solve may take before the tree search gets the rest."""

NODES_PER_ITERATION = 100
"""With an iteration limit, the solve visits at most this many positions per iteration."""

_SEED_PATH = 0xE4D

LATE_PILE = 3
"""A position is late when the draw pile holds at most this many cards (or two goods-token
stacks are empty)."""

LATE_NODES_PER_ITERATION = 20
"""With an iteration limit, a late position's expectimax (``late_search``) may visit this
many nodes per iteration: about what an ISMCTS iteration costs in expectimax nodes
(docs/performance.md: some 75,000 iterations and 1.6 to 1.9 million nodes a second)."""


def is_late(core: Any) -> bool:
    """Whether the round can end within a few moves whoever plays them: two goods-token
    stacks are empty (a sale that empties a third ends it) or the draw pile holds at most
    :data:`LATE_PILE` cards (docs/search.md, "Late positions")."""
    raw = core.raw()
    return empty_stacks(raw["tok_pos"]) >= 2 or len(raw["deck"]) <= LATE_PILE


def hands_to_expectimax(core: Any, settings: Settings) -> bool:
    """Whether an ISMCTS engine searches ``core`` with expectimax instead: a late position
    with ``settings.late_search == "expectimax"``, unless the exact endgame solve applies
    (``endgame``; it goes first, then the tree)."""
    return (settings.late_search == "expectimax" and is_late(core)
            and not near_end(core, settings))


def late_options(settings: Settings) -> dict[str, Any]:
    """What an ISMCTS engine's analysis records of ``late_search``: nothing when it is
    off, else it and the expectimax settings a late position is searched with."""
    if settings.late_search == "ismcts":
        return {}
    keys = ("late_search",) + LATE_SEARCH_OPTIONS
    return {k: getattr(settings, k) for k in keys}


def near_end(core: Any, settings: Settings) -> bool:
    """Whether the round is near enough its end to solve: the draw pile holds at most
    ``settings.endgame_deck`` cards."""
    return bool(settings.endgame) and len(core.raw()["deck"]) <= settings.endgame_deck


def solve_endgame(settings: Settings, core: Any, time: Optional[float],
                  iterations: Optional[int], seed: int, call: Any, t0: float,
                  top: Optional[int], options: dict[str, Any],
                  hand_prior: Optional[tuple[Any, Any]] = None) -> Optional[Analysis]:
    """The proven best move's :class:`Analysis` (algorithm ``"endgame"``), or None when
    the budget ends first (the tree search then decides).  ``call`` is the search's
    :class:`jaipur_ai.search.drive.Call` (the solver joins its searchers, so that a stop
    reaches it)."""
    solver = EndgameSolver(core, seed=derive_seed(seed, _SEED_PATH),
                           samples=settings.endgame_worlds)
    if hand_prior is not None:
        try:
            solver.set_hand_prior(*hand_prior)
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidPositionError("hand_prior", str(e) or type(e).__name__) from None
    if solver.n_moves == 0:
        return None
    call.add([solver])
    budget = settings.endgame_nodes
    if iterations is not None:
        budget = min(budget, iterations * NODES_PER_ITERATION)
    deadline = None if time is None else t0 + TIME_SHARE * time
    for depth in range(1, MAX_DEPTH + 1):
        if call.stopped() or budget - solver.nodes <= 0:
            return None
        left = budget - solver.nodes

        def solve(depth: int = depth, left: int = left) -> bool:
            return bool(solver.run_depth(depth, node_limit=left, deadline=deadline))
        if not _polled(solve, call):
            return None
        summary = solver.summary()
        if summary["proven"]:
            # a round lost in every world is left to the tree search: it plays for what
            # the worlds may have missed and for the opponent's mistakes
            if summary["children"][0]["upper"] <= 0.0:
                return None
            return _analysis(summary, seed, t0, top, options)
        if solver.exact:
            return None
    return None


def _polled(solve: Callable[[], bool], call: Any) -> bool:
    """``solve()`` (one depth: the compiled solver, which releases the GIL) in a thread,
    while this one looks at the search's stop every :data:`jaipur_ai.search.threads.POLL` seconds: a stop_event
    set by the caller reaches the solver (which looks at its stop flag every 1,024
    positions), as it reaches the tree searchers (:func:`run_threads`)."""
    out: list[bool] = []
    run_threads([lambda: out.append(solve())], call)
    return bool(out[0]) if out else False


def _analysis(summary: dict[str, Any], seed: int, t0: float, top: Optional[int],
              options: dict[str, Any]) -> Analysis:
    children = summary["children"]
    if top is not None:
        children = children[:max(1, int(top))]
    worlds = summary["determinizations"]
    cands = [Candidate(Move.from_action_id(c["action"]), worlds,
                       (c["lower"] + c["upper"]) / 2, c["margin"],
                       [Move.from_action_id(c["action"])])
             for c in children]
    return Analysis(cands, "endgame", seed, summary["nodes"], worlds,
                    _time.monotonic() - t0, depth=summary["depth"],
                    perfect_information=summary["perfect_information"],
                    legal_moves=summary["root_moves"], options=options)

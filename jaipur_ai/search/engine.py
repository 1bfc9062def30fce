"""The search API: :func:`best_move`, :func:`analyse` and the reusable :class:`Engine`.

>>> import jaipur_ai as jp
>>> state = jp.GameState.new(seed=7, starter=0)
>>> move = jp.best_move(state, iterations=2000, seed=1)
>>> move in state.legal_moves()
True
>>> report = jp.analyse(state, iterations=2000, seed=1, top=3)
>>> report.best == move
True

A fair search only uses what the player to move knows: given a full
:class:`~jaipur_ai.GameState` it searches ``state.view(state.to_move)``; given a
:class:`~jaipur_ai.View` it must be the observer's turn.  ``perfect_information=True``
(algorithm option "cheat") searches the true full state instead, for study only.

Every value in an :class:`Analysis` is from the point of view of the player to move
(the *mover*): ``win_probability`` is the estimated chance that the mover wins the
round (a draw counts half), ``expected_margin`` the mover's expected points minus the
opponent's at the end of the round.

Algorithms (docs/search.md):

``"ismcts"`` (default)
    single-observer information-set Monte Carlo tree search; ``iterations`` are
    search iterations (one sampled world and one playout each).
``"expectimax"``
    depth-limited expectimax with chance nodes for the cards drawn, averaged over
    ``samples`` sampled worlds; ``iterations`` are search nodes.
``"greedy"``
    the move with the best immediate heuristic gain.
``"random"``
    a uniformly random legal move.

With neither ``time`` nor ``iterations`` a search runs for :data:`DEFAULT_TIME` seconds.
The same ``seed`` (and thread count and limits in iterations) gives the same result;
``seed=None`` draws a seed from OS entropy and records it in the result.
"""
from __future__ import annotations

import os
import threading
import time as _time
from typing import Any, Callable, Optional, Sequence

from jaipur_ai.rules._bridge import CoreState, CoreView
from jaipur_ai.search._search import (ExpectimaxSearcher, IsmctsSearcher, derive_seed, greedy_scores,
                      random_action, rank_children)
from jaipur_ai.search.analysis import Analysis, Candidate
from jaipur_ai.search.belief import HandBelief, check_seen, read_history
from jaipur_ai.errors import InvalidPositionError
from jaipur_ai.search.evaluation import cached_evaluation, calibrated, default_evaluation
from jaipur_ai.rules.move import Move
from jaipur_ai.options import MAX_DEPTH, check, check_engine_options
from jaipur_ai.rules.position import View, mover_view

__all__ = ["Engine", "Analysis", "Candidate", "best_move", "analyse", "ALGORITHMS",
           "DEFAULT_TIME"]

ALGORITHMS = ("ismcts", "expectimax", "greedy", "random")
# Options whose default follows the evaluation: (with the learned one, with the hand-set
# one).  The hand-set column is the previous default move for move.  The learned search
# plays shorter playouts (cutoff 6, docs/strength.md), priors and playout moves from the
# opponent's view, the opponent's statistics kept apart by its hand and nodes visited
# this often looking past the policy's candidates ("Looking past the candidates"), and
# the opponent's unseen goods weighed by its moves as a player like the search or a
# greedy one ("Which kind of player?").
DEFAULTS_BY_EVALUATION = {
    "cutoff": (6, 10),
    "priors": ("learned", "heuristic"),
    "opponent_view": ("all", "off"),
    "opponent_stats": ("hand", "pooled"),
    "all_moves_after": (1000, 0),
    "belief": ("mixed", "off"),
}
# opponent_view -> the searcher's opp_view (docs/search.md, "The opponent's view")
_OPPONENT_VIEW = {"off": 0, "priors": 1, "all": 2}
DEFAULT_TIME = 1.0
"""Seconds a search runs when neither ``time`` nor ``iterations`` is given."""
DEFAULT_DEPTH = 3
"""Expectimax plies when ``depth`` is not given and the search has no time limit (with
one, it deepens until the time is spent, up to :data:`jaipur_ai.options.MAX_DEPTH`)."""

_POLL = 0.02     # seconds between checks of stop_event while a search runs


def _entropy_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") >> 1


# ---------------------------------------------------------------------------
# Positions

def _core_of(position, perfect_information: bool):
    """The core object to search: a CoreView (fair) or a CoreState (perfect information)."""
    core = getattr(position, "_core", position)
    if isinstance(core, CoreState):
        raw = core.raw()
        if raw["result"] != -1:
            raise InvalidPositionError("result", "the round is over: there is no move to search")
        return core if perfect_information else core.view(raw["to_move"])
    if isinstance(core, CoreView):
        if perfect_information:
            raise InvalidPositionError(
                "position", "perfect_information needs a full GameState, not a View")
        raw = core.raw()
        if raw["result"] != -1:
            raise InvalidPositionError("result", "the round is over: there is no move to search")
        if raw["to_move"] != core.observer:
            raise InvalidPositionError(
                "to_move", f"it is player {raw['to_move']}'s turn, not the observer's "
                           f"(player {core.observer}): a view can only be searched on its "
                           "observer's turn")
        return core
    raise TypeError(f"expected a GameState or a View, got {type(position).__name__}")


def _initial_nodes(max_nodes: int) -> int:
    """Nodes each tree starts with: 1024 (the pool grows by doubling as needed, so a
    short search allocates little; node numbers, hence results, do not change)."""
    return min(max_nodes, 1024)


def _move(a: int) -> Move:
    return Move.from_action_id(int(a))


# ---------------------------------------------------------------------------
# The engine

class _Call:
    """One running search: its searchers and how it is stopped (Engine.stop() or the
    caller's stop_event)."""

    def __init__(self, stop_event: Optional[threading.Event]) -> None:
        self.event = stop_event
        self.searchers: list = []
        self.requested = False
        self.lock = threading.Lock()

    def add(self, searchers) -> None:
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


class Engine:
    """A configured search, reusable across positions.

    Parameters (all keyword arguments after ``algorithm``):

    ``algorithm``: ``"ismcts"`` (default), ``"expectimax"``, ``"greedy"``, ``"random"``
    or ``"cheat"`` (ISMCTS with ``perfect_information=True``).
    ``threads``: ISMCTS: independent trees searched in parallel (root parallelism),
    merged by summing the statistics of each root move; the iteration limit is the
    total over all trees.  Expectimax: the sampled worlds are split between threads.
    ``playout``: ``"informed"`` (default), ``"learned"`` (the informed policy's candidates
    chosen by the learned value of the position each leads to) or ``"random"`` playouts
    (ISMCTS).  ``priors``: where the PUCT priors come from: ``"heuristic"`` (the move
    scores) or ``"learned"`` (learned values of the positions the moves lead to); by
    default the same as ``evaluation``.
    ``exploration``: UCB constant (ISMCTS, default 0.7).
    ``expand``: ISMCTS expansion order of untried moves: ``"ordered"`` (default: best
    move score first, with noise) or ``"random"`` (uniform).
    ``reward``: ``"win"`` (default; 1 win, 0.5 draw, 0 loss) or ``"margin"`` (the score
    margin mapped linearly onto [0, 1], ±``margin_scale`` points at the ends).
    ``margin_weight``: weight of a margin tie-break mixed into the ``"win"`` reward.
    ``cutoff``: ISMCTS playout plies after which an unfinished round is scored by the
    leaf evaluation (a win chance) instead of being played out (default 6 with the
    learned evaluation, 10 with the hand-set one; 0 = play every round out).
    ``tree_depth``: decisions an ISMCTS iteration descends through the tree before its
    playout (0 = no limit, default; 1 = flat Monte Carlo with UCB over the root moves).
    ``puct``: below the root, choose among the playout policy's candidate moves by PUCT
    with this constant and priors from the move scores (default 1.5; 0 = UCB over all
    legal moves, the textbook tree).  ``prior_temp``: softmax temperature of those
    priors, in points (default 1).
    ``opponent_view``: in each sampled world the searcher's own hand is the real one,
    which the opponent does not see; ``"all"`` (the default with the learned
    evaluation) has the opponent choose its tree priors and playout moves in that
    world re-dealt as it sees it (the searcher's cards it never saw taken shuffled
    with the draw pile), ``"priors"`` only its priors, ``"off"`` (the default with
    the hand-set evaluation) neither.
    ``opponent_stats``: ``"hand"`` (the default with the learned evaluation): the
    opponent's moves in the tree keep their statistics apart for each hand it may hold,
    so the imagined opponent chooses knowing its own hand; ``"pooled"`` (the default
    with the hand-set evaluation): one set of statistics over every hand (docs/search.md).
    ``all_moves_after``: a node below the root visited this many times also considers
    every legal move, not only the playout policy's candidates (0 = never; default 1000
    with the learned evaluation, 0 with the hand-set one).
    ``chance_nodes``: branch the tree on the cards drawn into the market, so that later
    decisions know the market they face (default True).
    ``belief``: ``"mixed"`` (the default with the learned evaluation; or ``"moves"``,
    ``"candidates"``, ``"scores"``, ``"greedy"``: the model of the opponent,
    :mod:`jaipur_ai.search.belief`) weighs the opponent's unseen goods in every sampled world
    by the moves the engine was shown with :meth:`see_move` this round, as a player at
    the table would; ``"off"`` (the default with the hand-set evaluation) deals them
    uniformly.  Without moves shown (``analyse`` of a bare position) both are the same.
    ``widen``: progressive widening of UCB nodes: a node gets a new child only while its
    legal children number fewer than ``1 + widen * sqrt(visits)`` (0 = off, default).
    docs/search.md explains these settings and the matches behind the defaults.
    ``perfect_information``: search the true full state (needs a GameState): cheating,
    for study only.
    ``depth``: expectimax plies (default: 3 without a time limit; with one, iterative
    deepening goes on until the time is spent, up to 64 plies); ``samples``: worlds averaged by expectimax
    (default 8); ``beam``: expectimax moves tried at inner nodes (0 = all).
    ``seed``: default seed of every search (``None``: fresh OS entropy per search).
    ``time``/``iterations``: default limits of every search.
    ``max_nodes``: ISMCTS tree size limit per thread (the tree stops growing there).
    ``decisive_samples``: worlds sampled to judge moves that end the round at once.
    ``evaluation``: the leaf evaluation of ISMCTS and expectimax: ``"learned"`` (weights
    learned by self-play, docs/search.md "Learned evaluation") or ``"heuristic"`` (the
    hand-set one).  ``weights``: a weights file of one's own for ``"learned"`` (default:
    the shipped weights); a missing or mismatched file raises InvalidWeightsError.
    """

    def __init__(self, algorithm: str = "ismcts", *, threads: int = 1,
                 playout: str = "informed", exploration: float = 0.7, reward: str = "win",
                 margin_weight: float = 0.0, margin_scale: float = 40.0,
                 perfect_information: bool = False, depth: Optional[int] = None,
                 samples: int = 8,
                 beam: int = 0, chance_samples: int = 4, seed: Optional[int] = None,
                 time: Optional[float] = None, iterations: Optional[int] = None,
                 max_nodes: int = 4_000_000, decisive_samples: int = 64,
                 epsilon: float = 0.1, noise: float = 1.0, max_playout: int = 400,
                 expand: str = "ordered", cutoff: Optional[int] = None,
                 widen: float = 0.0, tree_depth: int = 0,
                 chance_nodes: bool = True, puct: float = 1.5,
                 prior_temp: float = 1.0, opponent_view: Optional[str] = None,
                 opponent_stats: Optional[str] = None,
                 all_moves_after: Optional[int] = None, belief: Optional[str] = None,
                 evaluation: str = "learned",
                 weights: Optional[str] = None, priors: Optional[str] = None) -> None:
        # every option is checked against the one table (jaipur_ai.options)
        given = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        o = check_engine_options(given)
        algorithm, perfect_information = o["algorithm"], o["perfect_information"]
        threads, weights, evaluation = o["threads"], o["weights"], o["evaluation"]
        if algorithm == "cheat":
            algorithm, perfect_information = "ismcts", True
        self.algorithm = algorithm
        self.threads = threads
        self.playout = o["playout"]
        self.exploration = o["exploration"]
        self.reward = o["reward"]
        self.margin_weight = o["margin_weight"]
        self.margin_scale = o["margin_scale"]
        self.perfect_information = bool(perfect_information)
        self.depth = o["depth"]
        self.samples = o["samples"]
        self.beam = o["beam"]
        self.chance_samples = o["chance_samples"]
        self.seed = o["seed"]
        self.time = o["time"]
        self.iterations = o["iterations"]
        self.max_nodes = o["max_nodes"]
        self.decisive_samples = o["decisive_samples"]
        self.epsilon = o["epsilon"]
        self.noise = o["noise"]
        self.max_playout = o["max_playout"]
        self.expand = o["expand"]
        self.widen = o["widen"]
        self.tree_depth = o["tree_depth"]
        self.chance_nodes = o["chance_nodes"]
        self.puct = o["puct"]
        self.prior_temp = o["prior_temp"]
        self.evaluation = evaluation
        for name, (learned, hand_set) in DEFAULTS_BY_EVALUATION.items():
            if o[name] is None:     # not given: the default of this evaluation
                o[name] = learned if evaluation == "learned" else hand_set
        self.cutoff = o["cutoff"]
        self.priors = o["priors"]
        self.opponent_view = o["opponent_view"]
        self.opponent_stats = o["opponent_stats"]
        self.all_moves_after = o["all_moves_after"]
        self.belief = o["belief"]
        self._beliefs: dict = {}        # observer -> HandBelief (belief != "off")
        self.weights = None if weights is None else str(weights)
        # the learned weights are loaded (and checked) once, here
        self._evaluation = None
        if evaluation == "learned":
            self._evaluation = (default_evaluation() if weights is None
                                else cached_evaluation(weights))
        self._calls: set = set()        # searches now running (one per analyse call)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (f"Engine({self.algorithm!r}, threads={self.threads}, "
                f"perfect_information={self.perfect_information})")

    def options(self) -> dict[str, Any]:
        """The configuration as a dict (recorded in every Analysis)."""
        keys = {"ismcts": ("playout", "exploration", "reward", "margin_weight", "expand",
                           "cutoff", "widen", "tree_depth", "puct", "prior_temp",
                           "chance_nodes", "max_nodes", "evaluation", "weights", "priors",
                           "opponent_view", "opponent_stats", "all_moves_after", "belief"),
                "expectimax": ("depth", "samples", "beam", "chance_samples", "evaluation",
                               "weights"),
                "greedy": (), "random": ()}[self.algorithm]
        d = {k: getattr(self, k) for k in keys}
        d["perfect_information"] = self.perfect_information
        return d

    def searcher_options(self) -> dict[str, Any]:
        """The settings this engine passes to the compiled ISMCTS searcher (the learned
        evaluation as its loaded weights); the benchmarks time the same settings."""
        return {"exploration": self.exploration, "playout": self.playout,
                "reward": self.reward, "margin_weight": self.margin_weight,
                "margin_scale": self.margin_scale, "epsilon": self.epsilon,
                "noise": self.noise, "max_playout": self.max_playout,
                "max_nodes": self.max_nodes, "decisive_samples": self.decisive_samples,
                "expand": self.expand, "cutoff": self.cutoff, "widen": self.widen,
                "tree_depth": self.tree_depth, "chance_nodes": self.chance_nodes,
                "puct": self.puct, "prior_temp": self.prior_temp,
                "opp_view": _OPPONENT_VIEW[self.opponent_view],
                "opp_stats": self.opponent_stats,
                "all_moves_after": self.all_moves_after,
                "evaluation": self._evaluation, "learned_priors": self.priors == "learned"}

    # -- control -------------------------------------------------------------
    def stop(self) -> None:
        """Make the searches now running (from other threads) return what they have."""
        with self._lock:
            calls = list(self._calls)
        for call in calls:
            call.stop()

    # -- what the engine is shown --------------------------------------------
    def see_move(self, view: View, move: Move) -> None:
        """Show the engine ``move``, played in the position its player saw as ``view``
        (that player's view, before the move; every move of the round, both players').

        With ``belief`` on, the searches for that player then weigh the opponent's
        unseen goods by the opponent's moves this round (:mod:`jaipur_ai.search.belief`); a
        view of a new round or game starts afresh, :meth:`forget` at once.  With
        ``belief="off"`` (or another algorithm than ISMCTS) it does nothing.  The match
        runner, ``jaipur-ai play`` and the browser game show every move.

        >>> import jaipur_ai as jp
        >>> engine = jp.Engine(belief="moves")
        >>> state = jp.GameState.new(seed=3, starter=1)
        >>> move = state.legal_moves()[0]
        >>> engine.see_move(state.view(0), move)
        >>> after = state.apply(move)
        >>> engine.best_move(after, iterations=500, seed=1) in after.legal_moves()
        True
        """
        check_seen(view, move)
        if self.belief == "off" or self.algorithm != "ismcts":
            return
        with self._lock:
            b = self._beliefs.get(view.observer)
            if b is None:
                b = self._beliefs[view.observer] = self._new_belief()
            b.see(view, move)

    def _new_belief(self) -> HandBelief:
        return HandBelief(self.belief, evaluation=self._evaluation)

    def forget(self) -> None:
        """Forget the moves shown (:meth:`see_move`): a new game starts."""
        with self._lock:
            self._beliefs.clear()

    def _belief_prior(self, position, history=None) -> Optional[tuple[Any, Any]]:
        """The hand prior of the searching player's belief: from ``history`` when given
        (checked whatever the options, so a bad one is the same error at every door),
        else from the moves shown this round (None: the unseen goods are dealt
        uniformly, as without a belief)."""
        view = mover_view(position)
        pairs = None if history is None else read_history(history, view)
        if self.belief == "off" or self.perfect_information:
            return None
        if pairs is not None:
            fresh = self._new_belief()
            for seen, move in pairs:
                fresh.see(seen, move)
            return fresh.prior(view) if fresh.seen else None   # (read_history checked it)
        with self._lock:
            b = self._beliefs.get(view.observer)
            if b is None or not b.seen or not b.follows(view):
                return None
            return b.prior(view)

    # -- API -----------------------------------------------------------------
    def best_move(self, position, time: Optional[float] = None,
                  iterations: Optional[int] = None, seed: Optional[int] = None,
                  stop_event: Optional[threading.Event] = None,
                  hand_prior: Optional[tuple[Any, Any]] = None,
                  history: Optional[Sequence[tuple[Any, Any]]] = None) -> Move:
        """The recommended move for the player to move (see :meth:`analyse`).

        A move that ends the round and wins in every sampled world is played at once.
        When nothing could be searched (``iterations=0``, or stopped before the first
        iteration), the greedy engine's choice is returned."""
        a = self._analyse(position, time, iterations, 1, seed, stop_event, None, None,
                          short_circuit=True, hand_prior=hand_prior, history=history)
        best = a.best
        if best is not None:
            return best
        scores, _table = greedy_scores(_core_of(position, self.perfect_information),
                                       a.seed, self.decisive_samples)
        return _move(scores[0][0])

    def analyse(self, position, time: Optional[float] = None,
                iterations: Optional[int] = None, top: Optional[int] = 5,
                seed: Optional[int] = None, stop_event: Optional[threading.Event] = None,
                on_progress: Optional[Callable[["Analysis"], Any]] = None,
                report_every: Optional[float] = None,
                hand_prior: Optional[tuple[Any, Any]] = None,
                history: Optional[Sequence[tuple[Any, Any]]] = None) -> Analysis:
        """Search ``position`` and rank the mover's moves.

        ``time`` (seconds) and/or ``iterations`` limit the search (both: whichever comes
        first; neither: the engine's defaults, else :data:`DEFAULT_TIME` seconds).
        ``top``: how many candidates to keep (``None``: all).  ``seed``: overrides the
        engine's seed.  ``stop_event``: a ``threading.Event``; setting it makes the
        search return what it has found.  ``on_progress(analysis)`` is called every
        ``report_every`` seconds (default 0.5 when a callback is given) with the
        analysis so far (ISMCTS), or after each completed depth (expectimax).
        Values are from the mover's point of view.

        ``hand_prior`` (ISMCTS only; experimental): ``(hands, weights)``, a belief over
        the goods in the opponent's hand that the mover has not seen, which the
        sampled worlds then follow instead of dealing them uniformly: ``hands`` k
        rows of six counts (diamonds, gold, silver, cloth, spice, leather),
        ``weights`` k non-negative numbers (:meth:`jaipur_ai.search.belief.HandBelief.prior`
        builds one from the round's moves; ``Engine(belief="moves")`` does it itself
        for an engine shown the moves, :meth:`see_move`).

        ``history``: the moves of this round before ``position``, oldest first, as
        ``(position before the move, move)`` pairs (a state or the searching player's
        view; a move, its text or action id): the belief (``belief``, ISMCTS) then
        weighs the opponent's unseen goods by them, as if the engine had been shown
        them with :meth:`see_move`, without changing what it was shown.  A bad entry
        is an :class:`InvalidPositionError` naming it (``history[2].move``);
        :func:`jaipur_ai.search.belief.read_history`.

        >>> import jaipur_ai as jp
        >>> s0 = jp.GameState.new(seed=3, starter=1)
        >>> s1 = s0.apply(s0.legal_moves()[0])                  # player 1 moves
        >>> a = jp.Engine().analyse(s1, iterations=300, seed=1,
        ...                         history=[(s0, s0.legal_moves()[0])])
        >>> a.best in s1.legal_moves()
        True
        """
        return self._analyse(position, time, iterations, top, seed, stop_event,
                             on_progress, report_every, hand_prior=hand_prior,
                             history=history)

    # -- internals -------------------------------------------------------------
    def _analyse(self, position, time, iterations, top, seed, stop_event, on_progress,
                 report_every, short_circuit=False, hand_prior=None,
                 history=None) -> Analysis:
        time, iterations = check("time", time), check("iterations", iterations)
        top, seed = check("top", top), check("seed", seed)
        report_every = check("report_every", report_every)
        core = _core_of(position, self.perfect_information)
        if time is None and iterations is None:
            time, iterations = self.time, self.iterations
            if time is None and iterations is None:
                time = DEFAULT_TIME
        if seed is None:
            seed = self.seed
        if seed is None:
            seed = _entropy_seed()
        if report_every is None and on_progress is not None:
            report_every = 0.5
        if hand_prior is not None and self.algorithm != "ismcts":
            raise InvalidPositionError("hand_prior", "only the ismcts search reads one, "
                                                     f"not {self.algorithm}")
        t0 = _time.monotonic()
        if hand_prior is not None and history is not None:
            raise InvalidPositionError("history", "give a history or a hand_prior, not both")
        if hand_prior is None and self.algorithm == "ismcts":
            hand_prior = self._belief_prior(position, history)   # inside the time limit
        elif history is not None:
            read_history(history, mover_view(position))   # checked, not read
        if self.algorithm == "greedy":
            return self._greedy(core, seed, t0, top, time)
        if self.algorithm == "random":
            return self._random(core, seed, t0)
        call = _Call(stop_event)
        with self._lock:
            self._calls.add(call)
        try:
            if self.algorithm == "ismcts":
                return self._ismcts(core, time, iterations, seed, call, on_progress,
                                    report_every, short_circuit, t0, top, hand_prior)
            return self._expectimax(core, time, iterations, seed, call, on_progress,
                                    short_circuit, t0, top)
        finally:
            with self._lock:
                self._calls.discard(call)

    def _run_threads(self, jobs, call):
        """Run the callables in threads (they release the GIL), polling stop_event.

        On KeyboardInterrupt the searches are stopped and joined before re-raising."""
        errors = []

        def wrap(fn):
            def run():
                try:
                    fn()
                except BaseException as e:  # pragma: no cover - reported below
                    errors.append(e)
            return run

        threads = [threading.Thread(target=wrap(fn), daemon=True) for fn in jobs]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(_POLL)
                    if call.stopped():
                        call.stop()
        except BaseException:
            call.stop()
            for t in threads:
                t.join()
            raise
        if errors:
            raise errors[0]


    def _judge(self, searchers, deadline, call) -> None:
        """The round-ending root moves of each searcher, judged in threads: within the
        time budget and stopped by stop()/stop_event like every other loop."""
        if call.stopped():
            call.stop()
            return
        # the absolute deadline, not the seconds left: a thread that starts late
        # must not carry its start-up delay past the budget
        self._run_threads([lambda s=s: s.judge_decisive(deadline=deadline)
                           for s in searchers], call)

    # ISMCTS ------------------------------------------------------------------
    def _ismcts(self, core, time, iterations, seed, call, on_progress, report_every,
                short_circuit, t0, top, hand_prior=None) -> Analysis:
        n = self.threads
        seeds = [seed] if n == 1 else [derive_seed(seed, i) for i in range(n)]
        opts = self.searcher_options()
        opts["initial_nodes"] = _initial_nodes(self.max_nodes)
        searchers = [IsmctsSearcher(core, seed=s, judge=False, **opts) for s in seeds]
        if hand_prior is not None:
            for s in searchers:
                try:
                    s.set_hand_prior(*hand_prior)
                except (TypeError, ValueError) as e:
                    raise InvalidPositionError("hand_prior", str(e)) from None
        quota = None
        if iterations is not None:
            quota = [iterations // n + (1 if i < iterations % n else 0) for i in range(n)]
        call.add(searchers)
        deadline = None if time is None else t0 + time
        self._judge(searchers, deadline, call)
        if not (short_circuit and searchers[0].decisive_win is not None):
            while True:
                if call.stopped():
                    call.stop()
                    break
                # the searchers stop at the absolute deadline (a thread's start-up
                # delay is not added to the budget), or after a report interval
                jobs = []
                for i, s in enumerate(searchers):
                    it = None if quota is None else quota[i] - s.iterations
                    jobs.append(lambda s=s, it=it: s.run(iterations=it, seconds=report_every,
                                                         deadline=deadline))
                self._run_threads(jobs, call)
                done = call.stopped()
                if quota is not None and all(s.iterations >= q
                                             for s, q in zip(searchers, quota)):
                    done = True
                if deadline is not None and _time.monotonic() >= deadline:
                    done = True
                if done:
                    break
                if on_progress is not None:
                    on_progress(self._ismcts_result(searchers, seed, t0, top))
        return self._ismcts_result(searchers, seed, t0, top)

    def _ismcts_result(self, searchers, seed, t0, top) -> Analysis:
        sums: dict[int, dict] = {}
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
                st = c["decisive_stats"]
                if st is not None:
                    if e["dec"] is None:
                        e["dec"] = list(st)
                    else:
                        e["dec"] = [x + y for x, y in zip(e["dec"], st)]
        children = []
        for e in sums.values():
            v = e["visits"]
            st = e["dec"]
            if v:
                val, win, mar = e["v"] / v, e["w"] / v, e["m"] / v
                if self._evaluation is not None and not (st is not None and st[0]):
                    win = calibrated(win, self._evaluation.calibration)
            elif st is not None and st[0]:
                val = win = (st[1] + 0.5 * st[2]) / st[0]
                mar = st[4] / st[0]
            else:
                val = win = mar = 0.0
            kind = None
            if st is not None and st[0]:
                kind = "win" if st[1] == st[0] else ("loss" if st[3] == st[0] else "mixed")
            children.append({"action": e["action"], "visits": v, "value": val, "win": win,
                             "margin": mar, "pv": e["pv"], "decisive": kind})
        rank_children(children)
        if top is not None:
            children = children[:max(1, int(top))]
        cands = [Candidate(_move(c["action"]), c["visits"], c["win"], c["margin"],
                           [_move(a) for a in c["pv"]], None, c["decisive"])
                 for c in children]
        return Analysis(cands, "ismcts", seed, iters, dets, _time.monotonic() - t0,
                        threads=len(searchers), stopped=stopped,
                        perfect_information=self.perfect_information, legal_moves=legal,
                        options=self.options())

    # Expectimax --------------------------------------------------------------
    def _expectimax(self, core, time, iterations, seed, call, on_progress,
                    short_circuit, t0, top) -> Analysis:
        samples = 1 if self.perfect_information else self.samples
        n = max(1, min(self.threads, samples))
        counts = [samples // n + (1 if i < samples % n else 0) for i in range(n)]
        seeds = [seed] if n == 1 else [derive_seed(seed, i) for i in range(n)]
        searchers = [ExpectimaxSearcher(core, seed=s, samples=c, beam=self.beam,
                                        chance_samples=self.chance_samples,
                                        decisive_samples=self.decisive_samples,
                                        evaluation=self._evaluation, judge=False)
                     for s, c in zip(seeds, counts)]
        budget = None
        if iterations is not None:
            budget = [iterations // n + (1 if i < iterations % n else 0) for i in range(n)]
        call.add(searchers)
        deadline = None if time is None else t0 + time
        self._judge(searchers, deadline, call)
        depth_done = 0
        decided = short_circuit and any(
            c["decisive"] == "win" for c in searchers[0].summary()["children"])
        max_depth = self.depth if self.depth is not None else (
            DEFAULT_DEPTH if time is None else MAX_DEPTH)
        d = 1
        while not decided and d <= max_depth:
            if call.stopped():
                call.stop()
                break
            if deadline is not None and d > 1 and _time.monotonic() >= deadline:
                break           # the budget is spent: no deeper search starts
            results = [False] * n
            jobs = []
            for i, s in enumerate(searchers):
                lim = None if budget is None else budget[i] - s.nodes
                if d == 1:
                    # depth 1 is completed whatever the node budget (unless stopped or
                    # out of time): it is cheap, and without it nothing is ranked
                    lim = None

                def job(i=i, s=s, lim=lim):
                    results[i] = s.run_depth(d, node_limit=lim, deadline=deadline)
                jobs.append(job)
            self._run_threads(jobs, call)
            if not all(results):
                break
            depth_done = d
            if on_progress is not None and d < max_depth:
                on_progress(self._expectimax_result(searchers, seed, t0, top, d, core))
            d += 1
        return self._expectimax_result(searchers, seed, t0, top, depth_done, core)

    def _expectimax_result(self, searchers, seed, t0, top, depth, core) -> Analysis:
        sums: dict[int, dict] = {}
        nodes = 0
        worlds = 0
        stopped = False
        for s in searchers:
            sm = s.summary()
            nodes += sm["nodes"]
            worlds += sm["determinizations"]
            stopped = stopped or sm["stopped"]
            w = s.samples if s.depth_done >= depth and depth > 0 else 0
            for c in sm["children"]:
                e = sums.setdefault(c["action"], {"action": c["action"], "n": 0, "v": 0.0,
                                                  "m": 0.0, "pv": c["pv"], "dec": None})
                e["n"] += w
                e["v"] += c["value"] * w
                e["m"] += c["margin"] * w
                if len(c["pv"]) > len(e["pv"]):
                    e["pv"] = c["pv"]
                st = c["decisive_stats"]
                if st is not None:
                    e["dec"] = list(st) if e["dec"] is None else [
                        x + y for x, y in zip(e["dec"], st)]
        children = []
        for e in sums.values():
            st = e["dec"]
            kind = None
            if st is not None and st[0]:
                kind = "win" if st[1] == st[0] else ("loss" if st[3] == st[0] else "mixed")
            n_ = e["n"]
            if n_:
                val, mar = e["v"] / n_, e["m"] / n_
            elif st is not None and st[0]:
                # no depth completed: a round-ending move is still known by its samples
                val, mar = (st[1] + 0.5 * st[2]) / st[0], st[4] / st[0]
            else:
                continue          # not searched: no candidate
            children.append({"action": e["action"], "visits": n_, "value": val,
                             "margin": mar, "pv": e["pv"], "decisive": kind})

        def key(c):
            cls = 0 if c["decisive"] == "win" else (2 if c["decisive"] == "loss" else 1)
            return (cls, -c["value"], -c["margin"], c["action"])
        children.sort(key=key)
        if top is not None:
            children = children[:max(1, int(top))]
        cands = [Candidate(_move(c["action"]), c["visits"], c["value"], c["margin"],
                           [_move(a) for a in c["pv"]], None, c["decisive"])
                 for c in children]
        return Analysis(cands, "expectimax", seed, nodes, worlds, _time.monotonic() - t0,
                        threads=len(searchers), depth=depth, stopped=stopped,
                        perfect_information=self.perfect_information,
                        legal_moves=searchers[0].n_moves, options=self.options())

    # Greedy and random ---------------------------------------------------------
    def _greedy(self, core, seed, t0, top, time=None) -> Analysis:
        scores, table = greedy_scores(core, seed, self.decisive_samples, time)
        cands = []
        for a, sc, st in scores[: (len(scores) if top is None else max(1, int(top)))]:
            win = mar = kind = None
            if st is not None and st[0]:
                win = (st[1] + 0.5 * st[2]) / st[0]
                mar = st[4] / st[0]
                kind = "win" if st[1] == st[0] else ("loss" if st[3] == st[0] else "mixed")
            cands.append(Candidate(_move(a), 0, win, mar, [_move(a)], float(sc), kind))
        dets = (1 if self.perfect_information else self.decisive_samples) if table else 0
        return Analysis(cands, "greedy", seed, 0, dets, _time.monotonic() - t0,
                        perfect_information=self.perfect_information,
                        legal_moves=len(scores), options=self.options())

    def _random(self, core, seed, t0) -> Analysis:
        a, n = random_action(core, seed)
        m = _move(a)
        return Analysis([Candidate(m, 0, None, None, [m])], "random", seed, 0, 0,
                        _time.monotonic() - t0, perfect_information=self.perfect_information,
                        legal_moves=n, options=self.options())


# ---------------------------------------------------------------------------
# One-call helpers

def best_move(position, time: Optional[float] = None, iterations: Optional[int] = None,
              seed: Optional[int] = None, algorithm: str = "ismcts", **options) -> Move:
    """The recommended move for the player to move in ``position`` (a GameState or the
    mover's View).  Options are those of :class:`Engine`.

    >>> import jaipur_ai as jp
    >>> s = jp.GameState.new(seed=3, starter=1)
    >>> jp.best_move(s, iterations=500, seed=2) in s.legal_moves()
    True
    """
    check_engine_options(options)
    return Engine(algorithm, **options).best_move(position, time=time, iterations=iterations,
                                                  seed=seed)


def analyse(position, time: Optional[float] = None, iterations: Optional[int] = None,
            top: Optional[int] = 5, seed: Optional[int] = None, algorithm: str = "ismcts",
            **options) -> Analysis:
    """Ranked candidate moves for the player to move (values from the mover's view).
    Options are those of :class:`Engine`; see :meth:`Engine.analyse`."""
    check_engine_options(options)
    return Engine(algorithm, **options).analyse(position, time=time, iterations=iterations,
                                                top=top, seed=seed)

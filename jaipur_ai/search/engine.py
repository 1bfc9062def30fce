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
``"pimc"``
    perfect-information Monte Carlo (:mod:`jaipur_ai.search.pimc`): ``worlds`` worlds
    sampled from the view, each searched by its own perfect-information tree;
    ``iterations`` are tree iterations in all the worlds together.
``"greedy"``
    the move with the best immediate heuristic gain.
``"random"``
    a uniformly random legal move.
``"ply1"``
    the evaluation alone (:mod:`jaipur_ai.search.ply1`): the move whose position after
    it, averaged over ``samples`` worlds sampled from the view, the evaluation values
    best; no search, no limits.

With neither ``time`` nor ``iterations`` a search runs for :data:`DEFAULT_TIME` seconds.
The same ``seed`` (and thread count and limits in iterations) gives the same result;
``seed=None`` draws a seed from OS entropy and records it in the result.
"""
from __future__ import annotations

import logging
import os
import threading
import time as _time
import zlib
from dataclasses import replace
from typing import Any, Callable, Optional, Sequence, Union

from jaipur_ai.errors import InvalidOptionError, InvalidPositionError
from jaipur_ai.options import SETTING_OPTIONS, check, check_clock, check_engine_options
from jaipur_ai.rules._bridge import CoreState, CoreView
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState, View, mover_view
from jaipur_ai.search._evaluation import Evaluation
from jaipur_ai.search._search import greedy_scores
from jaipur_ai.search.analysis import Analysis, Candidate
from jaipur_ai.search.belief import HandBelief, check_seen, read_history
from jaipur_ai.search.clock import plan_for
from jaipur_ai.search.drive import (Call, Run, run_greedy, run_ismcts,
                                    run_random, with_clock)
from jaipur_ai.search.evaluation import named_evaluation
from jaipur_ai.search.endgame import (LATE_NODES_PER_ITERATION, hands_to_expectimax,
                                      late_options)
from jaipur_ai.search.expectimax import expectimax_stop, run_expectimax
from jaipur_ai.search.handprior import read as read_hand_prior
from jaipur_ai.search.levels import choose, for_level
from jaipur_ai.search.pimc import run_pimc
from jaipur_ai.search.ply1 import run_ply1
from jaipur_ai.search.rollouts import plan_rollouts, with_rollouts
from jaipur_ai.search.settings import Settings, settings_of

__all__ = ["Engine", "Analysis", "Candidate", "Settings", "best_move", "analyse",
           "ALGORITHMS", "DEFAULT_TIME"]

log = logging.getLogger(__name__)

ALGORITHMS = ("ismcts", "expectimax", "pimc", "greedy", "random", "ply1")
DEFAULT_TIME = 1.0
"""Seconds a search runs when neither ``time`` nor ``iterations`` is given."""

Position = Union[GameState, View]


def _entropy_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") >> 1


# ---------------------------------------------------------------------------
# Positions

def _core_of(position: Position, perfect_information: bool) -> Any:
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


def _move(a: int) -> Move:
    return Move.from_action_id(int(a))


# ---------------------------------------------------------------------------
# The engine

class Engine:
    """A configured search, reusable across positions.

    The parameters are the choices a user makes (all keyword arguments after
    ``algorithm``); how the search is tuned is one :class:`Settings` value.

    ``algorithm``: ``"ismcts"`` (default), ``"expectimax"``, ``"pimc"``, ``"greedy"``,
    ``"random"``, ``"ply1"`` (the evaluation alone) or ``"cheat"`` (ISMCTS with
    ``perfect_information=True``).
    ``threads``: ISMCTS: independent trees searched in parallel (root parallelism),
    merged by summing the statistics of each root move; the iteration limit is the
    total over all trees.  Expectimax: the sampled worlds are split between threads.
    ``time``/``iterations``: default limits of every search.
    ``seed``: default seed of every search (``None``: fresh OS entropy per search).
    ``belief``: ``True`` (default; ISMCTS) weighs the opponent's unseen goods in every
    sampled world by the moves the engine was shown with :meth:`see_move` this round
    (or the ``history`` given to :meth:`analyse`), as a player at the table would
    (:mod:`jaipur_ai.search.belief`); ``False`` deals them uniformly.  Without moves
    shown (``analyse`` of a bare position) both are the same.
    ``evaluation``: the leaf evaluation and tree priors of ISMCTS and expectimax (and
    all that ply1 reads):
    ``"learned"`` (weights learned by self-play, docs/search.md "Learned evaluation"),
    ``"linear"`` (the learned linear model of 6 December 2026, ``weights="2026-12-06"``)
    or ``"heuristic"`` (the hand-set one).  ``weights``: a weights file of one's own for
    ``"learned"`` (default: the shipped weights); a missing or mismatched file raises
    InvalidWeightsError.
    ``perfect_information``: search the true full state (needs a GameState): cheating,
    for study only.
    ``level``: a level of the rated ladder (``1`` to ``7``, ``"max"``, or ``"easy"``,
    ``"medium"``, ``"hard"``; :func:`jaipur_ai.levels`), or ``elo``: a point of the ladder
    by its rating; either gives the default ``iterations`` (when no limit is given) and
    ``temperature``.  ``temperature`` (points of win %; ISMCTS, expectimax, PIMC):
    :meth:`best_move` draws among the searched moves by their values instead of always
    playing the best (:mod:`jaipur_ai.search.levels`; 0 or none: the best).
    ``settings``: the search's tuning, a :class:`Settings` or the name of one
    (``"default"``, or ``"handset"``: the settings the hand-set evaluation was tuned
    with); docs/search.md explains each field, docs/strength.md the matches behind the
    defaults.  :meth:`from_options` takes the settings' fields by name, as engine specs
    and every door do.

    >>> import jaipur_ai as jp
    >>> jp.Engine(threads=2, settings=jp.Settings(cutoff=8)).settings.cutoff
    8
    >>> jp.Engine.from_options(cutoff=8).settings == jp.Settings(cutoff=8)
    True
    >>> e = jp.Engine(level=3)        # a beginner's level: few iterations, some mistakes
    >>> (e.iterations, e.temperature) == (jp.levels()[2].iterations, jp.levels()[2].temperature)
    True
    """

    def __init__(self, algorithm: str = "ismcts", *, threads: int = 1,
                 time: Optional[float] = None, iterations: Optional[int] = None,
                 seed: Optional[int] = None, belief: bool = True,
                 evaluation: str = "learned", weights: Optional[str] = None,
                 perfect_information: bool = False,
                 settings: Union[None, str, Settings] = None,
                 temperature: Optional[float] = None,
                 level: Union[None, str, int] = None, elo: Optional[float] = None) -> None:
        # every option is checked by the one table (jaipur_ai.options), settings by settings_of
        o = check_engine_options({
            "algorithm": algorithm, "threads": threads, "time": time,
            "iterations": iterations, "seed": seed, "belief": belief,
            "evaluation": evaluation, "weights": weights, "elo": elo,
            "perfect_information": perfect_information, "temperature": temperature,
            "level": level, "settings": settings if isinstance(settings, str) else None})
        self.algorithm: str = o["algorithm"]
        self.perfect_information = bool(o["perfect_information"])
        if self.algorithm == "cheat":
            self.algorithm, self.perfect_information = "ismcts", True
        self.threads: int = o["threads"]
        self.time: Optional[float] = o["time"]
        self.iterations: Optional[int] = o["iterations"]
        self.seed: Optional[int] = o["seed"]
        self.belief: bool = o["belief"]
        self.evaluation: str = o["evaluation"]
        self.weights: Optional[str] = None if o["weights"] is None else str(o["weights"])
        self.settings: Settings = settings_of(settings)
        if self.settings.rollouts and self.perfect_information:
            raise InvalidOptionError("rollouts", "they deal worlds of the mover's view: "
                                                 "not with perfect_information")
        self.level: Optional[str] = o["level"]
        self.elo: Optional[float] = o["elo"]
        if self.level is not None or self.elo is not None:
            # a level (or a point between two) is a limit, a temperature and the ladder's
            # evaluation, each the default where the caller gives none
            its, o["temperature"], self.evaluation = for_level(
                self.level, self.elo, limited=self.time is not None or
                self.iterations is not None, temperature=o["temperature"],
                algorithm=o["algorithm"], perfect_information=self.perfect_information,
                evaluation=self.evaluation, weights=self.weights)
            if its is not None:
                self.iterations = its
        self.temperature: float = o["temperature"] or 0.0
        self._beliefs: dict[int, HandBelief] = {}     # observer -> its belief (belief on)
        # the learned weights are loaded (and checked) once, here
        self._evaluation: Optional[Evaluation] = named_evaluation(self.evaluation,
                                                                   self.weights)
        if self.settings.hidden_hands == "kept":
            read_hand_prior()                 # checked now, not in the middle of a search
        self._run = Run(self.threads, self.settings, self._evaluation,
                        self.perfect_information, self.options(), self.searcher_options())
        self._calls: set[Call] = set()    # searches now running (one per analyse call)
        self._lock = threading.Lock()

    @classmethod
    def from_options(cls, algorithm: str = "ismcts", **options: Any) -> "Engine":
        """An engine from options named as in the options table: the engine's own
        parameters and the fields of its settings (``cutoff=10``), over the settings
        named by ``settings`` (default: :data:`jaipur_ai.search.settings.DEFAULT`).
        Engine specs (``ismcts:settings=handset,cutoff=8``), the command line and the
        server build their engines so."""
        # settings may be a Settings object as in Engine(settings=...), or a name
        base = options.pop("settings", None)
        if not isinstance(base, Settings):
            options["settings"], base = base, None
        elif algorithm in ("ismcts", "cheat"):      # (it decides whether depth, ... are read)
            options.setdefault("late_search", base.late_search)
        o = check_engine_options({"algorithm": algorithm, **options})
        fields = {k: o.pop(k) for k in list(o) if k in SETTING_OPTIONS}
        o["settings"] = settings_of(base if base is not None else o.get("settings"), fields)
        return cls(**o)

    def __repr__(self) -> str:
        name = self.settings.name()
        settings = repr(name) if name is not None else repr(self.settings)
        return (f"Engine({self.algorithm!r}, threads={self.threads}, "
                f"perfect_information={self.perfect_information}, settings={settings})")

    def options(self) -> dict[str, Any]:
        """The configuration as a dict (recorded in every Analysis): the choices and
        the settings this algorithm reads."""
        s = self.settings
        keys = {"ismcts": ("playout", "exploration", "reward", "expand", "cutoff", "widen",
                           "tree_depth", "puct", "prior_temp", "chance_nodes", "chance_width",
                           "max_nodes",
                           "opponent_view", "opponent_stats", "opponent_values",
                           "all_moves_after", "policy", "endgame", "endgame_deck",
                           "endgame_worlds", "endgame_nodes"),
                "pimc": ("worlds", "playout", "exploration", "reward", "expand", "cutoff",
                         "widen", "tree_depth", "puct", "prior_temp", "max_nodes",
                         "all_moves_after", "policy"),
                "expectimax": ("depth", "samples", "beam", "chance_samples", "chance_top",
                               "inner_moves", "root_filter", "more_worlds", "prior_temp",
                               "policy"),
                "greedy": (), "random": (), "ply1": ("samples",)}[self.algorithm]
        d: dict[str, Any] = {k: getattr(s, k) for k in keys}
        if self.algorithm in ("ismcts", "expectimax", "pimc", "ply1"):
            d["evaluation"], d["weights"] = self.evaluation, self.weights
        if self.algorithm in ("ismcts", "pimc"):
            d["belief"] = self.belief
        d["perfect_information"] = self.perfect_information
        if self.temperature:
            d["temperature"] = self.temperature
        if self.algorithm == "ismcts" and s.own_view != "off":
            d["own_view"] = s.own_view
        if self.algorithm == "ismcts":
            d.update(late_options(s))
        if self.algorithm in ("ismcts", "pimc") and self._kept_hands():
            d["hidden_hands"] = s.hidden_hands
        if s.rollouts:
            d.update(rollouts=s.rollouts, rollout_share=s.rollout_share,
                     rollout_worlds=s.rollout_worlds, rollout_cutoff=s.rollout_cutoff,
                     rollout_pick=s.rollout_pick)
        return d

    def searcher_options(self) -> dict[str, Any]:
        """The settings this engine passes to the compiled ISMCTS searcher (the learned
        evaluation as its loaded weights); the benchmarks time the same settings."""
        return {**self.settings.searcher_keywords(), "evaluation": self._evaluation,
                "learned_priors": self._evaluation is not None}

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
        ``belief=False`` (or another algorithm than ISMCTS) it does nothing.  The match
        runner, ``jaipur-ai play`` and the browser game show every move.

        >>> import jaipur_ai as jp
        >>> engine = jp.Engine()
        >>> state = jp.GameState.new(seed=3, starter=1)
        >>> move = state.legal_moves()[0]
        >>> engine.see_move(state.view(0), move)
        >>> after = state.apply(move)
        >>> engine.best_move(after, iterations=500, seed=1) in after.legal_moves()
        True
        """
        check_seen(view, move)
        if not self.belief or self.algorithm not in ("ismcts", "pimc"):
            return
        with self._lock:
            b = self._beliefs.get(view.observer)
            if b is None:
                b = self._beliefs[view.observer] = self._new_belief()
            b.see(view, move)

    def _new_belief(self) -> HandBelief:
        return HandBelief(evaluation=self._evaluation, kept=self._kept_hands())

    def _kept_hands(self) -> bool:
        """Whether the belief deals the unknown goods as players keep hands."""
        return self.settings.hidden_hands == "kept" and self.belief and \
            not self.perfect_information

    def forget(self) -> None:
        """Forget the moves shown (:meth:`see_move`): a new game starts."""
        with self._lock:
            self._beliefs.clear()

    def _belief_prior(self, position: Position, history: Any = None) -> Optional[tuple[Any, Any]]:
        """The hand prior of the searching player's belief: from ``history`` when given
        (checked whatever the options, so a bad one is the same error at every door),
        else from the moves shown this round (None: the unseen goods are dealt
        uniformly, as without a belief)."""
        view = mover_view(position)
        pairs = None if history is None else read_history(history, view)
        if not self.belief or self.perfect_information:
            return None
        kept = self._kept_hands()                     # a prior even before any move
        if pairs is not None:
            fresh = self._new_belief()
            for seen, move in pairs:
                fresh.see(seen, move)
            return fresh.prior(view) if fresh.seen or kept else None   # (checked)
        with self._lock:
            b = self._beliefs.get(view.observer)
            if b is None or not b.seen or not b.follows(view):
                return self._new_belief().prior(view) if kept else None
            return b.prior(view)

    # -- API -----------------------------------------------------------------
    def best_move(self, position: Position, time: Optional[float] = None,
                  iterations: Optional[int] = None, seed: Optional[int] = None,
                  stop_event: Optional[threading.Event] = None,
                  hand_prior: Optional[tuple[Any, Any]] = None,
                  history: Optional[Sequence[tuple[Any, Any]]] = None,
                  time_left: Optional[float] = None,
                  increment: Optional[float] = None) -> Move:
        """The recommended move for the player to move (see :meth:`analyse`).

        A move that ends the round and wins in every sampled world is played at once.
        When nothing could be searched (``iterations=0``, or stopped before the first
        iteration), the greedy engine's choice is returned.  With a ``temperature`` (a
        weaker level), a move is drawn among the searched ones by its value
        (:func:`jaipur_ai.search.levels.choose`), the same for the same seed."""
        a = self._analyse(position, time, iterations, 1, seed,
                          stop_event, None, None, short_circuit=True,
                          hand_prior=hand_prior, history=history,
                          time_left=time_left, increment=increment)
        best = a.play
        if best is not None:
            return best
        scores, _table = greedy_scores(_core_of(position, self.perfect_information),
                                       a.seed, self.settings.decisive_samples)
        return _move(scores[0][0])

    def analyse(self, position: Position, time: Optional[float] = None,
                iterations: Optional[int] = None, top: Optional[int] = 5,
                seed: Optional[int] = None, stop_event: Optional[threading.Event] = None,
                on_progress: Optional[Callable[["Analysis"], Any]] = None,
                report_every: Optional[float] = None,
                hand_prior: Optional[tuple[Any, Any]] = None,
                history: Optional[Sequence[tuple[Any, Any]]] = None,
                time_left: Optional[float] = None,
                increment: Optional[float] = None) -> Analysis:
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
        builds one from the round's moves; an engine with ``belief=True`` does it itself
        when shown the moves, :meth:`see_move`).

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

        ``time_left``/``increment``: a clock instead of a fixed ``time`` (UCI's
        ``wtime``/``winc``): the seconds the mover has left for the rest of the round,
        and those added after each of its moves.  The search then spends what the move
        needs, instantly on a forced move, longer on a close one, never the whole clock
        (:mod:`jaipur_ai.search.clock`; ``Analysis.clock`` says what it planned and why
        it stopped).  With ``iterations`` too, whichever comes first.

        >>> a = jp.Engine().analyse(s1, time_left=5.0, increment=0.1, seed=1)
        >>> a.clock["stop"] in ("forced", "settled", "soft", "extended", "hard")
        True
        >>> a.clock["soft"] <= a.clock["hard"] < 5.0
        True
        """
        return self._analyse(position, time, iterations, top, seed, stop_event,
                             on_progress, report_every, hand_prior=hand_prior,
                             history=history, time_left=time_left, increment=increment)

    # -- internals -------------------------------------------------------------
    def _analyse(self, position: Position, time: Any, iterations: Any, top: Any,
                 seed: Optional[int], stop_event: Any, on_progress: Any,
                 report_every: Any, short_circuit: Any = False, hand_prior: Any = None,
                 history: Any = None, time_left: Any = None,
                 increment: Any = None) -> Analysis:
        top = check("top", top)
        if self.temperature > 0 and self.algorithm in ("ismcts", "expectimax", "pimc"):
            # a level draws among all the searched moves, then reports the top ones
            # (and the drawn one, wherever it ranks)
            def trimmed(a: Analysis, drawn: Optional[Move] = None) -> Analysis:
                if not top or len(a.candidates) <= top:
                    return replace(a, drawn=drawn)
                kept = a.candidates[:top]
                kept += [c for c in a.candidates[top:] if c.move == drawn]
                return replace(a, candidates=kept, drawn=drawn)

            report = None if on_progress is None else (lambda a: on_progress(trimmed(a)))
            a = self._search(position, time, iterations, None, seed, stop_event,
                             report, report_every, short_circuit, hand_prior,
                             history, time_left, increment)
            if a.best is None:
                return a
            key = zlib.crc32(mover_view(position).to_text().encode())
            drawn = choose(a, self.temperature, key)
            return trimmed(a, None if drawn == a.best else drawn)
        return self._search(position, time, iterations, top, seed, stop_event, on_progress,
                            report_every, short_circuit, hand_prior, history, time_left,
                            increment)

    def _search(self, position: Position, time: Any, iterations: Any, top: Any,
                seed: Optional[int], stop_event: Any, on_progress: Any,
                report_every: Any, short_circuit: Any, hand_prior: Any,
                history: Any, time_left: Any, increment: Any) -> Analysis:
        time, iterations = check("time", time), check("iterations", iterations)
        time_left, increment = check_clock(time_left, increment, time)
        seed = check("seed", seed)
        report_every = check("report_every", report_every)
        core = _core_of(position, self.perfect_information)
        plan = None if time_left is None else plan_for(position, time_left, increment)
        if plan is None and time is None and iterations is None:
            time, iterations = self.time, self.iterations
            if time is None and iterations is None:
                time = DEFAULT_TIME
        # late_search: not with a caller's hand_prior (the tree reads it) nor iterations 0
        late = (self.algorithm == "ismcts" and hand_prior is None and iterations != 0
                and hands_to_expectimax(core, self.settings))
        algorithm = "expectimax" if late else self.algorithm
        if plan is not None:
            # ISMCTS never passes the plan's hard limit (its time keeper stops it
            # sooner); expectimax deepens until the soft one
            time = plan.longest(algorithm)
        if seed is None:
            seed = self.seed
        if seed is None:
            seed = _entropy_seed()
        if report_every is None and on_progress is not None:
            report_every = 0.5
        if hand_prior is not None and self.algorithm not in ("ismcts", "pimc"):
            raise InvalidPositionError("hand_prior", "only the ismcts and pimc searches "
                                                     f"read one, not {self.algorithm}")
        t0 = _time.monotonic()
        if hand_prior is not None and history is not None:
            raise InvalidPositionError("history", "give a history or a hand_prior, not both")
        if hand_prior is None and self.algorithm in ("ismcts", "pimc") and (
                not late or self.settings.rollouts):     # (a late expectimax reads none)
            hand_prior = self._belief_prior(position, history)   # inside the time limit
        elif history is not None:
            read_history(history, mover_view(position))   # checked, not read
        if self.algorithm == "greedy":
            return with_clock(run_greedy(self._run, core, seed, t0, top, time), plan, "instant")
        if self.algorithm == "random":
            return with_clock(run_random(self._run, core, seed, t0), plan, "instant")
        if self.algorithm == "ply1":
            return with_clock(run_ply1(self._run, core, seed, t0, top), plan, "instant")
        call = Call(stop_event)
        with self._lock:
            self._calls.add(call)
        rolled, time, search_top, on_progress = plan_rollouts(
            self.settings, short_circuit, time, top, on_progress)
        try:
            log.debug("%s search: time %s, iterations %s, seed %s, %d threads",
                      algorithm, time, iterations, seed, self.threads)
            if algorithm == "ismcts":
                a = run_ismcts(self._run, core, time, iterations, seed, call, on_progress,
                               report_every, short_circuit, t0, search_top, hand_prior, plan)
            elif algorithm == "pimc":
                if self.perfect_information:
                    raise InvalidPositionError("perfect_information", "pimc samples the "
                                               "worlds of the mover's view: it has no "
                                               "perfect-information form (use cheat)")
                a = with_clock(run_pimc(self._run, core, time, iterations, seed, call,
                                        t0, search_top, hand_prior), plan, "hard")
            else:
                # expectimax, or a late position (late_search: its nodes, the belief unread)
                if late and iterations is not None:
                    iterations *= LATE_NODES_PER_ITERATION      # (at most 2e13: a long long)
                a = run_expectimax(self._run, core, time, iterations, seed, call,
                                   on_progress, short_circuit, t0, search_top,
                                   clock=plan is not None)
                a = with_clock(a, plan, expectimax_stop(a, plan))
            if not rolled:
                return a
            return with_rollouts(a, core, rolled, self.settings, time is not None, top,
                                 self._evaluation, hand_prior, self.threads, call.stopped,
                                 on_progress, report_every)
        finally:
            with self._lock:
                self._calls.discard(call)


# ---------------------------------------------------------------------------
# One-call helpers

def best_move(position: Position, time: Optional[float] = None, iterations: Optional[int] = None,
              seed: Optional[int] = None, algorithm: str = "ismcts", *,
              time_left: Optional[float] = None, increment: Optional[float] = None,
              **options: Any) -> Move:
    """The recommended move for the player to move in ``position`` (a GameState or the
    mover's View).  ``options``: the :class:`Engine`'s, and the fields of its
    settings by name (:meth:`Engine.from_options`).  ``time_left``/``increment``:
    a clock instead of a fixed time (:meth:`Engine.analyse`).

    >>> import jaipur_ai as jp
    >>> s = jp.GameState.new(seed=3, starter=1)
    >>> jp.best_move(s, iterations=500, seed=2) in s.legal_moves()
    True
    """
    engine = Engine.from_options(algorithm, **options)
    return engine.best_move(position, time=time, iterations=iterations, seed=seed,
                            time_left=time_left, increment=increment)


def analyse(position: Position, time: Optional[float] = None, iterations: Optional[int] = None,
            top: Optional[int] = 5, seed: Optional[int] = None, algorithm: str = "ismcts",
            *, time_left: Optional[float] = None, increment: Optional[float] = None,
            **options: Any) -> Analysis:
    """Ranked candidate moves for the player to move (values from the mover's view).
    ``options``: as for :func:`best_move`; see :meth:`Engine.analyse`."""
    engine = Engine.from_options(algorithm, **options)
    return engine.analyse(position, time=time, iterations=iterations, top=top, seed=seed,
                          time_left=time_left, increment=increment)

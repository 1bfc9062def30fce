"""Rollouts of a search's best candidates: each move played to the end of the round in
the same sampled worlds, with its standard error (docs/search.md, "Rollouts: a second opinion").

A search values the moves by its own model; a rollout asks the round itself, played on
by a fixed policy.  Each of the ``n`` best candidates is played in the same worlds of
the mover's view (dealt by the belief when the engine holds one), and both players then
finish the round with the learned move policy (the search's playout policy, each player
choosing in a world re-dealt from what it knows: the rollouts read no hidden card).
Because every candidate meets the same worlds and the same random numbers (common
random numbers), the difference between two candidates comes with its own standard
error, as in GNU Backgammon's rollouts.  The worlds are rolled out in batches, so a long
analysis streams the values as they firm up, and stops early once the rollouts' ranking
is :attr:`~jaipur_ai.search.analysis.Rollouts.settled`.

The rollouts are a second opinion: they do not reorder the candidates nor change the
move the engine plays.  Picking among the search's best four by 4,000 rollouts each
lost most rounds against the search alone (docs/strength.md, "Rollouts as a judge"):
the policy that finishes the rounds plays too weakly for its values to decide.

    >>> import jaipur_ai as jp
    >>> s = jp.GameState.new(seed=3, starter=1)
    >>> a = jp.Engine.from_options(rollouts=3).analyse(s, iterations=500, seed=1)
    >>> a.rollouts.worlds >= 100 and a.candidates[0].rollout.diff == 0.0
    True
"""
from __future__ import annotations

import math
import time as _time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Callable, Optional, Sequence

import numpy as np

from jaipur_ai.search._search import derive_seed
from jaipur_ai.search.analysis import Analysis, Candidate, Rollouts, RolloutStat
from jaipur_ai.search.settings import Settings

__all__ = ["roll_out", "with_rollouts", "stats_of", "settled", "order_of", "plan_rollouts", "BATCH", "SETTLED_Z", "MIN_WORLDS",
           "WORLDS_WITHOUT_TIME", "ANALYSIS_ROLLOUTS", "LONG_ANALYSIS"]

#: Worlds rolled out between two looks at the estimates (and progress reports).
BATCH = 128
#: The rollouts' ranking is settled when every other candidate is this many standard
#: errors of its difference below their best (a rule of thumb: one such test alone
#: errs about once in 1,000, but it is made again every BATCH worlds).
SETTLED_Z = 3.0
#: No early stop before this many worlds (a standard error of a few worlds is noise).
MIN_WORLDS = 256
#: ``jaipur-ai analyse`` rolls out this many of the best moves when given this many
#: seconds or more (and no ``--rollouts``): a long analysis asks the round itself.
ANALYSIS_ROLLOUTS = 4
LONG_ANALYSIS = 10.0
#: The rollouts' worlds are drawn from the search's seed and this stream number.
ROLLOUT_STREAM = 0x524F4C4C
#: Worlds a candidate is rolled out in when the search had no time limit and the
#: settings name none (``rollout_worlds=0``).
WORLDS_WITHOUT_TIME = 1000


def stats_of(scores: np.ndarray, margins: np.ndarray) -> list[RolloutStat]:
    """One RolloutStat per row (a candidate's results in the same worlds), the
    differences against the first row (the search's best)."""
    n = scores.shape[1]
    root = math.sqrt(n)
    out = []
    for i in range(scores.shape[0]):
        d = scores[i] - scores[0]
        out.append(RolloutStat(
            worlds=n, win_probability=float(scores[i].mean()),
            se=float(scores[i].std(ddof=1)) / root if n > 1 else math.nan,
            diff=float(d.mean()) if i else 0.0,
            diff_se=(float(d.std(ddof=1)) / root if n > 1 else math.nan) if i else 0.0,
            expected_margin=float(margins[i].mean())))
    return out


def settled(scores: np.ndarray, z: float = SETTLED_Z) -> bool:
    """Whether the rollouts' own best (the row of the highest mean in ``scores``,
    candidates by worlds) lies ``z`` standard errors of the difference above every
    other row; a row equal to it in every world counts as settled (the moves are the
    same in effect)."""
    n = scores.shape[1]
    if n < 2:
        return False
    best = int(np.argmax(scores.mean(axis=1)))
    for i in range(scores.shape[0]):
        d = scores[i] - scores[best]
        if i == best or not d.any():
            continue
        if not (d.mean() < -z * d.std(ddof=1) / math.sqrt(n)):
            return False
    return True


def roll_out(core: Any, actions: Sequence[int], *, seed: int, worlds: Optional[int] = None,
             deadline: Optional[float] = None, evaluation: Any = None,
             hand_prior: Optional[tuple[Any, Any]] = None, threads: int = 1,
             stop: Optional[Callable[[], bool]] = None,
             on_batch: Optional[Callable[[np.ndarray, np.ndarray, bool], Any]] = None,
             until_settled: bool = True, cutoff: int = 0) -> tuple[np.ndarray, np.ndarray, bool]:
    """Roll ``actions`` (action ids legal for the mover of the core view) out in the
    same worlds, :data:`BATCH` at a time, until ``worlds`` worlds, the clock reading
    ``deadline`` (``time.monotonic()``; a round of batches is not begun when it would
    end past it), ``stop()`` (looked at between rounds), or (``until_settled``) the
    ranking settled at a multiple of :data:`BATCH` worlds from :data:`MIN_WORLDS` on.
    ``threads`` roll batches out side by side; with a number of worlds, or settled,
    the results do not depend on them.  Returns ``(scores, margins, settled)``: the
    mover's results (1, 0.5, 0) and margins, an array (actions, worlds) each, and
    whether the ranking is settled (with ``cutoff``, a round still running scores the
    evaluation's raw win chance, uncalibrated, and its margin rounded to a point);
    ``on_batch`` gets the same after each round of batches.  :func:`stats_of` summarises them.  ``cutoff``: a round still running
    that many plies after the move is scored by the leaf evaluation (0: played out)."""
    from jaipur_ai.search._rollout import rollout_outcomes
    if worlds is None and deadline is None:
        raise ValueError("give worlds, a deadline or both")
    hands, weights = hand_prior if hand_prior is not None else (None, None)
    ids = np.asarray(actions, np.int32)
    scores = np.zeros((len(ids), 0), np.float32)
    margins = np.zeros((len(ids), 0), np.int16)
    calm = False

    def batch(first: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        return rollout_outcomes(core, ids, k, seed, first, evaluation=evaluation,
                                fair=True, hands=hands, weights=weights, per_ply=True,
                                cutoff=cutoff)

    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    took = 0.0                          # seconds of the last round of batches
    try:
        while worlds is None or scores.shape[1] < worlds:
            done = scores.shape[1]
            if stop is not None and stop():
                break
            # (a round is not begun when it would end past the deadline, as the last
            # one took; it cannot be interrupted)
            if deadline is not None and _time.monotonic() + took >= deadline:
                break
            ks: list[int] = []
            for _ in range(threads):
                k = BATCH if worlds is None else min(BATCH, worlds - done - sum(ks))
                if k > 0:
                    ks.append(k)
            firsts = [done + sum(ks[:j]) for j in range(len(ks))]
            t0 = _time.monotonic()
            parts = (list(pool.map(batch, firsts, ks)) if pool is not None and len(ks) > 1
                     else [batch(f, k) for f, k in zip(firsts, ks)])
            took = _time.monotonic() - t0
            scores = np.concatenate([scores] + [p[0] for p in parts], axis=1)
            margins = np.concatenate([margins] + [p[1] for p in parts], axis=1)
            # the ranking is looked at every BATCH worlds, whatever the threads, so that
            # the rollouts stop at the same world for any number of them
            cut = None
            first = max(MIN_WORLDS, done - done % BATCH + BATCH)
            for m in range(first, scores.shape[1] + 1, BATCH) if until_settled else ():
                if len(ids) > 1 and settled(scores[:, :m]):
                    cut, calm = m, True
                    break
            if cut is not None:
                scores, margins = scores[:, :cut], margins[:, :cut]
            else:
                calm = len(ids) > 1 and settled(scores)
            if on_batch is not None:
                on_batch(scores, margins, calm)
            if cut is not None:
                break
    finally:
        if pool is not None:
            pool.shutdown()
    return scores, margins, calm


def order_of(scores: np.ndarray, pick: bool) -> list[int]:
    """The candidates' order: the search's, or (``pick``) by the rollouts' means, best
    first (ties: the search's order)."""
    n = scores.shape[0]
    if not pick or scores.shape[1] == 0:
        return list(range(n))
    means = scores.mean(axis=1)
    return sorted(range(n), key=lambda i: (-float(means[i]), i))


def annotated(analysis: Analysis, scores: np.ndarray, margins: np.ndarray,
              order: list[int]) -> list[Candidate]:
    """The analysis's candidates with the rolled-out ones (the first ``len(order)``)
    given their rollouts and put in ``order``, the differences against the first of
    them; the others follow in the search's order."""
    stats = stats_of(scores[order], margins[order])
    head = [replace(analysis.candidates[i], rollout=r) for i, r in zip(order, stats)]
    return head + list(analysis.candidates[len(order):])


def with_rollouts(analysis: Analysis, core: Any, n: int, settings: Settings, timed: bool,
                  top: Optional[int], evaluation: Any = None,
                  hand_prior: Optional[tuple[Any, Any]] = None, threads: int = 1,
                  stop: Optional[Callable[[], bool]] = None,
                  on_progress: Optional[Callable[[Analysis], Any]] = None,
                  report_every: Optional[float] = None) -> Analysis:
    """``analysis`` (every searched candidate, best first) with its ``n`` best rolled
    out (:func:`roll_out`), then cut to ``top``.  The order and the best move stay the
    search's, unless ``settings.rollout_pick`` orders the rolled-out moves by the
    rollouts (a study of the rollouts as a judge: docs/strength.md).  A search that was
    ``timed`` gives the rollouts ``settings.rollout_share`` of the move (its own time
    was cut to the rest); one limited by iterations alone gives them
    ``settings.rollout_worlds`` worlds (0: :data:`WORLDS_WITHOUT_TIME`).  A move that
    ends the round at once is judged exactly by the search and nothing is rolled out
    after it; nor when there is a single candidate."""
    cands = analysis.candidates[:n]
    if len(cands) < 2 or cands[0].decisive or analysis.stopped:
        return _cut(analysis, top)
    share = settings.rollout_share
    # (one world has no standard error: two at least)
    worlds = max(2, settings.rollout_worlds) if settings.rollout_worlds else \
        (None if timed else WORLDS_WITHOUT_TIME)
    t0 = _time.monotonic()
    deadline = t0 + analysis.elapsed * share / (1.0 - share) if timed else None
    seed = derive_seed(analysis.seed, ROLLOUT_STREAM)
    last = [t0]

    def rolled(scores: np.ndarray, margins: np.ndarray, calm: bool) -> Analysis:
        order = order_of(scores, settings.rollout_pick)
        ro = Rollouts(scores.shape[1], _time.monotonic() - t0, calm, seed)
        return replace(analysis, candidates=annotated(analysis, scores, margins, order),
                       rollouts=ro)

    def report(scores: np.ndarray, margins: np.ndarray, calm: bool) -> None:
        if on_progress is None or report_every is None:
            return
        # the first batch at once (the table gains its rollout columns), then at
        # the report interval
        if scores.shape[1] <= BATCH * threads or \
                _time.monotonic() - last[0] >= report_every * 0.999:
            last[0] = _time.monotonic()
            on_progress(_cut(rolled(scores, margins, calm), top))

    scores, margins, calm = roll_out(core, [c.move.action_id for c in cands], seed=seed,
                                     worlds=worlds, deadline=deadline,
                                     evaluation=evaluation, hand_prior=hand_prior,
                                     threads=threads, stop=stop, on_batch=report,
                                     cutoff=settings.rollout_cutoff)
    if not scores.shape[1]:
        return _cut(analysis, top)
    out = rolled(scores, margins, calm)
    spent = _time.monotonic() - t0
    out = replace(out, elapsed=analysis.elapsed + spent,
                  stopped=analysis.stopped or (stop is not None and stop()))
    return _cut(out, top)


def plan_rollouts(settings: Settings, choosing: bool, time: Optional[float],
                  top: Optional[int], on_progress: Optional[Callable[[Analysis], Any]],
                  ) -> tuple[int, Optional[float], Optional[int],
                             Optional[Callable[[Analysis], Any]]]:
    """What a search does for its rollouts: (the moves to roll out, the search's time,
    the candidates it keeps, its progress callback).  Rollouts are for analyses: a
    search ``choosing`` a move (best_move) rolls nothing out unless the rollouts pick
    it (``rollout_pick``).  Otherwise a timed search leaves ``rollout_share`` of its
    time to them, keeps every candidate for them, and its reports are cut to ``top``
    as the answer will be."""
    n = settings.rollouts if settings.rollout_pick or not choosing else 0
    if not n:
        return 0, time, top, on_progress
    if time is not None:
        time *= 1.0 - settings.rollout_share
    report = None if on_progress is None else (lambda a: on_progress(_cut(a, top)))
    return n, time, None, report


def _cut(analysis: Analysis, top: Optional[int]) -> Analysis:
    if top is None or len(analysis.candidates) <= top:
        return analysis
    return replace(analysis, candidates=analysis.candidates[:top])

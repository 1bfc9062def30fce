"""Time management: how much of a round's clock one move spends (docs/search.md,
"Playing on a clock").

A clock is what UCI's ``wtime``/``winc`` are to a chess engine: the seconds the mover
has left for the rest of the round (``time_left``) and the seconds added to it after
each of its moves (``increment``).  :func:`plan_move` turns it into a :class:`TimePlan`
for one move:

- ``soft``: the share the move aims at, the time left spread over the moves the mover
  still expects to play (about ``1 + 0.55 × cards in the draw pile``, measured over
  self-play rounds), plus most of the increment;
- ``hard``: the most it may ever spend, a few times ``soft`` but at most half of the
  time left (or ``soft``, if more), so that the clock cannot run out.

While an ISMCTS search runs, :class:`TimeKeeper` looks at the root moves every
:attr:`TimePlan.check_every` seconds and stops:

- at once when only one move is legal (``"forced"``);
- at ``soft`` when the best move leads clearly (``"soft"``); a close one (the
  runner-up with three quarters of the best move's visits, or a well-searched one with
  a better value) is searched on towards ``hard`` (``"hard"`` at the limit);
- sooner, as soon as no other move can gain enough visits to overtake the most visited
  one by the time the move may still run (``soft``, or ``hard`` for a close move), at
  the rate the search has run so far (``"settled"`` before ``soft``, ``"extended"``
  after it): the rule of Leela's and KataGo's pruning.

A search also stops on a clock for the reasons it stops without one: ``"decisive"``
(``best_move`` plays a move that wins the round in every sampled world at once),
``"iterations"`` (an iteration limit given too came first), ``"stopped"``
(``Engine.stop()`` or the stop event), ``"endgame"`` (the exact endgame solve proved a
move).  Expectimax deepens until ``soft`` (``"soft"``, or ``"depth"`` when its deepest
depth was done before); greedy and random answer at once (``"instant"``).  These are
:data:`STOPS`.

A fixed per-move ``time`` is unchanged by all this: the clock is another way of
giving the limit, never added to it.

>>> plan = plan_move(time_left=60.0, increment=0.5, deck=40)
>>> round(plan.soft, 2), round(plan.hard, 2)
(2.9, 11.6)
>>> plan_move(time_left=0.2, increment=0.0, deck=0).hard <= 0.2
True
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

__all__ = ["TimePlan", "TimeKeeper", "plan_move", "plan_for", "moves_to_go", "cards_left",
           "STOPS", "MIN_CHECK", "OVERHEAD"]

MOVES_BASE = 1.0
"""The mover's moves left, including this one, when the draw pile is empty."""
MOVES_PER_CARD = 0.55
"""The mover's moves left per card in the draw pile (the mean over 4,000 positions of
the default's rounds at 4 s against 1 s a move: 23.3 moves left at 40 cards, 11.7 at
20, 1.0 at 0)."""
SPARE_MOVES = 1.0
"""Moves added to the estimate, so that a round longer than the mean still has time."""
INCREMENT_SHARE = 0.9
"""The share of the increment the soft target spends on this move."""
HARD_FACTOR = 4.0
"""``hard`` is at most this many times ``soft`` ..."""
HARD_SHARE = 0.5
"""... and at most this share of the usable time left (or ``soft``, if more)."""
OVERHEAD = 0.02
"""Seconds kept back each move for what the clock sees beyond the search (setting up
the search, the answer, the caller's own work) ..."""
RESERVE_SHARE = 0.02
"""... and the share of the time left kept back with them."""

#: Why a search on a clock stopped (``Analysis.clock["stop"]``), in words.
STOPS = {"forced": "the only legal move",
         "settled": "no other move could overtake the best in the time left to it",
         "soft": "the time aimed at, the best move clear",
         "extended": "a close move, searched on until its lead held",
         "hard": "the most this move may spend",
         "decisive": "a move that wins the round at once",
         "iterations": "the iteration limit", "stopped": "asked to stop",
         "endgame": "the endgame solved", "depth": "the deepest depth searched",
         "instant": "an engine that answers at once"}
MIN_CHECK = 0.005
"""The shortest interval between two looks at the root (seconds)."""
CLOSE_VISITS = 0.75
"""A runner-up with at least this share of the best move's visits makes the move close."""


def moves_to_go(deck: int) -> float:
    """The moves the mover still expects to play in the round, this one included."""
    return MOVES_BASE + MOVES_PER_CARD * max(0, int(deck))


def cards_left(position: Any) -> int:
    """The cards in the draw pile of a :class:`~jaipur_ai.GameState` or a
    :class:`~jaipur_ai.View`."""
    size = getattr(position, "deck_size", None)
    return int(size) if size is not None else len(position.deck)


@dataclass(frozen=True)
class TimePlan:
    """What one move may spend of the mover's clock (seconds)."""

    time_left: float      #: the mover's clock before this move
    increment: float      #: added to the clock after the move
    soft: float           #: the time the move aims at
    hard: float           #: the time it never passes

    @property
    def check_every(self) -> float:
        """Seconds between two looks at the root while the search runs."""
        return max(MIN_CHECK, self.soft / 10.0)

    def longest(self, algorithm: str) -> float:
        """The longest a search by ``algorithm`` runs on this plan: ISMCTS up to
        ``hard`` (its :class:`TimeKeeper` stops it sooner), expectimax deepens until
        ``soft``; greedy and random answer at once."""
        return self.hard if algorithm in ("ismcts", "cheat") else self.soft

    def to_dict(self) -> dict[str, Any]:
        return {"time_left": self.time_left, "increment": self.increment,
                "soft": self.soft, "hard": self.hard}


def plan_move(time_left: float, increment: float = 0.0, deck: int = 40) -> TimePlan:
    """The :class:`TimePlan` of a move with ``deck`` cards in the draw pile."""
    usable = max(0.0, time_left * (1.0 - RESERVE_SHARE) - OVERHEAD)
    mtg = moves_to_go(deck)
    # the increment comes after the move: this move may only spend what is left now
    soft = min(usable, usable / (mtg + SPARE_MOVES) + INCREMENT_SHARE * increment)
    # (even at an empty draw pile a round may go on for several moves: selling and
    # swapping draw nothing, so no move may take more than a share of what is left)
    hard = min(max(soft, HARD_SHARE * usable), HARD_FACTOR * soft)
    return TimePlan(float(time_left), float(increment), soft, hard)


def plan_for(position: Any, time_left: float, increment: float = 0.0) -> TimePlan:
    """The :class:`TimePlan` of the move to play in ``position`` (a state or a view)."""
    return plan_move(time_left, increment, cards_left(position))


class TimeKeeper:
    """Decides, at each look at the root, whether the search of a move on a clock stops
    (:meth:`decide`); ``reason`` is why it stopped."""

    def __init__(self, plan: TimePlan) -> None:
        self.plan = plan
        self.reason: Optional[str] = None

    def decide(self, visits: Sequence[int], values: Sequence[float], legal: int,
               rate: float, elapsed: float) -> bool:
        """Whether to stop now: ``visits``/``values`` are the root moves' (most visited
        first), ``legal`` the legal moves, ``rate`` the iterations a second the search
        has run at, ``elapsed`` the seconds the move has taken so far."""
        p = self.plan
        if legal <= 1:
            return self._stop("forced")
        if elapsed >= p.hard:
            return self._stop("hard")
        close = _close(visits, values)
        if elapsed >= p.soft and not close:
            return self._stop("soft")
        # a close move is searched on past soft: its lead must hold until hard
        target = p.hard if close else p.soft
        if len(visits) >= 2 and rate > 0:
            lead = visits[0] - max(visits[1:])
            if lead > rate * (target - elapsed):
                return self._stop("settled" if elapsed < p.soft else "extended")
        return False

    def _stop(self, reason: str) -> bool:
        self.reason = reason
        return True


def _close(visits: Sequence[int], values: Sequence[float]) -> bool:
    """Whether the best move's lead is in doubt: a runner-up with most of its visits, or
    a well-searched one (a tenth of its visits) with a better value."""
    if len(visits) < 2 or visits[0] <= 0:
        return False
    best = visits[0]
    for v, x in zip(visits[1:], values[1:]):
        if v >= CLOSE_VISITS * best or (v >= 0.1 * best and x > values[0]):
            return True
    return False

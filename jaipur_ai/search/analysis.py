"""The result of a search: :class:`Analysis`, its ranked :class:`Candidate` moves.

Every value is from the point of view of the player to move (the *mover*):
``win_probability`` is the estimated chance that the mover wins the round (a draw
counts half), ``expected_margin`` the mover's expected points minus the opponent's at
the end of the round.  :mod:`jaipur_ai.search.engine` makes them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional, Union, overload

from jaipur_ai.rules.move import Move

__all__ = ["Analysis", "Candidate", "RolloutStat", "Rollouts"]


@dataclass(frozen=True)
class RolloutStat:
    """A candidate's rollouts (:mod:`jaipur_ai.search.rollouts`), from the mover's view:
    ``win_probability`` its mean result over ``worlds`` rolled-out rounds (a draw
    counts half) and ``se`` that mean's standard error; ``diff`` its mean minus that of
    the first candidate (the search's best move; with ``rollout_pick``, the rollouts'
    best) in the same worlds (0 for that move) and ``diff_se`` the standard error of
    that difference (the worlds are shared);
    ``expected_margin`` the mean points of the mover minus the opponent's."""

    worlds: int
    win_probability: float
    se: float
    diff: float
    diff_se: float
    expected_margin: float

    def to_dict(self) -> dict[str, Any]:
        return {"worlds": self.worlds, "win_probability": self.win_probability,
                "se": self.se, "diff": self.diff, "diff_se": self.diff_se,
                "expected_margin": self.expected_margin}


@dataclass(frozen=True)
class Rollouts:
    """What the rollouts of an analysis did (``Engine(rollouts=n)``;
    :mod:`jaipur_ai.search.rollouts`): ``worlds`` each candidate was rolled out in,
    ``elapsed`` seconds, ``settled`` (the rollouts' own best at least
    :data:`jaipur_ai.search.rollouts.SETTLED_Z` standard errors above every other), and
    the worlds' ``seed``."""

    worlds: int
    elapsed: float
    settled: bool
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return {"worlds": self.worlds, "elapsed": self.elapsed, "settled": self.settled,
                "seed": self.seed}


@dataclass(frozen=True)
class Candidate:
    """One candidate move of an :class:`Analysis` (values from the mover's view).

    ``visits``: ISMCTS visits of the move (summed over threads); for expectimax the
    number of sampled worlds it was searched in; 0 for greedy and random.
    ``win_probability``: estimated chance the mover wins the round (a draw counts
    half); ``None`` where the algorithm has no estimate (greedy, random).
    ``expected_margin``: expected end-of-round points of the mover minus the
    opponent's; ``None`` where unknown.
    ``pv``: principal variation starting with ``move`` (opponent replies included).
    ``score``: greedy's heuristic score (``None`` for the other algorithms).
    ``decisive``: ``"win"``/``"loss"``/``"mixed"`` for a move that ends the round at
    once (by its result in the sampled worlds), else ``None``.
    ``rollout``: the move's rollouts (:class:`RolloutStat`) when the engine rolled
    it out (``rollouts=n``), else ``None``.
    """

    move: Move
    visits: int
    win_probability: Optional[float]
    expected_margin: Optional[float]
    pv: list[Move] = field(default_factory=list)
    score: Optional[float] = None
    decisive: Optional[str] = None
    rollout: Optional[RolloutStat] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "move": str(self.move),
            "visits": self.visits,
            "win_probability": self.win_probability,
            "expected_margin": self.expected_margin,
            "pv": [str(m) for m in self.pv],
            "score": self.score,
            "decisive": self.decisive,
            "rollout": None if self.rollout is None else self.rollout.to_dict(),
        }


@dataclass(frozen=True)
class Analysis:
    """Ranked candidate moves of a search, best first, and its totals.

    All values are from the point of view of the player to move.  ``iterations``
    counts ISMCTS iterations or expectimax nodes; ``determinizations`` the sampled
    worlds; ``elapsed`` is wall-clock seconds.  ``seed`` reproduces the search.
    ``candidates`` holds the searched moves only: it is empty (and ``best`` is
    ``None``) when nothing could be searched (ISMCTS with ``iterations=0``, or a search
    stopped before its first iteration or depth), except that moves ending the round
    at once are always judged.  ``clock``: for a search on a clock
    (``time_left``/``increment``), what it planned to spend and why it stopped
    (:mod:`jaipur_ai.search.clock`: ``time_left``, ``increment``, ``soft``, ``hard``
    and ``stop``, one of :data:`jaipur_ai.search.clock.STOPS`: ``"forced"``,
    ``"settled"``, ``"soft"``, ``"extended"``, ``"hard"``, ...); ``None`` otherwise.
    """

    candidates: list[Candidate]
    algorithm: str
    seed: int
    iterations: int
    determinizations: int
    elapsed: float
    threads: int = 1
    depth: Optional[int] = None
    stopped: bool = False
    perfect_information: bool = False
    legal_moves: int = 0
    options: dict[str, Any] = field(default_factory=dict)
    clock: Optional[dict[str, Any]] = None
    #: The move the engine plays when it is not the best: a level's (an engine with a
    #: ``temperature``) draw among the candidates; None: it plays :attr:`best`.
    drawn: Optional[Move] = None
    #: The rollouts of the best candidates (``rollouts=n``; each candidate's
    #: :attr:`Candidate.rollout`), a second opinion beside the search's order, which
    #: they do not change; None: none were made.
    rollouts: Optional[Rollouts] = None

    def __repr__(self) -> str:
        """One short line (``str()`` is the table; ``to_dict()`` has everything)."""
        best = None if self.best is None else str(self.best)
        return (f"<Analysis {self.algorithm}: best {best!r}, {len(self.candidates)} "
                f"candidates, {self.iterations:,} iterations, seed {self.seed}>")

    @property
    def best(self) -> Optional[Move]:
        """The move the search recommends (``None`` when nothing was searched)."""
        return self.candidates[0].move if self.candidates else None

    @property
    def play(self) -> Optional[Move]:
        """The move the engine plays: :attr:`best`, or a level's draw among the
        candidates (docs/levels.md); ``jaipur-ai serve`` answers it as ``"play"``."""
        return self.drawn if self.drawn is not None else self.best

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0

    def __len__(self) -> int:
        return len(self.candidates)

    def __iter__(self) -> Iterator[Candidate]:
        return iter(self.candidates)

    @overload
    def __getitem__(self, i: int) -> Candidate: ...
    @overload
    def __getitem__(self, i: slice) -> list[Candidate]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[Candidate, list[Candidate]]:
        return self.candidates[i]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (moves as canonical text), e.g. for JSON."""
        return {
            "algorithm": self.algorithm,
            "seed": self.seed,
            "best": None if self.best is None else str(self.best),
            "play": None if self.play is None else str(self.play),
            "candidates": [c.to_dict() for c in self.candidates],
            "iterations": self.iterations,
            "determinizations": self.determinizations,
            "elapsed": self.elapsed,
            "iterations_per_second": self.iterations_per_second,
            "threads": self.threads,
            "depth": self.depth,
            "stopped": self.stopped,
            "perfect_information": self.perfect_information,
            "legal_moves": self.legal_moves,
            "options": dict(self.options),
            "clock": None if self.clock is None else dict(self.clock),
            "rollouts": None if self.rollouts is None else self.rollouts.to_dict(),
        }

    def to_json(self, indent: Optional[int] = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def __str__(self) -> str:
        """The table that ``jaipur-ai analyse`` prints (jaipur_ai.search._table)."""
        from jaipur_ai.search._table import format_analysis
        return format_analysis(self)

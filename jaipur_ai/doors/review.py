"""Game review: where each player lost win probability, move by move (docs/review.md).

:func:`review_game` replays one game of a :class:`~jaipur_ai.GameRecord` and searches
every ply **from the mover's view only** (the :class:`~jaipur_ai.View`, never the full
state): the best move found, the mover's win probability with it and with the move
played, the loss in win-percentage points and a label by :data:`THRESHOLDS`
(``"inaccuracy"``, ``"mistake"``, ``"blunder"``, like chess game reviews).  A
:class:`GameReview` adds, per player, the counts of each label and the mean loss, and
per round the moment it turned.  The same record, seed and iteration limit give the
same review.

>>> import jaipur_ai as jp
>>> from jaipur_ai.matches.runner import run_match
>>> record = jp.GameRecord.from_match(run_match("greedy", "random", games=1, seed=4))
>>> first = record.games[0]["rounds"][0]          # keep six plies: an unfinished round
>>> first.update(moves=first["moves"][:6], result=None, totals=None)
>>> del record.games[0]["seals"]
>>> review = jp.review_game(record, iterations=300, seed=1)
>>> review
<GameReview of game 0: 6 plies, seed 1; A: mean loss 2.0, 1 inaccuracy, 0 mistakes, 0 blunders; B: mean loss 6.2, 1 inaccuracy, 1 mistake, 0 blunders>
>>> review.plies[1]
<PlyReview round 1 ply 2, player 1: 'swap CL for GM' 18.2%, best 'camels' 29.3%, loss 11.2, mistake>
>>> [(round(p.loss, 1), p.label) for p in review.plies[-2:]]
[(0.0, None), (7.3, 'inaccuracy')]
>>> jp.GameReview.from_dict(review.to_dict()) == review
True
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union

from jaipur_ai.search.engine import Analysis, Candidate, Engine
from jaipur_ai.errors import InvalidOptionError, JaipurError
from jaipur_ai.matches.spec import derive_seed
from jaipur_ai.rules.move import Move
from jaipur_ai.options import check, describe
from jaipur_ai.matches.record import LABELS, GameRecord, RecordError
from jaipur_ai.rules.position import GameState
from jaipur_ai.rules.position import View

__all__ = ["review_game", "GameReview", "PlyReview", "RoundReview", "PlayerSummary",
           "ReviewError", "THRESHOLDS", "LABELS", "DEFAULT_ITERATIONS", "FORMAT",
           "ply_seed", "label_for"]

FORMAT = "jaipur-review/1"
DEFAULT_ITERATIONS = 3000
"""Iterations per ply when neither ``iterations`` nor ``time`` is given (nor set on the
engine): about 0.1 s a ply on one core."""
THRESHOLDS = {"inaccuracy": 5.0, "mistake": 10.0, "blunder": 20.0}
"""The least loss, in win-percentage points, of each label (docs/review.md)."""
MIN_ROOT_VISITS = 50
ROOT_VISIT_SHARE = 0.02
"""A played move's root statistics are read when it has at least
max(MIN_ROOT_VISITS, ROOT_VISIT_SHARE x the search's iterations) visits."""
AFTER_WORLDS = 8
"""Worlds sampled from the mover's view to compare the best and the played move after
each is played (when the played move had too few root visits)."""

Progress = Callable[[int, int], Any]


class ReviewError(JaipurError):
    """A review's JSON (``GameReview.from_dict``) that cannot be read; ``field`` names
    the place."""


def label_for(loss: float) -> Optional[str]:
    """The label of a loss in win-percentage points (:data:`THRESHOLDS`).

    >>> label_for(3.0), label_for(5.0), label_for(12.5), label_for(40)
    (None, 'inaccuracy', 'mistake', 'blunder')
    """
    for name in reversed(LABELS):
        if loss >= THRESHOLDS[name]:
            return name
    return None


def ply_seed(seed: int, game: int, round_index: int, ply_index: int) -> int:
    """The seed of the search of one ply (indices from 0, as in the record's fields):
    it depends on the review seed and the ply's place only, never on hidden cards.

    >>> ply_seed(0, 0, 0, 1) == ply_seed(0, 0, 0, 1) != ply_seed(0, 0, 1, 0)
    True
    """
    return derive_seed(seed, game, round_index, ply_index)


# ---------------------------------------------------------------------------- results

@dataclass(frozen=True)
class PlyReview:
    """One ply: ``round`` and ``ply`` count from 1 (the ply within its round), ``mover``
    is the player who moved, ``view`` that player's view before the move.  Win
    probabilities are the mover's chance to win the round (a draw counts half) with the
    best move found (``win_best``: the value of the position) and with the move played;
    ``loss`` is the difference in percentage points (never below 0), ``label`` its
    :func:`label_for`.  ``line`` is the best move's principal variation.  ``method``
    says how ``win_played`` was measured: ``"best"`` (the move played is the best),
    ``"root"`` (its root statistics), ``"after"`` (too few root visits: the best move's
    value less the difference between the two moves searched after each is played, in
    the same worlds sampled from the mover's view).  ``visits``: the played move's root
    visits (expectimax: its sampled worlds)."""

    round: int
    ply: int
    mover: int
    move: Move
    best: Move
    win_best: float
    win_played: float
    loss: float
    label: Optional[str]
    line: list[Move]
    visits: int
    method: str
    view: View

    def __repr__(self) -> str:
        best = "best" if self.best == self.move else f"best {str(self.best)!r} " \
                                                        f"{100 * self.win_best:.1f}%"
        return (f"<PlyReview round {self.round} ply {self.ply}, player {self.mover}: "
                f"{str(self.move)!r} {100 * self.win_played:.1f}%, {best}, loss "
                f"{self.loss:.1f}, {self.label or 'no label'}>")

    @property
    def why(self) -> Optional[str]:
        """What the best move gains over the move played, in one line read from the
        review's figures (:func:`jaipur_ai.search.why.reason`); None when the move played
        is the best."""
        from jaipur_ai.search.why import reason
        if self.best == self.move:
            return None
        return reason(self.best, self.win_best, None, self.line, self.move, self.win_played)

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "ply": self.ply, "mover": self.mover,
                "move": str(self.move), "best": str(self.best), "win_best": self.win_best,
                "win_played": self.win_played, "loss": self.loss, "label": self.label,
                "line": [str(m) for m in self.line], "visits": self.visits,
                "method": self.method, "view": self.view.to_text(), "why": self.why}

    @classmethod
    def from_dict(cls, d: Any, where: str = "ply") -> "PlyReview":
        if not isinstance(d, dict):
            raise ReviewError(where, f"expected an object, got {describe(d)}")

        def get(key: str, kind: Any) -> Any:
            v = d.get(key)
            if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
                raise ReviewError(f"{where}.{key}", f"expected {getattr(kind, '__name__', kind)}"
                                                    f", got {describe(v)}")
            return v
        try:
            label = d.get("label")
            if label is not None and label not in LABELS:
                raise ReviewError(f"{where}.label", f"expected one of {', '.join(LABELS)} "
                                                    f"or null, got {describe(label)}")
            return cls(get("round", int), get("ply", int), get("mover", int),
                       Move.parse(get("move", str)), Move.parse(get("best", str)),
                       float(get("win_best", (int, float))),
                       float(get("win_played", (int, float))),
                       float(get("loss", (int, float))), label,
                       [Move.parse(m) for m in get("line", list)], get("visits", int),
                       get("method", str), View.from_text(get("view", str)))
        except ReviewError:
            raise
        except JaipurError as e:
            raise ReviewError(f"{where}.{e.field}", e.reason) from None


@dataclass(frozen=True)
class RoundReview:
    """One round: ``result`` (0, 1, ``"draw"``, or ``None`` if unfinished), ``totals``,
    and ``turning_ply``: the last ply at which the round's eventual winner, to move, put
    its own win probability at or below 50 % (its estimate stayed above 50 % at every
    later turn); ``None`` for a draw, an unfinished round, or a winner above 50 % at
    every turn.  Each player's probability is read at its own turns, from its own view:
    the two players know different cards, so their estimates need not add up to 1."""

    round: int
    result: Union[int, str, None]
    totals: Optional[list[int]]
    turning_ply: Optional[int]

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "result": self.result, "totals": self.totals,
                "turning_ply": self.turning_ply}


@dataclass(frozen=True)
class PlayerSummary:
    """One player's moves: how many, the mean loss (points) and the count of each label;
    ``worst`` is the (round, ply) of the largest loss (``None`` without a loss)."""

    player: int
    name: str
    moves: int
    mean_loss: float
    counts: dict[str, int]
    worst: Optional[tuple[int, int]]

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "name": self.name, "moves": self.moves,
                "mean_loss": self.mean_loss, "counts": dict(self.counts),
                "worst": None if self.worst is None else list(self.worst)}


@dataclass(frozen=True)
class GameReview:
    """The review of one game of a record: every ply (:class:`PlyReview`), every round
    (:class:`RoundReview`), a :class:`PlayerSummary` per player (``summary``), the seat
    names (``players[p]`` played player ``p``) and the ``settings`` of the search.
    ``complete`` is ``False`` when the review was stopped before the last ply.
    ``str()`` is the table of ``jaipur-ai review``; ``to_dict()`` plain data
    (docs/review.md has the layout); ``plot(path)`` the win-probability graph."""

    game: int
    players: list[str]
    plies: list[PlyReview]
    rounds: list[RoundReview]
    settings: dict[str, Any]
    complete: bool = True
    summary: list[PlayerSummary] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "summary", [self._summary(p) for p in (0, 1)])

    def _summary(self, p: int) -> PlayerSummary:
        mine = [x for x in self.plies if x.mover == p]
        counts = {name: sum(x.label == name for x in mine) for name in LABELS}
        worst = max(mine, key=lambda x: x.loss, default=None)
        return PlayerSummary(p, self.players[p], len(mine),
                             sum(x.loss for x in mine) / len(mine) if mine else 0.0, counts,
                             None if worst is None or worst.loss <= 0
                             else (worst.round, worst.ply))

    def plies_of(self, round_number: int) -> list[PlyReview]:
        """The reviewed plies of one round (numbered from 1)."""
        return [p for p in self.plies if p.round == round_number]

    def __repr__(self) -> str:
        def one(s: PlayerSummary) -> str:
            c = s.counts
            return (f"{s.name}: mean loss {s.mean_loss:.1f}, "
                    + ", ".join(_count(c[k], k) for k in LABELS))
        more = "" if self.complete else ", incomplete"
        return (f"<GameReview of game {self.game}: {len(self.plies)} plies, seed "
                f"{self.settings.get('seed')}{more}; " + "; ".join(map(one, self.summary))
                + ">")

    def __str__(self) -> str:
        from jaipur_ai.doors._review_table import format_review
        return format_review(self)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "game": self.game, "players": list(self.players),
                "settings": json.loads(json.dumps(self.settings)),
                "complete": self.complete, "thresholds": dict(THRESHOLDS),
                "summary": [s.to_dict() for s in self.summary],
                "rounds": [r.to_dict() for r in self.rounds],
                "plies": [p.to_dict() for p in self.plies]}

    def to_json(self, indent: Optional[int] = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def annotated(self, record: GameRecord) -> GameRecord:
        """A copy of ``record`` (the one reviewed) with this review as notes on the
        reviewed game's moves: each move's label, the engine's evaluation (the mover's
        win probability with the move played, the best move found, the search) and, where
        the best move was another, a comment saying what it would have kept.  The
        ``annotator`` header names the review.  The copy is checked like a record read
        from a file."""
        d = record.to_dict()
        game = d["games"][self.game]
        engine = str(self.settings.get("algorithm", "ismcts"))
        iterations = self.settings.get("iterations")
        for p in self.plies:
            rnd = game["rounds"][p.round - 1]
            notes = rnd.get("notes") or [None] * len(rnd["moves"])
            ev: dict[str, Any] = {"win_probability": round(p.win_played, 6),
                                  "best": str(p.best), "engine": engine}
            if isinstance(iterations, int):
                ev["iterations"] = iterations
            note: dict[str, Any] = dict(notes[p.ply - 1] or {})
            note["eval"] = ev
            if p.label is not None:
                note["label"] = p.label
            if p.best != p.move:
                note["comment"] = (f"best {p.best} {100 * p.win_best:.1f} %, played "
                                   f"{100 * p.win_played:.1f} %: loss {p.loss:.1f}")
            notes[p.ply - 1] = note
            rnd["notes"] = notes
        d.setdefault("headers", {})["annotator"] = f"jaipur-ai review, seed " \
                                                   f"{self.settings.get('seed')}"
        return GameRecord.from_dict(d)

    @classmethod
    def from_dict(cls, d: Any) -> "GameReview":
        """Read back :meth:`to_dict`'s data (the summary and the turning
        points are computed again from the plies)."""
        if not isinstance(d, dict):
            raise ReviewError("review", f"expected an object, got {describe(d)}")
        if d.get("format") != FORMAT:
            raise ReviewError("format", f"expected {FORMAT!r}, got {describe(d.get('format'))}")
        players, plies, rounds = d.get("players"), d.get("plies"), d.get("rounds")
        if not (isinstance(players, list) and len(players) == 2
                and all(isinstance(x, str) for x in players)):
            raise ReviewError("players", "expected a list of two names")
        if not isinstance(plies, list):
            raise ReviewError("plies", f"expected a list, got {describe(plies)}")
        if not isinstance(rounds, list) or not all(isinstance(r, dict) for r in rounds):
            raise ReviewError("rounds", "expected a list of objects")
        game, settings = d.get("game"), d.get("settings")
        if not isinstance(game, int) or isinstance(game, bool) or game < 0:
            raise ReviewError("game", f"expected an index >= 0, got {describe(game)}")
        if not isinstance(settings, dict):
            raise ReviewError("settings", f"expected an object, got {describe(settings)}")
        ps = [PlyReview.from_dict(p, f"plies[{i}]") for i, p in enumerate(plies)]
        rs = [_round_review(k + 1, [p for p in ps if p.round == k + 1], r.get("result"),
                            r.get("totals")) for k, r in enumerate(rounds)]
        return cls(game, list(players), ps, rs, dict(settings), bool(d.get("complete", True)))

    @classmethod
    def from_json(cls, text: str) -> "GameReview":
        try:
            return cls.from_dict(json.loads(text))
        except json.JSONDecodeError as e:
            raise ReviewError("review", f"not JSON: {e}") from None

    def plot(self, path: str) -> None:
        """Draw each player's win probability over the game, the labelled moves marked,
        into ``path`` (PNG, SVG or PDF by its suffix).  Needs matplotlib (the ``plot``
        extra): :class:`~jaipur_ai.errors.MissingExtraError` otherwise."""
        from jaipur_ai.doors._review_plot import plot_review
        plot_review(self, path)


_PLURAL = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}


def _count(n: int, label: str) -> str:
    return f"{n} {label if n == 1 else _PLURAL[label]}"


def _round_review(number: int, plies: list[PlyReview], result: Any,
                  totals: Any) -> RoundReview:
    """A round's result and its turning point (the winner's last turn at or below 50 %)."""
    turning = None
    if result in (0, 1):
        low = [p.ply for p in plies if p.mover == result and p.win_best <= 0.5]
        turning = low[-1] if low else None
    tot = None if totals is None else [int(t) for t in totals]
    return RoundReview(number, result, tot, turning)


# ---------------------------------------------------------------------------- review

def _make_engine(engine: Optional[Engine], algorithm: str, options: dict[str, Any]) -> Engine:
    if engine is None:
        engine = Engine.from_options(algorithm, **options)
    elif not isinstance(engine, Engine):
        raise InvalidOptionError("engine", f"expected a jaipur_ai.Engine, got {describe(engine)}")
    elif options or algorithm != "ismcts":
        raise InvalidOptionError("engine", "give an Engine or engine options, not both")
    if engine.algorithm not in ("ismcts", "expectimax"):
        raise InvalidOptionError("algorithm", f"a review needs a search that estimates win "
                                              f"probabilities (ismcts or expectimax), not "
                                              f"{engine.algorithm}")
    if engine.perfect_information:
        raise InvalidOptionError("perfect_information", "a review searches every ply from the "
                                                        "mover's view only")
    return engine


def _game_plies(record: GameRecord, game: int) -> tuple[list[tuple[Any, ...]], dict[int, GameState]]:
    """(round index, ply index, state, move) of the game's plies, and each round's last
    position; the whole record up to that game is replayed and checked first."""
    plies: list[tuple[Any, ...]] = []
    ends: dict[int, GameState] = {}
    for gi, ri, k, state, move in record.replay():
        if gi > game:
            break
        if gi == game:
            plies.append((ri, k, state, move))
            ends[ri] = state.apply(move)
    return plies, ends


class _Search:
    """The searches of one review: the engine, the per-ply limit and the stop event."""

    def __init__(self, engine: Engine, iterations: Optional[int], time: Optional[float],
                 stop: Optional[threading.Event]) -> None:
        self.engine, self.iterations, self.time, self.stop = engine, iterations, time, stop

    def analyse(self, view: View, seed: int, share: int = 1,
                history: Optional[list[Any]] = None) -> Analysis:
        it = None if self.iterations is None else max(1, self.iterations // share)
        t = None if self.time is None else self.time / share
        return self.engine.analyse(view, time=t, iterations=it, top=None, seed=seed,
                                   stop_event=self.stop, history=history)

    def stopped(self) -> bool:
        return self.stop is not None and self.stop.is_set()

    def after_difference(self, view: View, best: Move, played: Move, seed: int) -> float:
        """The mover's win probability after ``best`` less that after ``played``, both in
        the same AFTER_WORLDS worlds sampled from the mover's view, the opponent's reply
        searched from the opponent's view in each world."""
        mover = view.observer
        diff = 0.0
        for k in range(AFTER_WORLDS):
            world = view.sample(derive_seed(seed, 1, k))
            for sign, move in ((1.0, best), (-1.0, played)):
                after = world.apply(move)
                if after.is_round_over:
                    r = after.result
                    v = 0.5 if r == "draw" else float(r == mover)
                else:
                    a = self.analyse(after.view(after.to_move), derive_seed(seed, 2, k),
                                     2 * AFTER_WORLDS)
                    w = _win(a.candidates[0]) if a.candidates else 0.5
                    v = w if after.to_move == mover else 1.0 - w
                diff += sign * v
        return diff / AFTER_WORLDS


def _win(c: Candidate) -> float:
    return 0.5 if c.win_probability is None else float(c.win_probability)


def _review_ply(search: _Search, view: View, move: Move, seed: int, number: tuple[int, int],
                history: list[Any]) -> Optional[PlyReview]:
    # the mover's belief reads the round's moves before this one, as in the game
    a = search.analyse(view, seed, history=history)
    if search.stopped():
        return None
    if not a.candidates:
        raise InvalidOptionError("iterations", "the search found no move to compare with: "
                                               "give more iterations or time per ply")
    best = a.candidates[0]
    win_best = _win(best)
    played = next((c for c in a.candidates if c.move == move), None)
    need = max(MIN_ROOT_VISITS, int(ROOT_VISIT_SHARE * a.iterations))
    if best.move == move:
        method, win_played, visits = "best", win_best, best.visits
    elif played is not None and played.win_probability is not None and (
            (a.algorithm == "expectimax" and played.visits > 0)
            or played.decisive is not None
            or played.visits >= need):
        method, win_played, visits = "root", _win(played), played.visits
    else:
        d = search.after_difference(view, best.move, move, seed)
        if search.stopped():
            return None
        method, visits = "after", 0 if played is None else played.visits
        win_played = min(1.0, max(0.0, win_best - d))
    loss = max(0.0, 100.0 * (win_best - win_played))
    return PlyReview(number[0], number[1], view.observer, move, best.move, win_best,
                     win_played, loss, label_for(loss), list(best.pv), visits, method, view)


def review_game(record: Union[GameRecord, dict[str, Any]], *, game: int = 0,
                iterations: Optional[int] = None, time: Optional[float] = None,
                seed: Optional[int] = 0, engine: Optional[Engine] = None,
                algorithm: str = "ismcts", progress: Optional[Progress] = None,
                stop_event: Optional[threading.Event] = None, **options: Any) -> GameReview:
    """Review game ``game`` (its index in ``record.games``) of a record, every ply
    searched from the mover's view with ``engine`` (default: ``Engine(algorithm,
    **options)``, the options of :class:`~jaipur_ai.Engine`) for ``iterations`` or
    ``time`` seconds per ply (default: the engine's limits, else
    :data:`DEFAULT_ITERATIONS`).  The search of ply k of round r uses
    :func:`ply_seed` ``(seed, game, r, k)``; ``seed=None`` draws one (recorded in
    ``settings``).  ``progress(plies_done, plies_total)`` is called before the first ply
    and after each; setting ``stop_event`` ends the review after the ply being searched
    (``complete`` is then ``False``).

    A bad record raises :class:`~jaipur_ai.RecordError`; bad options
    :class:`~jaipur_ai.InvalidOptionError`.
    """
    if isinstance(record, dict):
        record = GameRecord.from_dict(record, verify=False)
    if not isinstance(record, GameRecord):
        raise RecordError("record", f"expected a jaipur_ai.GameRecord, got {describe(record)}")
    game = check("game", game)
    if game >= len(record.games):
        raise InvalidOptionError("game", f"the record holds {len(record.games)} game(s), "
                                         f"numbered from 0; got {game}")
    iterations, time = check("iterations", iterations), check("time", time)
    seed = check("seed", seed)
    engine = _make_engine(engine, algorithm, options)
    if iterations is None and time is None:
        iterations, time = engine.iterations, engine.time
        if iterations is None and time is None:
            iterations = DEFAULT_ITERATIONS
    if iterations == 0:
        raise InvalidOptionError("iterations", "a review needs at least 1 iteration per ply")
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little") >> 1
    plies, ends = _game_plies(record, game)
    search = _Search(engine, iterations, time, stop_event)
    done: list[PlyReview] = []
    if progress is not None:
        progress(0, len(plies))
    history: list[Any] = []               # the (state, move) pairs of the round so far
    for ri, k, state, move in plies:
        if search.stopped():
            break
        if k == 0:
            history = []
        r = _review_ply(search, state.view(state.to_move), move, ply_seed(seed, game, ri, k),
                        (ri + 1, k + 1), history)
        history.append((state, move))
        if r is None:
            break
        done.append(r)
        if progress is not None:
            progress(len(done), len(plies))
    complete = len(done) == len(plies)
    rounds = []
    for ri in range(len(record.games[game]["rounds"])):
        reviewed = sum(p.round == ri + 1 for p in done) == sum(x[0] == ri for x in plies)
        end = ends.get(ri) if reviewed else None
        result = None if end is None or not end.is_round_over else end.result
        totals = None if end is None or not end.is_round_over else list(end.round_totals())
        rounds.append(_round_review(ri + 1, [p for p in done if p.round == ri + 1], result,
                                    totals))
    seats = record.games[game].get("seats")
    names = [str(s) for s in seats] if isinstance(seats, list) and len(seats) == 2 \
        else ["player 0", "player 1"]
    settings = {"algorithm": engine.algorithm, "iterations": iterations, "time": time,
                "seed": seed, "threads": engine.threads, "options": engine.options()}
    return GameReview(game, names, done, rounds, settings, complete)

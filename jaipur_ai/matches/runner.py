"""Engine-vs-engine matches: mirrored deals, worker processes, and the statistics.

A match between engines A and B is a number of *deals*.  Each deal (a seed for
:meth:`GameState.new`) is played twice with the engines swapping seats: the same
cards, the same player starts, so A starts one of the two games and B the other.
Luck of the deal is paired off; what is left is the difference between engines.

A *game* is one round (the unit of a seal) by default, or a whole match to two
seals with ``unit="match"`` (the later rounds of both games use the same deal
seeds, in the order they are dealt).  Each engine searches only its own view:
the player's information set, never the hidden cards.

>>> from jaipur_ai.matches.runner import EngineSpec, run_match
>>> a = EngineSpec.parse("greedy")
>>> b = EngineSpec.parse("random")
>>> result = run_match(a, b, games=2, seed=1)
>>> result.n_games                          # 2 deals, each played in both seats
4
>>> 0.0 <= result.score <= 1.0
True

Statistics (:func:`summarise`) -- all from the point of view of engine A:

* win rate: the mean per-game score (win 1, draw 1/2, loss 0);
* 95% interval: the **Wilson score interval** of that rate over ``n`` games
  (:func:`wilson_interval`).  Draws count as half a win.  Wilson's variance
  ``p(1-p)/n`` is that of win/loss games; draws and the pairing of mirrored games
  only make the true spread smaller, so the interval errs on the wide side;
* Elo difference: ``-400 log10(1/p - 1)`` (:func:`elo_difference`), and its
  interval is the Wilson bounds mapped through the same function (infinite when a
  bound is 0 or 1; ``None`` in JSON);
* mean margin: A's round points minus B's, with a 95% interval by Student's t
  (:func:`normal_interval`: n - 1 degrees of freedom, right for a handful of games);
* mean seconds per move for each engine, and the results split by who started
  and by player number.

Reproducible for a seed when every limit is an iteration count (not a time):
deal seeds and every search seed derive from the match seed, the deal number,
the seat, the round and the ply, never from which worker played the game.
"""
from __future__ import annotations

import json
import math
import os
import time
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from jaipur_ai.matches.backends import Backend, make_backend
from jaipur_ai.errors import JaipurError
from jaipur_ai.options import check, describe
from jaipur_ai.matches.spec import (ALGORITHMS, LEVELS, EngineSpec, SpecError,  # noqa: F401
                   deal_seeds, derive_seed, option_value)
from jaipur_ai.matches.spec import deal_seed as _deal_seed, game_seed as _game_seed
from jaipur_ai.matches.sprt import SPRT, pentanomial, pentanomial_stats
from jaipur_ai.rules.position import GameState
from jaipur_ai.matches.stats import (elo_difference, normal_interval, student_t95,  # noqa: F401
                    wilson_interval)

__all__ = [
    "EngineSpec", "GameRecord", "MatchResult", "play_round", "play_game", "run_match",
    "deal_seeds", "derive_seed", "wilson_interval", "normal_interval", "student_t95",
    "elo_difference",
    "summarise", "format_result", "option_value", "LEVELS", "ALGORITHMS", "pair_scores",
    "ResultsFile", "ResultsFileError",
]

# ----------------------------------------------------------------------- playing
@dataclass
class GameRecord:
    """One finished game between A and B (a round, or a match to two seals)."""

    deal: int                    #: deal number in the match
    deal_seed: int
    a_seat: int                  #: player number (0/1) engine A played
    starter: int                 #: player who moved first in the (first) round
    winner: str                  #: "A", "B" or "draw"
    points: tuple                #: (A's points, B's points), summed over rounds
    rounds: int = 1
    seals: tuple = (0, 0)        #: (A's seals, B's seals)
    plies: int = 0
    moves: list = field(default_factory=list)   #: move texts, "|" between rounds
    seconds: tuple = (0.0, 0.0)  #: total thinking seconds (A, B)
    engine_moves: tuple = (0, 0) #: moves made (A, B)

    @property
    def score(self) -> float:
        return {"A": 1.0, "B": 0.0, "draw": 0.5}[self.winner]

    @property
    def margin(self) -> int:
        return self.points[0] - self.points[1]

    @property
    def a_started(self) -> bool:
        return self.starter == self.a_seat

    def to_dict(self) -> dict:
        return {"deal": self.deal, "deal_seed": self.deal_seed, "a_seat": self.a_seat,
                "starter": self.starter, "a_started": self.a_started, "winner": self.winner,
                "score": self.score, "points": list(self.points), "margin": self.margin,
                "rounds": self.rounds, "seals": list(self.seals), "plies": self.plies,
                "seconds": list(self.seconds), "engine_moves": list(self.engine_moves),
                "moves": self.rounds_moves()}

    @classmethod
    def from_dict(cls, d: dict) -> "GameRecord":
        """The record of :meth:`to_dict` (a line of a results file) read back."""
        moves: list[str] = []
        for i, rnd in enumerate(d.get("moves") or [[]]):
            if i:
                moves.append("|")
            moves.extend(rnd)
        return cls(deal=int(d["deal"]), deal_seed=int(d["deal_seed"]), a_seat=int(d["a_seat"]),
                   starter=int(d["starter"]), winner=str(d["winner"]),
                   points=tuple(d["points"]), rounds=int(d.get("rounds", 1)),
                   seals=tuple(d.get("seals", (0, 0))), plies=int(d.get("plies", 0)),
                   moves=moves, seconds=tuple(d.get("seconds", (0.0, 0.0))),
                   engine_moves=tuple(d.get("engine_moves", (0, 0))))

    def rounds_moves(self) -> list[list[str]]:
        """The moves, one list per round (as JSON records hold them)."""
        out: list[list[str]] = [[]]
        for m in self.moves:
            if m == "|":
                out.append([])
            else:
                out[-1].append(m)
        return out


def _choose(engine: Any, spec: EngineSpec, state: GameState, seed: int) -> tuple[Any, float]:
    # the player's view only, unless the spec asks for the cheating mode
    view = state if spec.cheats else state.view(state.to_move)
    lim = spec.limits()
    t0 = time.perf_counter()
    move = engine.best_move(view, time=lim["time"], iterations=lim["iterations"], seed=seed)
    return move, time.perf_counter() - t0


def _play_one_round(state: GameState, engines: dict, specs: dict,
                    seed_of: Callable[[int, int], int], acc: dict) -> GameState:
    """Play ``state`` to the end of its round; ``engines``/``specs`` by player;
    ``seed_of(ply, player)`` seeds each search.  An engine with a ``see_move(view,
    move)`` method (:meth:`jaipur_ai.Engine.see_move`) is shown every move played,
    with its own view of the position the move was played in: what a player at the
    table sees, from which ``Engine(belief=...)`` weighs the opponent's hand."""
    ply = 0
    watchers = [q for q in (0, 1) if hasattr(engines[q], "see_move")]
    while not state.is_round_over:
        p = state.to_move
        move, secs = _choose(engines[p], specs[p], state, seed_of(ply, p))
        for q in watchers:
            engines[q].see_move(state.view(q), move)
        state = state.apply(move)
        acc["moves"].append(str(move))
        acc["seconds"][p] += secs
        acc["count"][p] += 1
        ply += 1
    acc["plies"] += ply
    return state


def play_game(spec_a: Union[str, EngineSpec], spec_b: Union[str, EngineSpec], deal_seed: int,
              a_seat: int, *, unit: str = "round", starter: Optional[int] = None,
              seed: Optional[int] = None, deal: int = 0,
              move_seed: Optional[Callable[[int, int, int], int]] = None) -> GameRecord:
    """Play one game (``unit="round"``: one round; ``"match"``: rounds until a
    player holds two seals) from ``GameState.new(deal_seed, starter)``, engine A
    as player ``a_seat``.  Search seeds derive from ``seed`` (default: the deal
    seed), the seat, the round and the ply; ``move_seed(round, ply, player)``,
    when given, is the seed of each search instead (bench/bench_strength.py keeps
    its own seeding this way)."""
    if unit not in ("round", "match"):
        raise SpecError("unit", f"expected 'round' or 'match', got {unit!r}")
    if a_seat not in (0, 1):
        raise SpecError("a_seat", f"expected 0 or 1, got {a_seat!r}")
    a, b = EngineSpec.parse(spec_a), EngineSpec.parse(spec_b)
    specs = {a_seat: a, 1 - a_seat: b}
    engines = {a_seat: a.make_engine(), 1 - a_seat: b.make_engine()}
    base = deal_seed if seed is None else seed
    state = GameState.new(deal_seed, starter=starter)
    first_starter = state.starter
    acc: dict[str, Any] = {"moves": [], "seconds": [0.0, 0.0], "count": [0, 0], "plies": 0}
    points = [0, 0]
    rounds = 0
    while True:
        rounds += 1
        seed_of: Callable[[int, int], int]
        if move_seed is None:
            path = (base, 1, deal, a_seat, rounds)

            def derived(ply: int, player: int, path: tuple = path) -> int:
                return derive_seed(*path, ply)
            seed_of = derived
        else:
            def given(ply: int, player: int, rnd: int = rounds,
                      fn: Callable[[int, int, int], int] = move_seed) -> int:
                return fn(rnd, ply, player)
            seed_of = given
        state = _play_one_round(state, engines, specs, seed_of, acc)
        totals = state.round_totals()
        points[0] += totals[0]
        points[1] += totals[1]
        if unit == "round" or state.is_match_over:
            break
        acc["moves"].append("|")
        state = state.next_round(seed=derive_seed(deal_seed, 2, rounds))
    if unit == "round":
        r = state.result
        winner_player = None if r == "draw" else r
    else:
        winner_player = state.match_winner
    if winner_player is None:
        winner = "draw"
    else:
        winner = "A" if winner_player == a_seat else "B"
    seals = state.seals
    return GameRecord(
        deal=deal, deal_seed=deal_seed, a_seat=a_seat, starter=first_starter, winner=winner,
        points=(points[a_seat], points[1 - a_seat]), rounds=rounds,
        seals=(seals[a_seat], seals[1 - a_seat]), plies=acc["plies"], moves=acc["moves"],
        seconds=(acc["seconds"][a_seat], acc["seconds"][1 - a_seat]),
        engine_moves=(acc["count"][a_seat], acc["count"][1 - a_seat]))


def play_round(spec_a: Union[str, EngineSpec], spec_b: Union[str, EngineSpec], deal_seed: int,
               a_seat: int, *, starter: Optional[int] = None, seed: Optional[int] = None,
               deal: int = 0) -> GameRecord:
    """Play one round from ``GameState.new(deal_seed, starter)``, engine A as
    player ``a_seat``, each engine searching only its own view.

    >>> r = play_round("greedy", "random", deal_seed=5, a_seat=0)
    >>> r.winner in ("A", "B", "draw"), r.rounds
    (True, 1)
    """
    return play_game(spec_a, spec_b, deal_seed, a_seat, unit="round", starter=starter,
                     seed=seed, deal=deal)


# -------------------------------------------------------------------- statistics
def _wdl(records: Iterable[GameRecord]) -> dict:
    recs = list(records)
    w = sum(r.winner == "A" for r in recs)
    d = sum(r.winner == "draw" for r in recs)
    lost = sum(r.winner == "B" for r in recs)
    n = len(recs)
    return {"games": n, "wins": w, "draws": d, "losses": lost,
            "score": (w + 0.5 * d) / n if n else None}


def _finite(x: float) -> Optional[float]:
    return x if math.isfinite(x) else None


def pair_scores(records: Iterable[GameRecord]) -> list[float]:
    """A's pair score (0 .. 2) of every deal with both games finished, in deal order."""
    by_deal: dict[int, dict[int, float]] = {}
    for r in records:
        by_deal.setdefault(r.deal, {})[r.a_seat] = r.score
    return [seats[0] + seats[1] for _, seats in sorted(by_deal.items()) if len(seats) == 2]


def summarise(records: Sequence[GameRecord]) -> dict:
    """The statistics of finished games, from A's point of view (a dict that
    JSON can hold: infinite Elo bounds are ``None``)."""
    recs = list(records)
    n = len(recs)
    out = _wdl(recs)
    score = out["score"] if n else 0.5
    lo, hi = wilson_interval(score, n)
    margin, mlo, mhi = normal_interval([r.margin for r in recs])
    secs = [sum(r.seconds[i] for r in recs) for i in range(2)]
    cnt = [sum(r.engine_moves[i] for r in recs) for i in range(2)]
    ps = pair_scores(recs)
    out.update({
        "win_rate": score if n else None,
        "win_rate_ci95": [lo, hi] if n else None,
        "ci_method": "wilson score interval on the per-game score (draw = 1/2)",
        "margin_ci_method": "student t interval of the mean margin (n - 1 degrees of freedom)",
        "elo": _finite(elo_difference(score)) if n else None,
        "elo_ci95": [_finite(elo_difference(lo)), _finite(elo_difference(hi))] if n else None,
        "elo_infinite": (None if not n else
                         "+inf" if score >= 1 else "-inf" if score <= 0 else None),
        "mean_margin": margin if n else None,
        "mean_margin_ci95": [mlo, mhi] if n else None,
        "seconds_per_move": [secs[i] / cnt[i] if cnt[i] else None for i in range(2)],
        "moves": cnt,
        "complete_pairs": len(ps),
        "paired": pentanomial_stats(pentanomial(ps)),
        "by_start": {"a_first": _wdl(r for r in recs if r.a_started),
                     "b_first": _wdl(r for r in recs if not r.a_started)},
        "by_seat": {"a_player0": _wdl(r for r in recs if r.a_seat == 0),
                    "a_player1": _wdl(r for r in recs if r.a_seat == 1)},
    })
    return out


# ------------------------------------------------------------------- the runner
@dataclass
class MatchResult:
    """Games played between A and B, and what they show."""

    a: EngineSpec
    b: EngineSpec
    seed: int
    deals: int
    unit: str
    records: list
    interrupted: bool = False
    elapsed: float = 0.0
    workers: int = 1
    resumed: int = 0                 #: games read back from the results file
    out: Optional[str] = None        #: the results file
    sprt: Optional[dict] = None      #: the SPRT's final status (jaipur_ai.matches.sprt.SPRT.status)
    backend: str = "local"           #: where the games were played: "local" or "ray"

    @property
    def n_games(self) -> int:
        return len(self.records)

    @property
    def stats(self) -> dict:
        return summarise(self.records)

    @property
    def score(self) -> float:
        s = self.stats["score"]
        return 0.5 if s is None else s

    @property
    def reproducible(self) -> bool:
        return self.a.deterministic and self.b.deterministic

    def to_dict(self, records: bool = True) -> dict:
        """Plain data: the specs, the statistics of :func:`summarise` and, with
        ``records``, one entry per game under ``"records"``."""
        d = {"a": self.a.to_dict(), "b": self.b.to_dict(), "seed": self.seed,
             "deals": self.deals, "unit": self.unit, "games_planned": 2 * self.deals,
             "games_played": self.n_games, "interrupted": self.interrupted,
             "reproducible": self.reproducible, "workers": self.workers,
             "backend": self.backend,
             "elapsed": self.elapsed, "resumed": self.resumed, "out": self.out,
             "sprt": self.sprt, **self.stats}
        if records:
            d["records"] = [r.to_dict() for r in self.records]
        return d

    def to_json(self, indent: Optional[int] = 2, records: bool = True) -> str:
        return json.dumps(self.to_dict(records), indent=indent)

    def __str__(self) -> str:
        return format_result(self)


def _pct(x: Optional[float]) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _secs(x: Optional[float]) -> str:
    if x is None:
        return "-"
    return f"{1000 * x:.2f} ms" if x < 0.1 else f"{x:.3f} s"


def _elo(x: Optional[float], inf: str = "inf") -> str:
    return inf if x is None else f"{x:+.0f}"


def _elo_text(score: float) -> str:
    e = elo_difference(score)
    return f"{e:+.0f}" if math.isfinite(e) else ("+inf" if e > 0 else "-inf")


def format_result(res: MatchResult) -> str:
    """The plain-text report printed by ``jaipur-ai match``."""
    s = res.stats
    unit = res.unit + ("es" if res.unit == "match" else "s") if res.n_games != 1 else res.unit
    lines = [f"A: {res.a}", f"B: {res.b}",
             f"{res.n_games} {unit} played ({s['complete_pairs']} mirrored deals of "
             f"{res.deals}, seed {res.seed}, {res.workers} "
             f"{'Ray ' if res.backend == 'ray' else ''}worker"
             f"{'s' if res.workers != 1 else ''}, {res.elapsed:.1f} s)"
             + ("  -- INTERRUPTED, partial result" if res.interrupted else "")]
    if res.out is not None:
        lines.append(f"results file {res.out}" + (f" ({res.resumed} games read back, not "
                                                  f"played again)" if res.resumed else ""))
    if not res.n_games:
        lines.append("no game finished")
        return "\n".join(lines)
    lo, hi = s["win_rate_ci95"]
    lines.append(f"A wins {s['wins']}, draws {s['draws']}, loses {s['losses']}")
    lines.append(f"A win rate {_pct(s['win_rate'])}  (95% CI {_pct(lo)} .. {_pct(hi)}, "
                 f"Wilson; draw = 1/2)")
    e = s["elo"]
    elo_txt = ({"+inf": "+inf", "-inf": "-inf"}[s["elo_infinite"]] if e is None else f"{e:+.0f}")
    elo_lo, elo_hi = s["elo_ci95"]
    lines.append(f"Elo difference A-B {elo_txt}  (95% CI {_elo(elo_lo, '-inf')} .. "
                 f"{_elo(elo_hi, '+inf')})")
    mlo, mhi = s["mean_margin_ci95"]
    per = "round" if res.unit == "round" else "match"
    lines.append(f"mean margin A-B {s['mean_margin']:+.2f} points per {per}  "
                 f"(95% CI {mlo:+.2f} .. {mhi:+.2f})")
    pd = s["paired"]
    if pd["pairs"]:
        plo, phi = pd["mean_ci95"]
        lines.append(f"paired: {pd['pairs']} deals, pair scores 0/0.5/1/1.5/2: "
                     + " ".join(str(k) for k in pd["pentanomial"])
                     + f"  mean {_pct(pd['mean'])} (95% CI {_pct(plo)} .. {_pct(phi)}), "
                       f"Elo {_elo_text(plo)} .. {_elo_text(phi)}")
    if res.sprt is not None:
        t = res.sprt
        verdict = {"H1": f"H1 accepted (A is elo1={t['elo1']:g} stronger, not elo0)",
                   "H0": f"H0 accepted (elo0={t['elo0']:g}, not elo1={t['elo1']:g})",
                   None: "no decision yet"}[t["decision"]]
        lines.append(f"SPRT elo0={t['elo0']:g} elo1={t['elo1']:g} alpha={t['alpha']:g} "
                     f"beta={t['beta']:g}: LLR {t['llr']:+.2f}  (bounds {t['lower']:+.2f} .. "
                     f"{t['upper']:+.2f}, {t['pairs']} pairs)  {verdict}")
    spm = s["seconds_per_move"]
    lines.append(f"time per move: A {_secs(spm[0])}, B {_secs(spm[1])}")
    for title, key in (("A moves first", "a_first"), ("B moves first", "b_first")):
        g = s["by_start"][key]
        lines.append(f"  {title:<16} {g['wins']:>4} W {g['draws']:>3} D {g['losses']:>4} L"
                     f"   score {_pct(g['score'])}")
    for title, key in (("A is player 0", "a_player0"), ("A is player 1", "a_player1")):
        g = s["by_seat"][key]
        lines.append(f"  {title:<16} {g['wins']:>4} W {g['draws']:>3} D {g['losses']:>4} L"
                     f"   score {_pct(g['score'])}")
    if not res.reproducible:
        lines.append("(time limits: the moves depend on the machine's speed; use "
                     "iteration limits for a reproducible match)")
    return "\n".join(lines)


# ------------------------------------------------------------------ results file
RESULTS_FORMAT = "jaipur-match-results/1"


class ResultsFileError(JaipurError):
    """A results file that cannot be used for this match (field ``out``)."""


class ResultsFile:
    """``--out FILE``: the results of a match, one JSON line per finished game.

    The first line is a header, ``{"format": "jaipur-match-results/1", "settings":
    {...}}`` with what fixes the games (A, B, the match seed, the unit); each later
    line is one game: :meth:`GameRecord.to_dict` plus ``"match_seed"`` and
    ``"game_seed"`` (the seed its searches derive from).  Lines are appended,
    flushed and synced as each game finishes, so a crash loses at most the games
    being played.  Opening an existing file reads its games back (a torn last line,
    from a crash while writing, is cut off); a header with other settings is refused
    (:class:`ResultsFileError`).  A deal and seat found twice count once."""

    def __init__(self, path: str, settings: dict) -> None:
        self.path = os.fspath(path)
        self.settings = settings
        self.records: dict[tuple[int, int], GameRecord] = {}
        self._fh: Any = None
        self._load()

    @staticmethod
    def read_settings(path: str) -> Optional[dict]:
        """The settings in the header of ``path`` (None: no file, or no header yet)."""
        try:
            with open(path, "rb") as fh:
                first = fh.readline()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise ResultsFileError("out", f"cannot read {path}: {e.strerror}") from None
        if not first.endswith(b"\n"):
            return None
        try:
            head = json.loads(first)
            return dict(head["settings"]) if head.get("format") == RESULTS_FORMAT else None
        except (ValueError, KeyError, TypeError, AttributeError):
            return None

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            data = b""
        except OSError as e:
            raise ResultsFileError("out", f"cannot read {self.path}: {e.strerror}") from None
        lines = data.split(b"\n")
        good = 0                       # bytes of whole, readable lines
        if data:
            head_ok = len(lines) > 1
            try:
                head = json.loads(lines[0]) if head_ok else None
            except ValueError:
                head = None
            if not isinstance(head, dict) or head.get("format") != RESULTS_FORMAT:
                if head_ok or data.lstrip()[:1] not in (b"{", b""):
                    raise ResultsFileError("out", f"{self.path} is not a match results file "
                                                  f"({RESULTS_FORMAT})")
                head = None            # a header torn while it was written: start again
            if head is not None:
                if head.get("settings") != self.settings:
                    raise ResultsFileError(
                        "out", f"{self.path} holds a match with other settings "
                               f"({_settings_text(head.get('settings'))}; this match: "
                               f"{_settings_text(self.settings)}): use another file")
                good = len(lines[0]) + 1
                # every line but the last ends in a newline; the last one, after the
                # final newline, is empty or a game torn while it was written (cut off)
                for i, line in enumerate(lines[1:-1]):
                    try:
                        rec = GameRecord.from_dict(json.loads(line))
                    except (ValueError, KeyError, TypeError) as e:
                        raise ResultsFileError("out", f"{self.path}: line {i + 2} is not a "
                                                      f"game ({type(e).__name__})") from None
                    self.records.setdefault((rec.deal, rec.a_seat), rec)
                    good += len(line) + 1
        mode = "r+b" if data else "wb"
        try:
            self._fh = open(self.path, mode)
            self._fh.truncate(good)
            self._fh.seek(good)
            if not good:
                self._write({"format": RESULTS_FORMAT, "settings": self.settings})
        except OSError as e:
            raise ResultsFileError("out", f"cannot write {self.path}: {e.strerror}") from None

    def _write(self, obj: dict) -> None:
        self._fh.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")
        self._fh.flush()
        try:
            os.fsync(self._fh.fileno())
        except OSError:  # pragma: no cover - a file system without fsync
            pass

    def add(self, rec: GameRecord, game_seed: int) -> None:
        key = (rec.deal, rec.a_seat)
        if key in self.records:
            return
        self.records[key] = rec
        self._write({**rec.to_dict(), "match_seed": self.settings["seed"],
                     "game_seed": game_seed})

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def _settings_text(st: Any) -> str:
    if not isinstance(st, dict):
        return "unreadable"
    return ", ".join(f"{k}={st.get(k)}" for k in ("a", "b", "seed", "unit"))


def _task(args: tuple) -> GameRecord:
    a, b, deal, deal_seed, a_seat, unit, seed = args
    return play_game(a, b, deal_seed, a_seat, unit=unit, seed=_game_seed(seed, deal),
                     deal=deal)


class _PairTracker:
    """Pentanomial counts of the complete deals 0, 1, 2, ... in order, and the SPRT
    tested after each of them: its data and its decision are the same for a resumed
    run, for any number of workers and on any backend (a game finishing late may
    complete several deals at once; each is still tested in turn, and the test stops
    at the first deal where it decides)."""

    def __init__(self, sprt: Optional[SPRT]) -> None:
        self.sprt = sprt
        self.seats: dict[int, dict[int, float]] = {}
        self.counts = [0] * 5
        self.next = 0
        self.status: dict = {}

    @property
    def decided(self) -> bool:
        return self.status.get("decision") is not None

    def check(self) -> bool:
        if self.sprt is not None and not self.decided:
            self.status = self.sprt.status(self.counts)
        return self.decided

    def add(self, rec: GameRecord) -> bool:
        """Count a game; True once the SPRT has decided."""
        self.seats.setdefault(rec.deal, {})[rec.a_seat] = rec.score
        while not self.decided and len(self.seats.get(self.next, ())) == 2:
            seats = self.seats.pop(self.next)
            self.counts[int(round(2 * (seats[0] + seats[1])))] += 1
            self.next += 1
            self.check()
        return self.decided


def run_match(a: Union[str, EngineSpec], b: Union[str, EngineSpec], games: int = 10,
              seed: Optional[int] = None, workers: Optional[int] = None, unit: str = "round",
              on_result: Optional[Callable[[GameRecord, int, int], None]] = None,
              should_stop: Optional[Callable[[], bool]] = None,
              out: Optional[str] = None, sprt: Optional[SPRT] = None,
              backend: Union[str, Backend] = "local",
              address: Optional[str] = None) -> MatchResult:
    """Play ``games`` mirrored deals (``2 * games`` games) between A and B.

    ``workers`` games are played at once (default 1; see ``backend``).
    ``on_result(record, done, total)`` is called in this process as each game
    finishes.  Ctrl-C (KeyboardInterrupt), or ``should_stop()`` returning true, stops
    the match: the games already finished are returned with ``interrupted=True``.

    ``backend``: ``"local"`` (processes on this machine) or ``"ray"`` (Ray tasks on the
    cluster at ``address``, or on a Ray started here; ``workers`` defaults to its
    CPUs), or a :class:`jaipur_ai.matches.backends.Backend`.  The games are the same on every
    backend: each is seeded from the match seed, its deal and its seat.

    ``out``: a results file (:class:`ResultsFile`); each game is appended as it
    finishes, and the games already there (same A, B, seed and unit) are not played
    again.  With ``seed=None`` the seed of an existing file is used.  A game that
    comes back twice (a task run again) is counted once.

    ``sprt``: an :class:`jaipur_ai.matches.sprt.SPRT`; the match stops as soon as it decides
    on the complete deals 0, 1, 2, ... (``games`` is then the most deals played)."""
    a, b = EngineSpec.parse(a), EngineSpec.parse(b)
    games, workers = check("games", games), check("workers", workers)
    if unit not in ("round", "match"):
        raise SpecError("unit", f"expected 'round' or 'match', got {describe(unit)}")
    seed = check("seed", seed)
    out = check("out", out)
    if sprt is not None and not isinstance(sprt, SPRT):
        raise SpecError("sprt", f"expected a jaipur_ai.matches.sprt.SPRT, got {describe(sprt)}")
    runner = make_backend(backend, workers, address)
    if seed is None and out is not None:
        old = ResultsFile.read_settings(out)
        if old is not None and isinstance(old.get("seed"), int):
            seed = old["seed"]
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    # fail early, in this process, on an engine that cannot be built
    a.make_engine()
    b.make_engine()
    results = None
    if out is not None:
        results = ResultsFile(out, {"a": str(a), "b": str(b), "seed": seed, "unit": unit})
    try:
        runner.start()                 # Ray: start or join the cluster
    except BaseException:
        if results is not None:
            results.close()
        raise
    total = 2 * games
    records: list[GameRecord] = []
    tracker = _PairTracker(sprt)
    if results is not None:
        records = sorted((r for k, r in results.records.items() if k[0] < games),
                         key=lambda r: (r.deal, r.a_seat))
        for r in records:
            tracker.add(r)
    resumed = len(records)
    finished = {(r.deal, r.a_seat) for r in records}
    runner = runner.for_tasks(total - resumed)

    # the tasks are made as they are needed, never all at once
    tasks = ((a, b, i, _deal_seed(seed, i), seat, unit, seed)
             for i in range(games) for seat in (0, 1) if (i, seat) not in finished)
    interrupted = stop = False
    t0 = time.perf_counter()
    try:
        if tracker.check() or resumed == total:
            pass
        else:
            with closing(runner.map(_task, tasks, should_stop)) as played:
                for rec in played:
                    key = (rec.deal, rec.a_seat)
                    if key in finished:          # the same game twice: counted once
                        continue
                    finished.add(key)
                    records.append(rec)
                    if results is not None:
                        results.add(rec, _game_seed(seed, rec.deal))
                    if on_result is not None:
                        on_result(rec, len(records), total)
                    if tracker.add(rec):
                        stop = True
                        break
            interrupted = not stop and len(records) < total
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if results is not None:
            results.close()
    tracker.check()
    records.sort(key=lambda r: (r.deal, r.a_seat))
    return MatchResult(a=a, b=b, seed=seed, deals=games, unit=unit, records=records,
                       interrupted=interrupted, elapsed=time.perf_counter() - t0,
                       workers=runner.workers or 1, resumed=resumed, out=out,
                       sprt=dict(tracker.status) if sprt is not None else None,
                       backend=runner.name)

"""Engine-vs-engine matches: mirrored deals, worker processes, and the statistics.

A match between engines A and B is a number of *deals*.  Each deal (a seed for
:meth:`GameState.new`) is played twice with the engines swapping seats: the same
cards, the same player starts, so A starts one of the two games and B the other.
Luck of the deal is paired off; what is left is the difference between engines.

A *game* is one round (the unit of a seal) by default, or a whole match to two
seals with ``unit="match"`` (the later rounds of both games use the same deal
seeds, in the order they are dealt).  Each engine searches only its own view:
the player's information set, never the hidden cards.

>>> from jaipur_ai.matches.runner import run_match
>>> from jaipur_ai.matches.spec import EngineSpec
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
  and by player number;
* with a clock (``ismcts:clock=2+0.05``), the moves each engine made past an empty
  clock (``overtime``: the round is played on, not forfeited).

Reproducible for a seed when every limit is an iteration count (not a time):
deal seeds and every search seed derive from the match seed, the deal number,
the seat, the round and the ply, never from which worker played the game.
"""
from __future__ import annotations

import logging
import json
import math
import os
import time
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from jaipur_ai.matches.backends import Backend, make_backend
from jaipur_ai.options import check, describe
from jaipur_ai.matches.spec import EngineSpec, SpecError
from jaipur_ai.matches.spec import deal_seed as _deal_seed, game_seed as _game_seed
from jaipur_ai.matches.sprt import SPRT, pentanomial, pentanomial_stats
from jaipur_ai.matches.games import GameRecord, play_game
from jaipur_ai.matches.results import ResultsFile
from jaipur_ai.matches.stats import elo_difference, normal_interval, wilson_interval

__all__ = ["MatchResult", "run_match", "summarise", "format_result", "pair_scores",
           "deal_scores"]

log = logging.getLogger(__name__)

# -------------------------------------------------------------------- statistics
def _wdl(records: Iterable[GameRecord]) -> dict[str, Any]:
    recs = list(records)
    w = sum(r.winner == "A" for r in recs)
    d = sum(r.winner == "draw" for r in recs)
    lost = sum(r.winner == "B" for r in recs)
    n = len(recs)
    return {"games": n, "wins": w, "draws": d, "losses": lost,
            "score": (w + 0.5 * d) / n if n else None}


def _finite(x: float) -> Optional[float]:
    return x if math.isfinite(x) else None


def deal_scores(records: Iterable[GameRecord]) -> dict[int, float]:
    """A's pair score (0 .. 2) by deal, for every deal with both games finished, in deal
    order."""
    by_deal: dict[int, dict[int, float]] = {}
    for r in records:
        by_deal.setdefault(r.deal, {})[r.a_seat] = r.score
    return {d: seats[0] + seats[1] for d, seats in sorted(by_deal.items()) if len(seats) == 2}


def pair_scores(records: Iterable[GameRecord]) -> list[float]:
    """A's pair score (0 .. 2) of every deal with both games finished, in deal order."""
    return list(deal_scores(records).values())


def summarise(records: Sequence[GameRecord]) -> dict[str, Any]:
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
        "overtime": [sum(r.overtime[i] for r in recs) for i in range(2)],
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
    records: list[Any]
    interrupted: bool = False
    elapsed: float = 0.0
    workers: int = 1
    resumed: int = 0                 #: games read back from the results file
    out: Optional[str] = None        #: the results file
    sprt: Optional[dict[str, Any]] = None      #: the SPRT's final status (jaipur_ai.matches.sprt.SPRT.status)
    backend: str = "local"           #: where the games were played: "local" or "ray"

    @property
    def n_games(self) -> int:
        return len(self.records)

    @property
    def stats(self) -> dict[str, Any]:
        return summarise(self.records)

    @property
    def score(self) -> float:
        s = self.stats["score"]
        return 0.5 if s is None else s

    @property
    def reproducible(self) -> bool:
        return self.a.deterministic and self.b.deterministic

    def to_dict(self, records: bool = True) -> dict[str, Any]:
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
    return f"{x:.3f} s" if x >= 0.001 else f"{x:.6f} s"      # one unit for both sides


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
    if res.a.clock is not None or res.b.clock is not None:
        ot = s["overtime"]
        lines.append(f"moves past an empty clock: A {ot[0]}, B {ot[1]}")
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


def _task(args: tuple[Any, ...]) -> GameRecord:
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
        self.status: dict[str, Any] = {}

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
    log.info("match %s vs %s: %d deals, seed %s, %d games resumed", a, b, games, seed, resumed)
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
    log.info("match %s vs %s: %d games played%s", a, b, len(records),
             " (interrupted)" if interrupted else "")
    return MatchResult(a=a, b=b, seed=seed, deals=games, unit=unit, records=records,
                       interrupted=interrupted, elapsed=time.perf_counter() - t0,
                       workers=runner.workers or 1, resumed=resumed, out=out,
                       sprt=dict(tracker.status) if sprt is not None else None,
                       backend=runner.name)

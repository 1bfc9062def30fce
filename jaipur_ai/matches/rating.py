"""The rating list: engines rated jointly on one Elo scale from the matches between them.

Each pairing of two engines is a match of mirrored deals (:func:`run_match`), kept in
its own results file in one folder.  The ratings are fitted jointly over every file of
the folder by **Bradley–Terry maximum likelihood**, as Ordo and BayesElo do: engine
``i`` scores against ``j`` with probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))``, a
drawn game counts half a win to each side.  A pairing with a perfect score would push
the fit to infinity, so each pairing also holds ``prior`` virtual drawn games (default
1; BayesElo's prior is of the same kind).  The ratings are anchored so that the anchor
engine (default ``greedy``, else the first) is at 0.

The 95 % intervals come from a bootstrap over deals: each pairing's deals (the two
games of a mirrored deal together) are drawn with replacement, the fit is made again,
and the 2.5 and 97.5 percentiles of each rating over the replicates are its interval.
Resampling whole deals keeps the pairing of the mirrored games.

>>> from jaipur_ai.matches.rating import Pairing, fit_ratings
>>> p = [Pairing("a", "b", deals=[2.0, 1.0, 1.0, 2.0])]   # a scores 6 of 8
>>> r = fit_ratings(p, anchor="b", prior=0)
>>> round(r["a"])        # 400 log10(3): a 75 % score
191
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence

import numpy as np

from jaipur_ai.errors import JaipurError
from jaipur_ai.matches.results import ResultsFileError, read_results

__all__ = ["GAUNTLET", "Pairing", "RatingError", "fit_ratings", "bootstrap",
           "read_pairings", "rating_table", "format_table", "pairing_file", "with_limit",
           "without_limit", "default_anchor"]

#: The gauntlet: engines of several families, each frozen by one spec (a time or
#: iteration limit is added by ``jaipur-ai rate``).  docs/strength.md rates them.
GAUNTLET: dict[str, str] = {
    "default": "ismcts",                                 # this build's default
    "2026-12-04": "ismcts:weights=2026-12-04",           # the default before the policy
    "handset": "ismcts:evaluation=heuristic,settings=handset,belief=false",  # 1st landing
    "pimc": "pimc",                                      # perfect-information Monte Carlo
    "expectimax": "expectimax",                          # depth-limited expectimax
    "greedy": "greedy",                                  # the best immediate gain
}


class RatingError(JaipurError):
    """Ratings that cannot be fitted (field and reason)."""


@dataclass
class Pairing:
    """The deals played between engines ``a`` and ``b``: ``deals[k]`` is a's score over
    deal k's games (two when both seats were played), ``games[k]`` how many."""

    a: str
    b: str
    deals: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    spec_a: str = ""     #: the spec a played, as its results file names it ("": not known)
    spec_b: str = ""     #: the same for b

    def __post_init__(self) -> None:
        if not self.games:
            self.games = [2] * len(self.deals)
        if len(self.games) != len(self.deals):
            raise RatingError("games", "one count of games per deal")

    @property
    def n(self) -> int:
        return int(sum(self.games))

    @property
    def score(self) -> float:
        return float(sum(self.deals))


def fit_ratings(pairings: Sequence[Pairing], anchor: Optional[str] = None,
                prior: float = 1.0, tol: float = 1e-10, max_iter: int = 100_000,
                _arrays: Optional[tuple[Any, ...]] = None) -> dict[str, float]:
    """Bradley–Terry ratings (Elo scale) by maximum likelihood, with ``prior`` virtual
    drawn games in every pairing; the ``anchor`` engine at 0.  Raises RatingError when
    the engines do not form one connected group (no common scale exists)."""
    names, i_idx, j_idx, n, s = _arrays if _arrays is not None else _arrays_of(pairings)
    k = len(names)
    if anchor is not None and anchor not in names:
        raise RatingError("anchor", f"{anchor!r} played no game here (engines: "
                                    f"{', '.join(names)})")
    n = n + prior
    s = s + prior / 2.0
    wins = np.zeros(k)
    np.add.at(wins, i_idx, s)
    np.add.at(wins, j_idx, n - s)
    if np.any(wins <= 0):
        who = names[int(np.argmin(wins))]
        raise RatingError("ratings", f"{who} scored nothing: its rating is not finite "
                                     "(give a prior above 0)")
    if np.any(wins >= np.bincount(i_idx, n, k) + np.bincount(j_idx, n, k)):
        who = names[int(np.argmax(wins - np.bincount(i_idx, n, k) - np.bincount(j_idx, n, k)))]
        raise RatingError("ratings", f"{who} lost nothing: its rating is not finite "
                                     "(give a prior above 0)")
    gamma = np.ones(k)
    # Hunter's MM algorithm: gamma_i <- W_i / sum_j n_ij / (gamma_i + gamma_j)
    for _ in range(max_iter):
        d = n / (gamma[i_idx] + gamma[j_idx])
        den = np.bincount(i_idx, d, k) + np.bincount(j_idx, d, k)
        new = wins / den
        new /= math.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    r = 400.0 * np.log10(gamma)
    ref = r[names.index(anchor)] if anchor is not None else r[0]
    return {nm: float(x - ref) for nm, x in zip(names, r)}


def _arrays_of(pairings: Sequence[Pairing]) -> tuple[Any, ...]:
    names: list[str] = []
    for p in pairings:
        for x in (p.a, p.b):
            if x not in names:
                names.append(x)
    if not names:
        raise RatingError("pairings", "no games to rate")
    _check_connected(names, pairings)
    i_idx = np.array([names.index(p.a) for p in pairings], dtype=np.intp)
    j_idx = np.array([names.index(p.b) for p in pairings], dtype=np.intp)
    n = np.array([p.n for p in pairings], dtype=float)
    s = np.array([p.score for p in pairings], dtype=float)
    return names, i_idx, j_idx, n, s


def _check_connected(names: list[str], pairings: Sequence[Pairing]) -> None:
    group = {names[0]}
    grew = True
    while grew:
        grew = False
        for p in pairings:
            if p.n and (p.a in group) != (p.b in group):
                group |= {p.a, p.b}
                grew = True
    apart = [x for x in names if x not in group]
    if apart:
        raise RatingError("pairings", f"{', '.join(apart)} played none of "
                                      f"{', '.join(sorted(group))}: no common scale")


def bootstrap(pairings: Sequence[Pairing], replicates: int = 1000, seed: int = 1,
              anchor: Optional[str] = None, prior: float = 1.0) -> dict[str, np.ndarray]:
    """Each engine's ratings over ``replicates`` fits to the pairings' deals drawn with
    replacement (within each pairing: pairings that played the same deals are resampled
    independently, which errs on the wide side).  A replicate that cannot be fitted (with
    ``prior=0``, one where an engine scored nothing or everything) is NaN."""
    rng = np.random.default_rng(seed)
    names, i_idx, j_idx, _n, _s = _arrays_of(pairings)
    out = {nm: np.full(replicates, np.nan) for nm in names}
    deals = [np.asarray(p.deals, float) for p in pairings]
    games = [np.asarray(p.games, float) for p in pairings]
    for b in range(replicates):
        n = np.empty(len(pairings))
        s = np.empty(len(pairings))
        for q, (d, g) in enumerate(zip(deals, games)):
            pick = rng.integers(0, len(d), len(d)) if len(d) else np.zeros(0, np.intp)
            n[q], s[q] = g[pick].sum(), d[pick].sum()
        try:
            r = fit_ratings(pairings, anchor, prior, tol=1e-7,
                            _arrays=(names, i_idx, j_idx, n, s))
        except RatingError:        # (prior 0: a replicate where someone scored nothing)
            continue
        for nm in names:
            out[nm][b] = r[nm]
    return out


# ------------------------------------------------------------------- results files
def pairing_file(folder: str, a: str, b: str) -> str:
    """The results file of the pairing of engines named ``a`` and ``b`` in ``folder``."""
    slug = re.sub(r"[^A-Za-z0-9.=+-]+", "_", f"{a}--{b}")
    return os.path.join(folder, slug + ".jsonl")


def read_pairings(paths: Iterable[str], names: Optional[dict[str, str]] = None,
                  ) -> list[Pairing]:
    """The pairings in match results files (``jaipur-ai match --out``, ``jaipur-ai
    rate``): one per file, the engines named by ``names`` (spec -> name; a spec is also
    found by its options without its time or iteration limit) or by their spec.  Deals with one game only (a match stopped midway) count that game.
    Files are read by :func:`jaipur_ai.matches.results.read_results` (``.gz`` too)."""
    names = names or {}
    read = []
    for path in paths:
        try:
            read.append((path, *read_results(path)))
        except ResultsFileError as e:
            raise RatingError("results", e.reason) from None
    name_of = _names_of({str(st[k]) for _, st, _ in read for k in ("a", "b")}, names)
    out: list[Pairing] = []
    for path, st, games in read:
        a, b = str(st["a"]), str(st["b"])
        per_deal: dict[int, list[float]] = {}
        for g in games:
            per_deal.setdefault(g.deal, []).append(g.score)
        deals = [per_deal[k] for k in sorted(per_deal)]
        na, nb = name_of[a], name_of[b]
        if na == nb:
            raise RatingError("results", f"{path}: an engine against itself ({na})")
        out.append(Pairing(na, nb, [sum(d) for d in deals], [len(d) for d in deals],
                           spec_a=a, spec_b=b))
    return out


def without_limit(spec: str) -> str:
    """``spec`` without its time or iteration limit (``pimc:time=0.1`` -> ``pimc``)."""
    from jaipur_ai.matches.spec import EngineSpec, SpecError
    try:
        s = EngineSpec.parse(spec)
    except SpecError:
        return spec
    return str(EngineSpec(s.algorithm, None, None, dict(s.options)))


def _names_of(specs: Iterable[str], names: dict[str, str]) -> dict[str, str]:
    """Each spec's name: its own in ``names``, else the name of the same spec without
    its limit, unless another spec of these files has that name already (engines
    that differ only in their limits, as the levels do, are never merged)."""
    bare = {without_limit(k): v for k, v in names.items()}
    out = {s: names[s] for s in specs if s in names}
    guesses: dict[str, list[str]] = {}
    for s in specs:
        if s not in out and without_limit(s) in bare:
            guesses.setdefault(bare[without_limit(s)], []).append(s)
    for name, ss in guesses.items():
        if len(ss) == 1 and name not in out.values():
            out[ss[0]] = name
    return {s: out.get(s, s) for s in specs}


def with_limit(spec: str, time: Optional[float], iterations: Optional[int]) -> str:
    """``spec`` with a per-move limit added where it searches and names none."""
    from jaipur_ai.matches.spec import EngineSpec
    s = EngineSpec.parse(spec)
    if not s.searches or s.time is not None or s.iterations is not None or s.clock:
        return str(s)
    return str(EngineSpec(s.algorithm, time if iterations is None else None, iterations,
                          dict(s.options)))


# ------------------------------------------------------------------------- the table
def default_anchor(pairings: Sequence[Pairing]) -> str:
    """The engine rated 0 when none is named: greedy when it played, else the first."""
    names = _arrays_of(pairings)[0]
    return "greedy" if "greedy" in names else names[0]


def rating_table(pairings: Sequence[Pairing], anchor: Optional[str] = None,
                 prior: float = 1.0, replicates: int = 1000,
                 seed: int = 1, at: float = 0.0) -> list[dict[str, Any]]:
    """One row per engine, best first: rating, 95 % bootstrap interval, games, score;
    the ``anchor`` rated ``at`` (the levels' scale puts the default engine at 2000)."""
    names = _arrays_of(pairings)[0]
    if anchor is None:
        anchor = default_anchor(pairings)
    r = fit_ratings(pairings, anchor, prior)
    boot = bootstrap(pairings, replicates, seed, anchor, prior) if replicates else None
    rows = []
    for nm in names:
        games = sum(p.n for p in pairings if nm in (p.a, p.b))
        score = sum(p.score if p.a == nm else p.n - p.score
                    for p in pairings if nm in (p.a, p.b))
        lo = hi = None
        if boot is not None:
            ok = boot[nm][np.isfinite(boot[nm])]
            if len(ok):
                lo, hi = (at + float(x) for x in np.percentile(ok, [2.5, 97.5]))
        rows.append({"engine": nm, "elo": at + r[nm], "lo": lo, "hi": hi, "games": games,
                     "score": score / games if games else None})
    rows.sort(key=lambda x: -x["elo"])
    return rows


def format_table(rows: Sequence[dict[str, Any]], pairings: Sequence[Pairing],
                 specs: Optional[dict[str, str]] = None) -> str:
    """The rating list and the pairings' scores as plain text."""
    w = max(len(r["engine"]) for r in rows)
    out = [f"{'#':>2}  {'engine':<{w}}  {'Elo':>6}  {'95 % interval':>15}  {'games':>6}  score"]
    for k, r in enumerate(rows, 1):
        iv = ("" if r["lo"] is None else f"{r['lo']:+.0f} .. {r['hi']:+.0f}")
        out.append(f"{k:>2}  {r['engine']:<{w}}  {r['elo']:>+6.0f}  {iv:>15}  "
                   f"{r['games']:>6}  {100 * (r['score'] or 0):.1f} %")
    out.append("")
    out.append("pairings (A's score over the games played):")
    for p in pairings:
        out.append(f"  {p.a} vs {p.b}: {p.score:g} / {p.n} = "
                   f"{100 * p.score / p.n if p.n else 0:.1f} %")
    if specs:
        out.append("")
        out.append("engines:")
        for nm, sp in specs.items():
            out.append(f"  {nm} = {sp}")
    return "\n".join(out)

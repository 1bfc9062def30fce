"""Paired (pentanomial) statistics and the sequential probability ratio test.

A match plays every deal twice, the engines swapping seats.  The two games of a
deal are a *pair*; A's *pair score* is the sum of its two game scores, one of
0, 1/2, 1, 3/2 or 2 (win 1, draw 1/2, loss 0).  The five counts of those pair
scores are the *pentanomial* distribution of chess-engine testing (fishtest,
OpenBench): the luck of the deal cancels inside a pair, so the pairs are much
closer to independent, identically distributed trials than the single games.

Paired statistics (:func:`pentanomial_stats`), over ``N`` complete pairs, with
``x_i`` = pair score / 2 (A's mean score per game in pair ``i``, in [0, 1]):

* ``mean`` x̄ = Σ x_i / N, A's expected score per game;
* its 95% interval: x̄ ± t·sqrt(σ²/N), σ² the sample variance of the x_i
  (Student's t with N - 1 degrees of freedom), mapped to Elo for an Elo interval.

SPRT (:class:`SPRT`): H0 "A is ``elo0`` stronger than B" against H1 "A is
``elo1`` stronger" (logistic Elo: expected score s = 1 / (1 + 10^(-elo/400))).
The log-likelihood ratio is the generalised (normal-approximation) SPRT of
fishtest's ``LLR_logistic``, on the pair scores::

    LLR = N · (s1 - s0) · (2·x̄ - s0 - s1) / (2·σ²)

with x̄ and σ² the mean and the (biased, divide-by-N) variance of the x_i, and
s0, s1 the expected scores of elo0 and elo1.  While a pentanomial count is still
zero it is replaced by 0.001 for x̄ and σ² (fishtest's regularisation), so the
variance is never zero.  The test stops at the first pair where

* LLR ≥ ln((1 - β) / α): H1 is accepted ("A is at least elo1 stronger");
* LLR ≤ ln(β / (1 - α)): H0 is accepted;

but never before ``min_pairs`` (20) complete pairs: the variance of a handful of
pairs is too small to trust (a test allowed to stop at once accepts H1 a third
of the time when H0 holds).

α is the chance of accepting H1 when H0 is true, β of accepting H0 when H1 is.

>>> t = SPRT(elo0=0, elo1=5)
>>> round(t.lower, 4), round(t.upper, 4)
(-2.9444, 2.9444)
>>> t.status([1, 2, 3, 2, 1])["decision"] is None
True
>>> SPRT(0, 50).status([0, 5, 20, 60, 30])["decision"]
'H1'
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

from jaipur_ai.errors import JaipurError
from jaipur_ai.options import check
from jaipur_ai.matches.stats import elo_difference, student_t95

__all__ = ["PAIR_SCORES", "SPRT", "SprtError", "pentanomial", "pentanomial_stats",
           "expected_score", "parse_sprt"]

#: The five pair scores, the index of a pentanomial count.
PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)

_REGULARISE = 1e-3


class SprtError(JaipurError):
    """An SPRT setting that cannot be read."""


def expected_score(elo: float) -> float:
    """A's expected score per game for a logistic Elo difference.

    >>> expected_score(0)
    0.5
    >>> round(expected_score(400), 4)
    0.9091
    """
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def _elo(score: float) -> Optional[float]:
    """The Elo difference of ``score``, None where it is infinite (JSON holds no inf)."""
    e = elo_difference(score)
    return e if math.isfinite(e) else None


def pentanomial(pair_scores: Iterable[float]) -> list[int]:
    """The five counts of pair scores 0, 1/2, 1, 3/2, 2.

    >>> pentanomial([2, 1, 1, 0.5])
    [0, 1, 2, 0, 1]
    """
    counts = [0] * 5
    for s in pair_scores:
        i = int(round(2 * s))
        if not 0 <= i <= 4 or abs(2 * s - i) > 1e-9:
            raise ValueError(f"a pair score is 0, 0.5, 1, 1.5 or 2, got {s!r}")
        counts[i] += 1
    return counts


def _moments(counts: Sequence[float], regularise: bool) -> tuple[float, float, float]:
    """(N, mean, biased variance) of the per-game pair score x = pair score / 2."""
    c = [(_REGULARISE if (regularise and k == 0) else float(k)) for k in counts]
    n = sum(c)
    if n <= 0:
        return (0.0, 0.5, 0.0)
    xs = [s / 2 for s in PAIR_SCORES]
    mean = sum(k * x for k, x in zip(c, xs)) / n
    var = sum(k * (x - mean) ** 2 for k, x in zip(c, xs)) / n
    return (n, mean, var)


def pentanomial_stats(counts: Sequence[int]) -> dict[str, Any]:
    """The paired statistics of pentanomial ``counts`` (a dict that JSON can hold).

    >>> s = pentanomial_stats([0, 1, 2, 0, 1])
    >>> s["pairs"], s["pair_score_mean"], s["mean"]
    (4, 1.125, 0.5625)
    """
    counts = [int(k) for k in counts]
    n = sum(counts)
    out: dict[str, Any] = {"pentanomial": counts, "pair_scores": list(PAIR_SCORES),
                           "pairs": n,
                           "method": "mean of the pair scores / 2 with a Student t 95% "
                                     "interval (n - 1 degrees of freedom, pairs as trials)"}
    if n == 0:
        out.update({"pair_score_mean": None, "mean": None, "mean_ci95": None,
                    "sd": None, "elo": None, "elo_ci95": None})
        return out
    _, mean, var_b = _moments(counts, regularise=False)
    if n > 1:
        sd = math.sqrt(var_b * n / (n - 1))
        half = student_t95(n - 1) * sd / math.sqrt(n)
    else:
        sd, half = 0.0, 0.0
    lo, hi = max(0.0, mean - half), min(1.0, mean + half)
    out.update({"pair_score_mean": 2 * mean, "mean": mean, "mean_ci95": [lo, hi], "sd": sd,
                "elo": _elo(mean), "elo_ci95": [_elo(lo), _elo(hi)]})
    return out


@dataclass(frozen=True)
class SPRT:
    """A sequential test of H0 ``elo0`` against H1 ``elo1`` (logistic Elo, A - B)
    on pentanomial pair counts, with error rates ``alpha`` and ``beta``."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    #: no decision before this many complete pairs: with a handful of pairs the
    #: sample variance is far too small and the test would stop on noise (simulated
    #: error rates 0.35 instead of 0.05 when it may stop at once; near nominal from
    #: 10-20 pairs on)
    min_pairs: int = 20

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            object.__setattr__(self, name, check(name, getattr(self, name)))
        if not self.elo1 > self.elo0:
            raise SprtError("sprt", f"elo1 must be greater than elo0, got elo0={self.elo0:g}"
                                    f", elo1={self.elo1:g}")

    @property
    def lower(self) -> float:
        """ln(β / (1 - α)): at or below it, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """ln((1 - β) / α): at or above it, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        """N (s1 - s0)(2 x̄ - s0 - s1) / (2 σ²) on the (regularised) pair scores / 2."""
        n = sum(counts)
        if n <= 0:
            return 0.0
        _, mean, var = _moments(counts, regularise=True)
        s0, s1 = expected_score(self.elo0), expected_score(self.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

    def decide(self, llr: float, pairs: Optional[float] = None) -> Optional[str]:
        if pairs is not None and pairs < self.min_pairs:
            return None
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def status(self, counts: Sequence[float]) -> dict[str, Any]:
        """LLR, bounds and decision (``"H1"``, ``"H0"`` or None) for ``counts``."""
        llr = self.llr(counts)
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "llr": llr, "lower": self.lower, "upper": self.upper,
                "pairs": int(sum(counts)), "min_pairs": self.min_pairs,
                "decision": self.decide(llr, sum(counts)),
                "model": "pentanomial, normalised GSPRT: LLR = N (s1-s0)(2m-s0-s1)/(2 var) "
                         "on pair scores / 2"}

    def to_dict(self) -> dict[str, Any]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "min_pairs": self.min_pairs}

    def __str__(self) -> str:
        return (f"elo0={self.elo0:g},elo1={self.elo1:g} alpha={self.alpha:g} "
                f"beta={self.beta:g}")


def parse_sprt(text: str, alpha: Optional[float] = None,
               beta: Optional[float] = None) -> SPRT:
    """``elo0=0,elo1=5`` (``alpha=``/``beta=`` may be given there too).

    >>> parse_sprt("elo0=0,elo1=5")
    SPRT(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05, min_pairs=20)
    """
    from jaipur_ai.options import parse_text
    if not isinstance(text, str) or not text.strip():
        raise SprtError("sprt", "expected elo0=X,elo1=Y")
    vals: dict[str, Any] = {"alpha": 0.05 if alpha is None else alpha,
                            "beta": 0.05 if beta is None else beta}
    for item in filter(None, (x.strip() for x in text.split(","))):
        key, eq, val = item.partition("=")
        key = key.strip().lower()
        if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
            raise SprtError("sprt", f"expected elo0=X,elo1=Y, got {item[:40]!r}")
        vals[key] = parse_text(key, val)
    if "elo0" not in vals or "elo1" not in vals:
        raise SprtError("sprt", "expected both elo0= and elo1=, e.g. elo0=0,elo1=5")
    return SPRT(vals["elo0"], vals["elo1"], vals["alpha"], vals["beta"])

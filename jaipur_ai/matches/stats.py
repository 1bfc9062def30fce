"""Interval estimates of match statistics: Wilson, Student's t, Elo.

Plain functions of numbers, shared by the match summary (:mod:`jaipur_ai.matches.runner`) and the
sequential test (:mod:`jaipur_ai.matches.sprt`).
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

__all__ = ["Z95", "wilson_interval", "student_t95", "normal_interval", "elo_difference"]

Z95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution


def wilson_interval(score: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``score`` observed over ``n`` trials.

    >>> lo, hi = wilson_interval(0.5, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.4038, 0.5962)
    >>> wilson_interval(1.0, 10)[1]
    1.0
    """
    if n <= 0:
        return (0.0, 1.0)
    p = min(1.0, max(0.0, score))
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    lo = 0.0 if p == 0.0 else max(0.0, centre - half)
    hi = 1.0 if p == 1.0 else min(1.0, centre + half)
    return (lo, hi)


# two-sided 95% quantiles of Student's t for 1..30 degrees of freedom
_T95 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
        2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
        2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
        2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272)


def student_t95(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (exact to 6
    digits up to 30, then the Cornish-Fisher expansion, better than 1e-5).

    >>> round(student_t95(4), 4), round(student_t95(1000), 4)
    (2.7764, 1.9623)
    """
    if df < 1:
        raise ValueError("df must be >= 1")
    if df <= len(_T95):
        return _T95[df - 1]
    z = Z95
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


def normal_interval(values: Sequence[float], z: Optional[float] = None
                    ) -> tuple[float, float, float]:
    """Mean of ``values`` and its 95% interval: Student's t with n - 1 degrees of freedom
    (sample s.d.), which a handful of games needs; ``z``: a fixed quantile instead."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 0.0)
    mean = sum(values) / n
    if n < 2:
        return (mean, mean, mean)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = (student_t95(n - 1) if z is None else z) * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def elo_difference(score: float) -> float:
    """Elo difference that predicts an expected score ``score`` (``±inf`` at 1 and 0).

    >>> round(elo_difference(0.75), 1)
    190.8
    >>> elo_difference(0.5)
    0.0
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # (+0.0: no -0.0)

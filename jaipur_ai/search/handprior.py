"""How players keep their hands: a learned prior over the opponent's unknown goods.

What a player does not know of its opponent's hand is the goods of the opponent's
opening hand that it still holds (jaipur_ai.search.belief).  Dealt uniformly from the
unseen cards, those goods look like a random hand; but a player keeps the cards it
wants and sells or swaps the rest, so the hand it holds is better than a random one, and
a search that deals it uniformly rates its own chances too high (docs/search.md, "The
pair sum").  This module tilts the uniform deal toward the hands players keep:

    P(U | what the view shows)  ∝  hypergeometric(U)  ×  exp(θ · φ(U))

where φ(U) counts, for each good, the cards of it in U and whether there are two or
more, and three or more (:data:`FEATURES`), and θ is fitted by maximum likelihood to the
unknown hands of real games (a conditional logit over every hand the view allows;
:func:`fit`, bench/fit_hand_prior.py).  θ and the features' version are stored together
in ``jaipur_ai/data/hand-prior.json``, checked when read.

>>> import jaipur_ai as jp
>>> from jaipur_ai.search.belief import unknown_hands
>>> view = jp.GameState.new(seed=3, starter=1).view(0)
>>> rows, logp = unknown_hands(view)
>>> log_tilt(rows).shape == logp.shape
True
"""
from __future__ import annotations

import json
import math
import os
from functools import lru_cache
from typing import Any, Optional

import numpy as np

from jaipur_ai.errors import InvalidDataError, InvalidWeightsError

__all__ = ["FORMAT", "FEATURES", "features", "log_tilt", "read", "fit", "mean_nll",
           "DEFAULT_FILE"]

FORMAT = "jaipur-hand-prior/1"
#: The features of a hand U, in order: for each good (diamonds, gold, silver, cloth,
#: spice, leather) its count in U, then whether it is 2 or more, then 3 or more.
FEATURES = tuple(f"{kind}:{g}" for kind in ("count", "two", "three") for g in "DGSCPL")
DEFAULT_FILE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                            "hand-prior.json")


def features(rows: np.ndarray) -> np.ndarray:
    """φ of each row of goods counts (rows of six): an array (rows, len(FEATURES))."""
    r = np.asarray(rows, dtype=float).reshape(-1, 6)
    return np.concatenate([r, r >= 2, r >= 3], axis=1).astype(float)


def read(path: Optional[str] = None) -> np.ndarray:
    """θ from a hand-prior file (default: the shipped one), checked: an
    InvalidWeightsError names the file and what is wrong.  Read once a file; the array
    is read-only (shared by every search)."""
    return _read(os.path.abspath(DEFAULT_FILE if path is None else path))


@lru_cache(maxsize=8)
def _read(path: str) -> np.ndarray:
    try:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
    except (OSError, ValueError) as e:
        raise InvalidWeightsError(path, f"cannot read it: {e}") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise InvalidWeightsError(path, f"not a {FORMAT} file")
    if d.get("features") != list(FEATURES):
        raise InvalidWeightsError(path, "fitted for other features")
    theta = d.get("theta")
    if not (isinstance(theta, list) and len(theta) == len(FEATURES)
            and all(isinstance(x, (int, float)) and math.isfinite(x) for x in theta)):
        raise InvalidWeightsError(path, f"theta must be {len(FEATURES)} finite numbers")
    out = np.array(theta, dtype=float)
    out.setflags(write=False)
    return out


def log_tilt(rows: np.ndarray, theta: Optional[np.ndarray] = None) -> np.ndarray:
    """log exp(θ · φ(U)) of each row U (add it to the uniform deal's log weights)."""
    t = read() if theta is None else theta
    return np.asarray(features(rows) @ t, dtype=float)


def _nll(theta: np.ndarray, data: list[tuple[Any, np.ndarray, int]]) -> tuple[float, np.ndarray]:
    tot, grad = 0.0, np.zeros_like(theta)
    for x, lp, i in data:
        z = lp + x @ theta
        z = z - z.max()
        p = np.exp(z)
        p /= p.sum()
        tot -= math.log(p[i] + 1e-300)
        grad -= x[i] - p @ x
    return tot / len(data), grad / len(data)


def fit(data: list[tuple[Any, np.ndarray, int]], steps: int = 300, rate: float = 1.0,
        l2: float = 1e-3) -> tuple[np.ndarray, float]:
    """θ maximising the likelihood of the hands held (gradient descent on the mean
    negative log likelihood, a small L2 penalty), and that mean at θ."""
    if not data:
        raise InvalidDataError("games", "no position with an unknown hand to fit")
    theta = np.zeros(len(FEATURES))
    for _ in range(steps):
        _f, g = _nll(theta, data)
        theta -= rate * (g + l2 * theta)
    return theta, _nll(theta, data)[0]


def mean_nll(theta: np.ndarray, data: list[tuple[Any, np.ndarray, int]]) -> float:
    """Mean negative log likelihood (nats a position) of the hands held under θ."""
    return _nll(theta, data)[0]

"""Fit the learned move policy to the search's visits, with numpy only (expert iteration).

The search's visit counts at the root are a better policy than the priors it started
from.  This module fits two softmax policies over the informed policy's candidates
(``learning._selfplay.policy_rows`` builds their rows from self-play shards):

- the **tree prior**: ``logit = a * prior_score / prior_temp + w . f`` where
  ``prior_score`` is the score the search has always turned into PUCT priors (the learned
  value of the position after the move, in points) and ``f`` the move's features
  (``search._movefeatures``).  ``a = 1, w = 0`` is the search's prior before any
  training, the starting point;
- the **playout policy**: ``logit = b * playout_score + u . f``; the playouts add
  ``u / b`` (points, per feature) to their move scores.

Both are convex (multinomial logistic regression), fitted by damped Newton steps with a
small ridge penalty; rounds, not positions, are held out.  The report compares the
fitted tree prior with the starting one on the held-out positions: the cross-entropy to
the visit shares, and how often its first choice is the search's most visited move.

Two positions of two candidates each, where the search chose the move with feature 0
although its prior score was lower: the fitted prior learns to prefer feature 0.

>>> f = np.zeros((4, N_MOVE_FEATURES))
>>> f[[1, 2], 0] = 1.0
>>> rows = {"position": np.array([0, 0, 1, 1]), "prior_score": np.array([1.0, 0, 0, 1]),
...         "playout_score": np.array([1.0, 0, 0, 1]), "features": f,
...         "target": np.array([0.1, 0.9, 0.8, 0.2]), "round": np.array([0, 0, 1, 1])}
>>> w, rep = fit_policy(rows, holdout=0.0, seed=0)
>>> bool(w["prior_w"][0] > 0), rep["prior_before"]["top1"], rep["prior_after"]["top1"]
(True, 0.0, 1.0)
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from jaipur_ai.search._movefeatures import N_MOVE_FEATURES_PY as N_MOVE_FEATURES

__all__ = ["fit_policy", "softmax_fit", "segment_softmax", "policy_report", "rows_of",
           "best_move_targets"]

#: Points below a position's best score beyond which the fit sees no difference.
SCORE_GAP = 30.0
#: The smallest playout scale ``b`` kept: ``u / b`` must stay a finite correction.
MIN_PLAYOUT_SCALE = 0.05


def rows_of(data: dict[str, Any], evaluation: Any) -> dict[str, Any]:
    """The move policy's training rows of self-play ``data`` (``train.load_shards``),
    with the prior scores of ``evaluation`` (the value weights the priors will read),
    and each row's round (for holding rounds out)."""
    from jaipur_ai.learning._selfplay import policy_rows
    if "state" not in data:
        raise ValueError("the shards hold no searched positions (made by 'policy', or by "
                         "an older build): the move policy needs searched self-play")
    rows = policy_rows(data["state"], data["child_action"], data["child_visits"], evaluation)
    rows["round"] = np.asarray(data["round"])[rows["position"]]
    return rows


def _starts(position: np.ndarray) -> np.ndarray:
    """First row of each position (rows of one position are contiguous)."""
    if not len(position):
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.r_[True, position[1:] != position[:-1]])


def segment_softmax(z: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Softmax of ``z`` within each segment beginning at ``starts``."""
    counts = np.diff(np.r_[starts, len(z)])
    m = np.repeat(np.maximum.reduceat(z, starts), counts)
    e = np.exp(z - m)
    return np.asarray(e / np.repeat(np.add.reduceat(e, starts), counts))


def softmax_fit(x: np.ndarray, t: np.ndarray, starts: np.ndarray, theta: np.ndarray, *,
                l2: float = 1e-4, steps: int = 30) -> np.ndarray:
    """Minimise the cross-entropy of ``softmax(x @ theta)`` (per segment) to ``t``, plus
    ``l2 / 2 |theta - theta0|^2`` (per position), by damped Newton steps from ``theta``."""
    theta0 = np.array(theta, np.float64)
    theta = theta0.copy()
    n_pos = max(1, len(starts))
    counts = np.diff(np.r_[starts, len(t)])

    def loss(th: np.ndarray) -> float:
        z = x @ th
        m = np.maximum.reduceat(z, starts)
        lse = m + np.log(np.add.reduceat(np.exp(z - np.repeat(m, counts)), starts))
        return float((np.add.reduceat(t * z, starts) - lse).sum() * -1 / n_pos
                     + 0.5 * l2 * np.sum((th - theta0) ** 2))

    cur = loss(theta)
    for _ in range(steps):
        p = segment_softmax(x @ theta, starts)
        g = x.T @ (p - t) / n_pos + l2 * (theta - theta0)
        px = x * p[:, None]
        mean = np.add.reduceat(px, starts, axis=0)          # (positions, d)
        h = (x.T @ px - mean.T @ mean) / n_pos + l2 * np.eye(len(theta))
        step = np.linalg.solve(h, g)
        lr = 1.0
        while lr > 1e-4:
            new = theta - lr * step
            val = loss(new)
            if val <= cur:
                break
            lr *= 0.5
        else:
            break
        theta, improved = new, cur - val
        cur = val
        if improved < 1e-10:
            break
    return theta


def policy_report(x: np.ndarray, t: np.ndarray, starts: np.ndarray,
                  theta: np.ndarray) -> dict[str, float]:
    """Cross-entropy to the visit shares (nats per position) and the share of positions
    where the policy's first choice is the most visited move."""
    if not len(starts):
        return {"cross_entropy": float("nan"), "top1": float("nan")}
    z = x @ theta
    p = segment_softmax(z, starts)
    ce = -np.add.reduceat(t * np.log(np.maximum(p, 1e-12)), starts).mean()
    counts = np.diff(np.r_[starts, len(t)])
    seg = np.repeat(np.arange(len(starts)), counts)
    # first choice: the row of each segment with the largest logit (lowest index on ties)
    best = np.lexsort((np.arange(len(z)), -z, seg))[starts]
    top = np.lexsort((np.arange(len(t)), -t, seg))[starts]
    return {"cross_entropy": float(ce), "top1": float(np.mean(best == top))}


def _clip_gap(score: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Scores more than SCORE_GAP points below their position's best raised to that gap:
    a move the look-ahead rules out scores hundreds of points down, and the search never
    chooses it whatever the fit; unclipped, those rows alone would set the scale."""
    counts = np.diff(np.r_[starts, len(score)])
    top = np.repeat(np.maximum.reduceat(score, starts), counts)
    return np.asarray(np.maximum(score, top - SCORE_GAP))


def best_move_targets(target: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """One-hot targets: the most visited candidate of each position (the first on ties)."""
    counts = np.diff(np.r_[starts, len(target)])
    seg = np.repeat(np.arange(len(starts)), counts)
    top = np.lexsort((np.arange(len(target)), -target, seg))[starts]
    out = np.zeros(len(target))
    out[top] = 1.0
    return out


def fit_policy(rows: dict[str, Any], *, prior_temp: float = 1.0, l2: float = 1e-4,
               holdout: float = 0.1, seed: int = 0, target: str = "best",
               init: Optional[dict[str, Any]] = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fit the tree prior and the playout policy; returns (weights, report).

    ``weights`` holds ``prior_scale``, ``prior_w`` and ``playout_w`` (a weights file's
    policy arrays, ``search.evaluation``).  ``init``: a policy to start from and to
    shrink towards (default: the search's prior before training).  ``target``:
    ``"best"`` (the search's most visited candidate: at the root, visits spread over
    every move by exploration say little beyond it) or ``"visits"`` (the visit shares).
    The report measures both priors against the most visited move."""
    pos = np.asarray(rows["position"])
    t = np.asarray(rows["target"], np.float64)
    f = np.asarray(rows["features"], np.float64)
    if f.ndim != 2 or f.shape[1] != N_MOVE_FEATURES:
        raise ValueError(f"features must have {N_MOVE_FEATURES} columns")
    rng = np.random.default_rng(seed)
    rounds = np.unique(rows["round"])
    n_test = int(len(rounds) * holdout)
    test_rounds = rng.choice(rounds, size=n_test, replace=False) if n_test else rounds[:0]
    test = np.isin(rows["round"], test_rounds)
    starts = _starts(pos)
    if target == "best":
        t = best_move_targets(t, starts)
    elif target != "visits":
        raise ValueError("target must be 'best' or 'visits'")
    x_prior = np.c_[_clip_gap(np.asarray(rows["prior_score"], np.float64), starts) / prior_temp, f]
    x_play = np.c_[_clip_gap(np.asarray(rows["playout_score"], np.float64), starts), f]
    start_prior = np.r_[1.0, np.zeros(N_MOVE_FEATURES)]
    start_play = np.r_[0.5, np.zeros(N_MOVE_FEATURES)]
    if init is not None and init.get("prior_w") is not None:
        start_prior = np.r_[float(init["prior_scale"]), np.asarray(init["prior_w"], np.float64)]
    if init is not None and init.get("playout_w") is not None:
        start_play = np.r_[start_play[0], start_play[0] * np.asarray(init["playout_w"])]
    tr, te = ~test, test
    tr_starts, te_starts = _starts(pos[tr]), _starts(pos[te])
    theta = softmax_fit(x_prior[tr], t[tr], tr_starts, start_prior, l2=l2)
    phi = softmax_fit(x_play[tr], t[tr], tr_starts, start_play, l2=l2)
    b = max(float(phi[0]), MIN_PLAYOUT_SCALE)
    weights = {"prior_scale": max(float(theta[0]), 0.0), "prior_w": theta[1:],
               "playout_w": phi[1:] / b}
    base = np.r_[1.0, np.zeros(N_MOVE_FEATURES)]
    best = best_move_targets(t, starts)
    held = (x_prior[te], best[te], te_starts) if n_test else (x_prior[tr], best[tr], tr_starts)
    report = {"positions": int(len(_starts(pos))), "rows": int(len(pos)),
              "holdout_positions": int(len(te_starts)), "holdout_rounds": int(n_test),
              "prior_before": policy_report(*held, base),
              "prior_after": policy_report(*held, theta),
              "playout_scale": b}
    return weights, report

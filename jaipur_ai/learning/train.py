"""Fit the learned evaluation from self-play shards, with numpy only.

The win logit is ``lin . f + h(f) - h(-f)`` with ``h(f) = sum_j v_j relu(w_j . f + b_j)``
(H hidden units; H = 0 is logistic regression), fitted by minibatch Adam on the
cross-entropy to a target in [0, 1]: the round's result from the mover's side (1 win,
0.5 draw, 0 loss), or a TD(lambda) return that mixes it with the model's own values of
the later positions of the same round.  The margin head is a ridge regression on the
final margin.  Rounds, not positions, are held out, so that no round is in both sets.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> f = rng.normal(size=(2000, N_FEATURES)).astype(np.float32)
>>> y = (f[:, 0] + 0.3 * rng.normal(size=2000) > 0).astype(np.float32)
>>> data = {"features": f, "result": y, "margin": 10 * f[:, 0], "round": np.arange(2000)}
>>> w, rep = fit(data, hidden=0, epochs=5, seed=1)
>>> rep["holdout_logloss"] < rep["constant_logloss"]
True
"""
from __future__ import annotations

import glob
import math
import os
from typing import Any, Iterable, Optional, Union

import numpy as np
from numpy.typing import NDArray

from jaipur_ai.search._features import N_FEATURES_PY as N_FEATURES
from jaipur_ai.search._rawinputs import N_RAW_PY as N_RAW, raw_rows
from jaipur_ai.search.evaluation import (MAX_RAW_HIDDEN, PRIOR_LIN, RAW_ARRAYS, VALUE_ARRAYS,
                                         read_npz)
from jaipur_ai.errors import InvalidDataError, InvalidOptionError

__all__ = ["load_shards", "fit", "fit_calibration", "reliability",
           "td_targets", "metrics", "start_from", "N_FEATURES"]

#: The pull of the calibration map towards no change (``fit_calibration``).
CALIBRATION_RIDGE = 1e-4

#: What the win logit is fitted to (``fit``).
TARGETS = ("result", "td", "search", "lookahead")
#: The lookahead target's default share (the rest is the round's result).
LOOKAHEAD_MIX = 0.25

KEYS = ("features", "result", "margin", "round", "ply", "mover", "action", "value", "visits",
        "iterations", "child_action", "child_visits", "state", "player")


def load_shards(paths: Union[str, Iterable[str]]) -> dict[str, Any]:
    """Concatenate shards (``*.npz`` files, or folders holding them) into one dict.

    Round ids are made unique across the paths given: each self-play run numbers its
    rounds from 0, so the rounds of each path after the first are shifted past the
    largest id read so far (a shard's own ``round_offset`` is added too).  Where a
    shard has lookahead values (``lookahead/`` beside it: jaipur_ai.learning.lookahead)
    they are ``lookahead``, NaN for the shards without.  A path without shards, an unreadable shard or one whose features have another width than
    the first is an InvalidDataError naming it."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    groups: list[list[str]] = []
    for p in paths:
        p = str(p)
        files = sorted(glob.glob(os.path.join(p, "*.npz"))) if os.path.isdir(p) else [p]
        if not files or not os.path.isfile(files[0]):
            raise InvalidDataError(p, "no shards (*.npz files)" if os.path.isdir(p)
                                   else "no such file or folder")
        groups.append(files)
    parts: dict[str, Any] = {k: [] for k in KEYS}
    looked: list[np.ndarray] = []
    any_lookahead = False
    base = 0
    widths: dict[str, int] = {}
    for files in groups:
        top = base - 1
        for f in files:
            z = _read_shard(f)
            for k in KEYS:               # the rows of every 2-d array, as the first shard's
                if k in z and z[k].ndim == 2:
                    w = widths.setdefault(k, z[k].shape[1])
                    if z[k].shape[1] != w:
                        raise InvalidDataError(f, f"{k} of {z[k].shape[1]} columns, the "
                                                  f"shards before it have {w}")
            off = base + (int(z["round_offset"]) if "round_offset" in z else 0)
            for k in KEYS:
                if k in z:
                    a = z[k]
                    if k == "round":
                        a = a.astype(np.int64) + off
                        if len(a):
                            top = max(top, int(a.max()))
                    parts[k].append(a)
            la = _lookahead_of(f, len(z["result"]))
            any_lookahead |= la is not None
            looked.append(np.full(len(z["result"]), np.nan) if la is None else la)
        base = top + 1
    out = {k: np.concatenate(v) for k, v in parts.items() if v}
    if any_lookahead:
        out["lookahead"] = np.concatenate(looked)
    # an array some shards lack (shards of an older format) is left out, not misaligned
    return {k: v for k, v in out.items() if len(v) == len(out["result"])}


def _lookahead_of(shard: str, n: int) -> Optional[np.ndarray]:
    """The lookahead values of a shard's n rows, where it has them (else None); a file
    of another length is an InvalidDataError naming it."""
    path = os.path.join(os.path.dirname(shard), "lookahead", os.path.basename(shard))
    if not os.path.isfile(path):
        return None
    d = read_npz(path, InvalidDataError, MAX_SHARD_ARRAY_BYTES, what="lookahead file")
    v = d.get("value")
    if v is None or v.ndim != 1 or len(v) != n or v.dtype.kind != "f":
        raise InvalidDataError(path, f"expected one value (float) for each of the shard's "
                                     f"{n} rows")
    return np.asarray(v, np.float64)


#: The most bytes one array of a shard may take (a shard of 5,000 rounds, as ``learn``
#: writes, holds about 60 MB in all): checked against its header before it is read.
MAX_SHARD_ARRAY_BYTES = 1 << 32


def _read_shard(path: str) -> dict[str, Any]:
    """The arrays of one shard, checked for what training reads: each member's header
    before any array is made (``read_npz``), then every array of ``KEYS`` it has one row
    per position, of numbers (the round ids, and ``round_offset``, whole numbers)."""
    d = read_npz(path, InvalidDataError, MAX_SHARD_ARRAY_BYTES, what="shard")
    missing = [k for k in ("features", "result", "margin", "round") if k not in d]
    if missing:
        raise InvalidDataError(path, f"missing arrays: {', '.join(missing)}")
    for k in [k for k in KEYS if k in d] + (["round_offset"] if "round_offset" in d else []):
        kinds = "iu" if k in ("round", "round_offset") else "biuf"
        if d[k].dtype.kind not in kinds:
            raise InvalidDataError(path, f"{k} holds {d[k].dtype}, not "
                                         f"{'whole numbers' if kinds == 'iu' else 'numbers'}")
    if "round_offset" in d and d["round_offset"].shape != ():
        raise InvalidDataError(path, f"round_offset has shape {d['round_offset'].shape}, "
                                     "expected one number")
    if d["result"].ndim != 1 or d["features"].ndim != 2:
        raise InvalidDataError(path, "features (rows, columns), result, margin and round "
                                     "must have one row per position")
    n = len(d["result"])
    for k in KEYS:
        if k in d and (d[k].ndim not in (1, 2) or len(d[k]) != n):
            raise InvalidDataError(path, f"{k} has shape {d[k].shape}: features (rows, "
                                         "columns), result, margin, round and the others "
                                         f"must have one row per position ({n})")
    return d


def _sigmoid(z: NDArray[Any]) -> Any:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def _forward(p: dict[str, Any], f: np.ndarray, raw: Optional[np.ndarray] = None) -> Any:
    a = f @ p["hidden_w"].T                     # (n, H)
    up = np.maximum(a + p["hidden_b"], 0.0)
    um = np.maximum(p["hidden_b"] - a, 0.0)
    z = f @ p["lin"] + (up - um) @ p["out_w"]
    r1 = r2 = None
    if p.get("raw_w") is not None and len(p["raw_w"]):
        if raw is None:
            raise ValueError("weights with a raw-input network need the raw inputs")
        r1 = raw[:, 0] @ p["raw_w"].T + p["raw_b"]      # (n, R): the mover's side ...
        r2 = raw[:, 1] @ p["raw_w"].T + p["raw_b"]      # ... and the other player's
        z = z + (np.maximum(r1, 0.0) - np.maximum(r2, 0.0)) @ p["raw_out"]
    return z, a, up, um, r1, r2


def predict(weights: dict[str, Any], f: np.ndarray,
            raw: Optional[np.ndarray] = None) -> np.ndarray:
    """Win probabilities of feature rows (and, for weights with a raw-input network,
    their raw inputs: (n, 2, N_RAW) from the player's side and the other's, as
    ``_rawinputs.raw_rows`` gives them), as the compiled evaluation computes them."""
    r = None if raw is None else np.asarray(raw, np.float64)
    return np.asarray(_sigmoid(_forward(weights, np.asarray(f, np.float64), r)[0]))


def metrics(p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Log-loss and Brier score of probabilities p against targets y in [0, 1]."""
    q = np.clip(p, 1e-7, 1 - 1e-7)
    return {"logloss": float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q))),
            "brier": float(np.mean((p - y) ** 2))}


def td_targets(data: dict[str, Any], values: np.ndarray, lam: float) -> np.ndarray:
    """TD(lambda) returns: G_t = (1 - lam) v'_{t+1} + lam G_{t+1}, G at the last
    position of a round blending the result; v' is the next position's value seen
    from the mover at t (1 - v when the other player moves next)."""
    rid, mover, y = data["round"], data["mover"], data["result"].astype(np.float64)
    g = np.empty(len(y))
    n = len(y)
    for t in range(n - 1, -1, -1):
        if t == n - 1 or rid[t + 1] != rid[t]:
            g[t] = y[t]
        else:
            nxt = values[t + 1] if mover[t + 1] == mover[t] else 1.0 - values[t + 1]
            gn = g[t + 1] if mover[t + 1] == mover[t] else 1.0 - g[t + 1]
            g[t] = (1.0 - lam) * nxt + lam * gn
    return g


def fit(data: dict[str, Any], *, hidden: int = 0, epochs: int = 10, batch: int = 2048, lr: float = 3e-3,
        l2: float = 1e-5, seed: int = 0, holdout: float = 0.1, target: str = "result",
        lam: float = 0.8, init: Optional[dict[str, Any]] = None, raw_hidden: int = 0,
        mix: float = LOOKAHEAD_MIX) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fit the evaluation; returns (weights, report).

    ``target``: ``"result"`` (the round's result), ``"td"`` (TD(lambda) returns of
    a first fit on the result, refitted), ``"search"`` (as ``"td"``, averaged with
    the search's win estimate of the move played where a search chose it: expert
    iteration's search-improved value) or ``"lookahead"`` (``mix`` times the
    position's lookahead value, ``data["lookahead"]`` from
    :mod:`jaipur_ai.learning.lookahead`, plus the rest times the result; the result
    alone where a position has none).  ``raw_hidden`` > 0 fits a raw-input network of
    that many units beside the features (its inputs read from ``data["state"]``),
    unless ``init`` has one.  The report has held-out log-loss and Brier of the model
    and of a constant prediction against the results, and the margin head's RMSE."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}")
    rng = np.random.default_rng(seed)
    f = np.asarray(data["features"], np.float64)
    y = np.asarray(data["result"], np.float64)
    rounds = np.unique(data["round"])
    test_rounds = rng.choice(rounds, size=max(1, int(len(rounds) * holdout)), replace=False)
    test = np.isin(data["round"], test_rounds)
    train = ~test
    params = (_init_params(hidden, f.shape[1], rng) if init is None
              else {k: np.array(v, np.float64) for k, v in init.items()})
    if raw_hidden > 0 and params.get("raw_w") is None:
        params.update(_init_raw(raw_hidden, rng))
    raw = _raw_of(data) if params.get("raw_w") is not None else None
    first = y
    if target == "lookahead":
        first = lookahead_targets(data, mix)
    params = _adam(params, f[train], first[train], epochs, batch, lr, l2, rng,
                   None if raw is None else raw[train])
    if target in ("td", "search"):
        v = predict(params, f, raw)
        g = td_targets(data, v, lam)
        if target == "search":
            # expert iteration: the search's own estimate of the position, where it ran,
            # weighs as much as the TD return
            sv = np.asarray(data.get("value", np.full(len(g), np.nan)), np.float64)
            ok = np.isfinite(sv)
            g[ok] = 0.5 * g[ok] + 0.5 * sv[ok]
        params = _adam(params, f[train], g[train], max(1, epochs // 2), batch, lr, l2, rng,
                       None if raw is None else raw[train])
    # margin head: ridge regression (no intercept: the features are antisymmetric)
    m = np.asarray(data["margin"], np.float64)
    A = f[train]
    params["margin"] = np.asarray(np.linalg.solve(A.T @ A + 1e-3 * len(A) * np.eye(f.shape[1]),
                                                  A.T @ m[train]), np.float64)
    pt = predict(params, f[test], None if raw is None else raw[test])
    rep = {f"holdout_{k}": v for k, v in metrics(pt, y[test]).items()}
    const = metrics(np.full(test.sum(), y[train].mean()), y[test])
    rep.update({f"constant_{k}": v for k, v in const.items()})
    rep["margin_rmse"] = float(np.sqrt(np.mean((f[test] @ params["margin"] - m[test]) ** 2)))
    rep.update({"positions": int(len(y)), "rounds": int(len(rounds)),
                "holdout_rounds": int(len(test_rounds)), "hidden": hidden, "target": target})
    return params, rep


def lookahead_targets(data: dict[str, Any], mix: float) -> np.ndarray:
    """``mix`` times each position's lookahead value plus ``1 - mix`` times the round's
    result; the result alone where a position has no lookahead value (NaN, or shards
    without them)."""
    if not 0.0 <= mix <= 1.0:
        raise InvalidOptionError("lookahead_mix", f"expected a share from 0 to 1, got {mix!r}")
    y = np.asarray(data["result"], np.float64)
    if "lookahead" not in data:
        raise InvalidDataError("lookahead", "the shards have no lookahead values: run "
                                            "'jaipur-ai lookahead FOLDER' first")
    la = np.asarray(data["lookahead"], np.float64)
    ok = np.isfinite(la)
    out = y.copy()
    out[ok] = mix * la[ok] + (1.0 - mix) * y[ok]
    return out


def _raw_of(data: dict[str, Any]) -> np.ndarray:
    """The raw inputs of the shards' positions (n, 2, N_RAW), from their stored states."""
    st = data.get("state")
    if st is None or not np.asarray(st).any():
        raise InvalidDataError("state", "a raw-input network is fitted on the shards' "
                                        "stored states; these shards have none (searched "
                                        "self-play stores them, the policy engine does not)")
    return np.asarray(raw_rows(np.asarray(st, np.uint8)), np.float32)


def _init_raw(units: int, rng: np.random.Generator) -> dict[str, Any]:
    """A fresh raw-input network whose output weights are 0 (the fit begins at the
    features' own values)."""
    if not 0 < units <= MAX_RAW_HIDDEN:
        raise InvalidOptionError("raw_hidden", f"expected 1 to {MAX_RAW_HIDDEN} units, "
                                               f"got {units}")
    return {"raw_w": rng.normal(0.0, math.sqrt(2.0 / N_RAW), (units, N_RAW)),
            "raw_b": np.zeros(units), "raw_out": np.zeros(units)}


def start_from(start: dict[str, Any], hidden: int,
               seed: int, raw_hidden: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    """A fit that starts from a weights file's arrays (``read_weights``): returns (init,
    kept).  ``init``: the fit's first parameters, the start's value; where the start has
    no hidden layer of ``hidden`` units, a fresh one whose output weights are small
    (the fit begins at the start's own values) beside the start's linear weights.
    ``kept``: what the result carries over unfitted: the move policy and the
    calibration map, and the value the tree's priors read (``prior_lin``): the start's
    linear value where a hidden layer is added to it, for the policy was fitted to the
    priors of that value.  A start's raw-input network is fitted on (``raw_hidden``
    then says nothing); ``raw_hidden`` > 0 adds one to a start that has none.

    >>> w = {"lin": np.ones(3), "margin": np.zeros(3), "hidden_w": np.zeros((0, 3)),
    ...      "hidden_b": np.zeros(0), "out_w": np.zeros(0), "calibration": np.array([1.1, -0.4])}
    >>> init, kept = start_from(w, 4, seed=0)
    >>> init["hidden_w"].shape, init["lin"].tolist(), sorted(kept)
    ((4, 3), [1.0, 1.0, 1.0], ['calibration', 'prior_lin'])
    """
    n = len(start["lin"])
    had = int(np.asarray(start["hidden_w"]).shape[0])
    if had == hidden:
        init = {k: np.array(start[k], np.float64) for k in VALUE_ARRAYS}
    else:
        init = _init_params(hidden, n, np.random.default_rng(seed))
        init["out_w"] *= 0.1
        init["lin"] = np.array(start["lin"], np.float64)
        init["margin"] = np.array(start["margin"], np.float64)
    has_raw = start.get("raw_w") is not None
    if has_raw:
        init.update({k: np.array(start[k], np.float64) for k in RAW_ARRAYS})
    elif raw_hidden > 0:
        init.update(_init_raw(raw_hidden, np.random.default_rng(seed)))
    kept = {k: v for k, v in start.items()
            if k not in VALUE_ARRAYS + RAW_ARRAYS and v is not None}
    if (hidden > 0 or (raw_hidden > 0 and not has_raw)) and had == 0:
        # (a start's own prior_lin, if any, stays)
        kept.setdefault(PRIOR_LIN, np.array(start["lin"], np.float64))
    return init, kept


def _init_params(hidden: int, n_features: int, rng: np.random.Generator) -> dict[str, Any]:
    return {"lin": np.zeros(n_features), "margin": np.zeros(n_features),
            "hidden_w": rng.normal(0, 0.3, (hidden, n_features)),
            "hidden_b": np.full(hidden, 0.1), "out_w": rng.normal(0, 0.1, hidden)}


def _adam(p: dict[str, Any], f: np.ndarray, y: np.ndarray, epochs: int, batch: int, lr: float,
          l2: float, rng: np.random.Generator, raw: Optional[np.ndarray] = None) -> dict[str, Any]:
    keys: tuple[str, ...] = ("lin", "hidden_w", "hidden_b", "out_w")
    if p.get("raw_w") is not None:
        keys += RAW_ARRAYS
    m = {k: np.zeros_like(p[k]) for k in keys}
    v = {k: np.zeros_like(p[k]) for k in keys}
    b1, b2, t = 0.9, 0.999, 0
    n = len(y)
    for ep in range(epochs):
        order = rng.permutation(n)
        step = lr * (0.5 * (1 + np.cos(np.pi * ep / max(1, epochs))))   # cosine decay
        for s in range(0, n, batch):
            idx = order[s:s + batch]
            fb, yb = f[idx], y[idx]
            rb = None if raw is None else raw[idx].astype(np.float64)
            z, a, up, um, r1, r2 = _forward(p, fb, rb)
            d = (_sigmoid(z) - yb) / len(idx)           # dL/dz
            g = {"lin": fb.T @ d + l2 * p["lin"],
                 "out_w": (up - um).T @ d + l2 * p["out_w"]}
            if p["hidden_w"].shape[0]:
                sp = (a + p["hidden_b"] > 0).astype(np.float64)
                sm = (p["hidden_b"] - a > 0).astype(np.float64)
                dv = d[:, None] * p["out_w"][None, :]
                g["hidden_b"] = ((sp - sm) * dv).sum(0)
                g["hidden_w"] = ((sp + sm) * dv).T @ fb + l2 * p["hidden_w"]
            else:
                g["hidden_b"] = np.zeros(0)
                g["hidden_w"] = np.zeros((0, fb.shape[1]))
            if r1 is not None and rb is not None and r2 is not None:
                # g(x1) - g(x2): the two sides' units get opposite gradients
                d1 = d[:, None] * p["raw_out"][None, :] * (r1 > 0)
                d2 = -d[:, None] * p["raw_out"][None, :] * (r2 > 0)
                g["raw_out"] = (np.maximum(r1, 0.0) - np.maximum(r2, 0.0)).T @ d \
                    + l2 * p["raw_out"]
                g["raw_w"] = d1.T @ rb[:, 0] + d2.T @ rb[:, 1] + l2 * p["raw_w"]
                g["raw_b"] = d1.sum(0) + d2.sum(0)
            t += 1
            for k in keys:
                m[k] = b1 * m[k] + (1 - b1) * g[k]
                v[k] = b2 * v[k] + (1 - b2) * g[k] ** 2
                p[k] = p[k] - step * (m[k] / (1 - b1 ** t)) / (np.sqrt(v[k] / (1 - b2 ** t)) + 1e-8)
    return p


def fit_calibration(values: np.ndarray, results: np.ndarray,
                    iterations: Optional[np.ndarray] = None) -> tuple[float, ...]:
    """The map from the search's win estimate of the move it played to the reported win
    probability (``search.evaluation.calibrated``), by logistic regression on the
    logit (Newton's method): ``(a, b)`` such that ``sigmoid(a logit(value) + b)`` best
    predicts the result; with ``iterations`` (the search's size at each position) of
    more than one budget, ``(a, b, c, d)``, slope and offset moving with
    ``x = ln(iterations / 1000)``.

    >>> v = np.array([0.9, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1, 0.1])
    >>> y = np.array([1, 1, 1, 0, 0, 0, 0, 1.0])
    >>> a, b = fit_calibration(v, y)
    >>> round(float(1 / (1 + np.exp(-(a * np.log(9) + b)))), 3)
    0.75
    """
    ok = np.isfinite(values)
    p = np.clip(np.asarray(values, np.float64)[ok], 1e-4, 1 - 1e-4)
    y = np.asarray(results, np.float64)[ok]
    lg = np.log(p / (1 - p))
    cols = [lg, np.ones_like(lg)]
    budgets = None if iterations is None else np.asarray(iterations, np.float64)[ok]
    if budgets is not None and len(np.unique(budgets)) > 1:
        x = np.log(np.maximum(budgets, 1.0) / 1000.0)
        cols += [lg * x, x]
    X = np.stack(cols, 1)
    w0 = np.zeros(X.shape[1])
    w0[0] = 1.0
    w = w0.copy()
    # a small pull towards the identity map keeps the fit finite when few positions
    # separate perfectly (a few rounds); on thousands of positions it moves nothing
    ridge = CALIBRATION_RIDGE
    for _ in range(50):
        q = _sigmoid(X @ w)
        g = X.T @ (q - y) / len(y) + ridge * (w - w0)
        h = (X * (q * (1 - q))[:, None]).T @ X / len(y) + ridge * np.eye(len(w))
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return tuple(float(v) for v in w)


def reliability(p: np.ndarray, y: np.ndarray, bins: int = 10) -> dict[str, Any]:
    """Per-bin mean prediction, observed rate and count, and the expected calibration
    error (``ece``, in probability units: the bins' gaps weighted by their positions).

    >>> r = reliability(np.array([0.1, 0.1, 0.9, 0.9]), np.array([0, 0, 1, 0.0]))
    >>> round(r["ece"], 3), [b["positions"] for b in r["bins"]]
    (0.25, [2, 2])
    """
    edges = np.linspace(0, 1, bins + 1)
    idx = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
    rows = []
    ece = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            rows.append({"bin": b, "mean_predicted": float(p[m].mean()),
                         "observed": float(y[m].mean()), "positions": int(m.sum())})
            ece += m.sum() / len(p) * abs(p[m].mean() - y[m].mean())
    return {"ece": float(ece), "positions": int(len(p)), "bins": rows}

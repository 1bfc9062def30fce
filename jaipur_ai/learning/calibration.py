"""The reported win probability's map: ``jaipur-ai calibrate WEIGHTS FOLDER``.

The search's value of the move it plays is the largest of several noisy estimates, so it
is optimistic; ``calibrate`` plays self-play rounds of the default engine with the
weights, fits the map from the search's raw estimate to the round's result
(``train.fit_calibration``) and writes it into the weights file
(docs/search.md, "Calibration of the reported win probability").  ``learn`` and
``improve`` end with it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from jaipur_ai.learning._report import say
from jaipur_ai.errors import InvalidDataError
from jaipur_ai.learning.selfplay import selfplay
from jaipur_ai.learning.train import fit_calibration, load_shards, reliability
from jaipur_ai.matches.backends import Backend
from jaipur_ai.search.evaluation import calibrated, fingerprint, with_calibration

__all__ = ["calibrate", "CALIBRATION_ROUNDS", "CALIBRATION_ITERATIONS"]


#: The shipped recipe's calibration: self-play rounds, at these iterations a move.
CALIBRATION_ROUNDS = 1000
CALIBRATION_ITERATIONS = 1000


def calibrate(weights: Union[str, Path], folder: Union[str, Path], *,
              rounds: int = CALIBRATION_ROUNDS,
              iterations: Union[int, Sequence[int]] = CALIBRATION_ITERATIONS,
              seed: int = 0,
              out: Union[str, Path, None] = None, workers: Optional[int] = None,
              backend: Union[str, Backend] = "local", address: Optional[str] = None,
              quiet: bool = True) -> dict[str, Any]:
    """Fit the map from the search's win estimate of the move it plays to the reported
    win probability (``train.fit_calibration``), on ``rounds`` self-play rounds of the
    default engine with these weights, and write it into ``out`` (default: the weights
    file itself).  Returns the fit's record: the map, the data, the in-sample
    calibration error before and after.

    The self-play uses a copy of the weights with no map
    (``FOLDER/uncalibrated-<fingerprint>.npz``), so it records the search's raw estimates whatever map the file held, and the result
    depends only on the weights, the rounds, the iterations and the seed.  Finished
    shards are kept: rerun to resume.  ``iterations`` may name several budgets: the
    rounds are played at each, and the map then moves with the search's size
    (``(a, b, c, d)``, ``search.evaluation.calibrated``)."""
    src = Path(weights)
    # (reads and checks the file: a bad one fails here, naming it, before any work)
    weights_id = fingerprint(src)
    dst = src if out is None else Path(out)
    if not dst.parent.is_dir():
        raise InvalidDataError(str(dst), "its folder does not exist")
    root = Path(folder)
    if root.exists() and not root.is_dir():
        raise InvalidDataError(str(root), "not a folder")
    root.mkdir(parents=True, exist_ok=True)
    # the copy without a map is named by the weights it holds, so a folder played with
    # other weights is refused by selfplay's settings check instead of being reused
    raw = root / f"uncalibrated-{weights_id}.npz"
    with_calibration(src, (1.0, 0.0), raw, {"calibration": [1.0, 0.0],
                                            "calibration_data": None})
    budgets = [int(iterations)] if isinstance(iterations, int) else [int(n) for n in iterations]
    if not budgets or min(budgets) < 1 or len(set(budgets)) != len(budgets):
        raise InvalidDataError("iterations", f"expected distinct budgets of at least 1, "
                                             f"got {budgets}")
    if backend == "local" and workers is None:
        workers = 2
    parts = []
    for n in budgets:
        # one budget keeps the folder name of the builds before budgets were several
        sub = root / ("selfplay" if len(budgets) == 1 else f"selfplay-{n}")
        engine = f"ismcts:iterations={n},weights={raw.resolve()}"
        selfplay(str(sub), rounds, engine, seed=seed, shard_rounds=10,
                 workers=workers, backend=backend, address=address, progress=not quiet)
        d = load_shards(str(sub))
        asked = d["round"] < rounds          # (a folder may hold more, from an earlier run)
        have = len(np.unique(d["round"][asked]))
        if have != rounds:
            raise InvalidDataError(str(sub), f"holds {have} of the {rounds} rounds asked for "
                                   "(a shorter last shard of an earlier run); use another "
                                   "folder")
        parts.append((n, d["value"][asked].astype(np.float64),
                      d["result"][asked].astype(np.float64),
                      d["iterations"][asked].astype(np.float64)))
    v = np.concatenate([p[1] for p in parts])
    y = np.concatenate([p[2] for p in parts])
    its = np.concatenate([p[3] for p in parts])
    # the fit reads what the map will apply to: exact round-ending results (0 or 1, the
    # moves judged in every sampled world) are reported unmapped
    searched = np.isfinite(v) & (v > 0.0) & (v < 1.0)
    cal = fit_calibration(v[searched], y[searched],
                          its[searched] if len(budgets) > 1 else None)
    slopes = [cal[0] + (cal[2] * np.log(n / 1000.0) if len(cal) == 4 else 0.0)
              for n in budgets]
    if not (all(np.isfinite(cal)) and cal[0] > 0 and min(slopes) > 0):
        raise InvalidDataError(str(root), f"the fitted map {cal} is not usable; play more "
                                          "rounds")
    ok = np.isfinite(v)
    mapped = np.array([calibrated(x, cal, n) if s else x
                       for x, s, n in zip(v, searched, its)])
    by_budget = {}
    for n in budgets:
        m = ok & (np.concatenate([np.full(len(p[1]), p[0]) for p in parts]) == n)
        by_budget[str(n)] = {"positions": int(m.sum()),
                             "ece_raw": reliability(v[m], y[m])["ece"],
                             "ece_in_sample": reliability(mapped[m], y[m])["ece"]}
    data: dict[str, Any] = {"command": "jaipur-ai calibrate", "engine": "ismcts",
                            "iterations": budgets[0] if len(budgets) == 1 else budgets,
                            "rounds": int(rounds),
                            "seed": int(seed), "positions": int(ok.sum()),
                            "positions_fitted": int(searched.sum()),
                            "ece_raw": reliability(v[ok], y[ok])["ece"],
                            "ece_in_sample": reliability(mapped[ok], y[ok])["ece"],
                            "by_budget": by_budget}
    record = {"calibration": list(cal), "calibration_data": data}
    with_calibration(src, cal, dst, record)
    say(f"calibration map {' '.join(f'{n}={x:.4f}' for n, x in zip('abcd', cal))} on "
         f"{int(searched.sum()):,} positions: in-sample calibration error "
         f"{100 * data['ece_raw']:.1f} -> {100 * data['ece_in_sample']:.1f} points", quiet)
    return record

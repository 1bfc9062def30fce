"""The reported win probability's maps: ``jaipur-ai calibrate WEIGHTS FOLDER``.

The search's value of the move it plays is the largest of several noisy estimates, so it
is optimistic; ``calibrate`` plays self-play rounds of the default engine with the
weights, fits the map from the search's raw estimate to the round's result
(``train.fit_calibration``) and writes it into the weights file
(docs/search.md, "Calibration of the reported win probability").  ``learn`` and
``improve`` end with it.

Two maps are fitted.  In self-play each move's search reads the round's moves before
it (the belief), as at the table: from the second move on, those values fit
``calibration_moves``.  The same positions are then analysed again cold, as a position
pasted in without its history is (:func:`cold_values`), and those values fit
``calibration``.  A search of the position alone is more optimistic than one that has
watched the opponent play, so one map cannot serve both.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from jaipur_ai.learning._report import say
from jaipur_ai.errors import InvalidDataError
from jaipur_ai.learning._selfplay import state_of_bytes
from jaipur_ai.learning.selfplay import CHILDREN, selfplay
from jaipur_ai.learning.train import fit_calibration, load_shards, reliability
from jaipur_ai.matches.backends import Backend
from jaipur_ai.matches.spec import EngineSpec, derive_seed
from jaipur_ai.rules.position import GameState
from jaipur_ai.search.evaluation import calibrated, fingerprint, with_calibration

__all__ = ["calibrate", "cold_values", "moves_read", "CALIBRATION_ROUNDS",
           "CALIBRATION_ITERATIONS"]


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
    """Fit the maps from the search's win estimate of the move it plays to the reported
    win probability (``train.fit_calibration``), on ``rounds`` self-play rounds of the
    default engine with these weights, and write them into ``out`` (default: the
    weights file itself): ``calibration_moves`` on the self-play's values once the
    belief has read a move, ``calibration`` on the same positions analysed cold
    (:func:`cold_values`, on ``workers`` local processes).  Returns the fit's record:
    the maps, the data, the in-sample calibration error before and after (the cold
    map's; the other's under ``moves``).

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
        # the same positions analysed cold (locally, whatever the self-play's backend)
        rows = np.flatnonzero(asked & np.isfinite(d["value"]))
        cold = np.full(len(d["value"]), np.nan)
        cold[rows], _ = cold_values(sub, engine, d, rows, seed, workers or 2, quiet)
        parts.append({"budget": n, "value": d["value"][asked].astype(np.float64),
                      "cold": cold[asked], "moves": moves_read(d)[asked],
                      "result": d["result"][asked].astype(np.float64),
                      "iterations": d["iterations"][asked].astype(np.float64)})
    joined = {k: np.concatenate([p[k] for p in parts]) for k in parts[0] if k != "budget"}
    budget_of = np.concatenate([np.full(len(p["value"]), p["budget"]) for p in parts])
    y, its = joined["result"], joined["iterations"]
    # with moves: the self-play's own values after the round's first move; cold: the
    # cold analyses of every position
    fits = {"calibration": joined["cold"],
            "calibration_moves": np.where(joined["moves"], joined["value"], np.nan)}
    maps, data = {}, {}
    for name, v in fits.items():
        maps[name], data[name] = _fit_map(v, y, its, budget_of, budgets, root)
    record = {"calibration": list(maps["calibration"]),
              "calibration_moves": list(maps["calibration_moves"]),
              "calibration_data": {"command": "jaipur-ai calibrate", "engine": "ismcts",
                                   "iterations": budgets[0] if len(budgets) == 1 else budgets,
                                   "rounds": int(rounds), "seed": int(seed),
                                   **data["calibration"],
                                   "moves": data["calibration_moves"]}}
    with_calibration(src, maps["calibration"], dst, record, maps["calibration_moves"])
    for name, label in (("calibration", "cold"), ("calibration_moves", "with the moves")):
        c = data[name]
        say(f"calibration map {label}: "
            f"{' '.join(f'{k}={x:.4f}' for k, x in zip('abcd', maps[name]))} on "
            f"{c['positions_fitted']:,} positions: in-sample calibration error "
            f"{100 * c['ece_raw']:.1f} -> {100 * c['ece_in_sample']:.1f} points", quiet)
    return record


def _fit_map(v: np.ndarray, y: np.ndarray, its: np.ndarray, budget_of: np.ndarray,
             budgets: list[int], root: Path) -> tuple[tuple[float, ...], dict[str, Any]]:
    """One map fitted on values ``v`` (NaN: not used) and its record: the positions, and
    the calibration error raw and mapped (in sample), overall and by budget."""
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
        m = ok & (budget_of == n)
        by_budget[str(n)] = {"positions": int(m.sum()),
                             "ece_raw": reliability(v[m], y[m])["ece"],
                             "ece_in_sample": reliability(mapped[m], y[m])["ece"]}
    return cal, {"positions": int(ok.sum()), "positions_fitted": int(searched.sum()),
                 "ece_raw": reliability(v[ok], y[ok])["ece"],
                 "ece_in_sample": reliability(mapped[ok], y[ok])["ece"],
                 "by_budget": by_budget}


def moves_read(d: dict[str, Any]) -> np.ndarray:
    """Which self-play positions were searched with a belief that had read a move of the
    opponent (every move but a round's first: self-play shows the belief the round's
    moves, and the second mover has seen the first)."""
    return np.asarray(d["ply"]) >= 1


def _cold_chunk(job: tuple[str, list[bytes], list[int], list[int], list[int]]) -> tuple[np.ndarray, int]:
    """Cold analyses of a chunk of positions: their values (NaN: none) and how many took
    the analysis's best because the move played was not among its candidates."""
    engine, states, movers, actions, seeds = job
    spec = EngineSpec.parse(engine)
    lim = spec.fixed_limits("calibration")
    eng = spec.make_engine()
    out = np.full(len(states), np.nan)
    fallback = 0
    for i, st in enumerate(states):
        view = GameState(state_of_bytes(st)).view(movers[i])
        a = eng.analyse(view, time=lim["time"], iterations=lim["iterations"],
                        seed=seeds[i], top=CHILDREN)
        got = [c.win_probability for c in a.candidates if c.move.action_id == actions[i]]
        if not got and a.candidates:
            got, fallback = [a.candidates[0].win_probability], fallback + 1
        if got and got[0] is not None:
            out[i] = got[0]
    return out, fallback


def cold_values(folder: Union[str, Path], engine: str, d: dict[str, Any], rows: np.ndarray,
                seed: int, workers: int = 2, quiet: bool = True,
                chunk: int = 50) -> tuple[np.ndarray, int]:
    """The value ``engine`` gives the move played at each of the self-play positions
    ``rows`` of ``d`` (``load_shards`` of ``folder``) when it analyses the position
    cold, without the round's moves (NaN where it gives none), and how many of them
    are its best move's because the move played was not among its candidates.  Each
    analysis has its own seed (``seed``, the round and the ply), so the values do not
    depend on ``workers``.  They are kept in ``FOLDER/cold/`` and a rerun resumes."""
    rows = np.asarray(rows, np.int64)
    key = hashlib.sha256(json.dumps([engine, int(seed), rows.tolist()]).encode()).hexdigest()
    path = Path(folder) / "cold" / f"{key[:12]}.npz"   # (beside the shards, not among them)
    path.parent.mkdir(parents=True, exist_ok=True)
    values, done, fallback = np.full(len(rows), np.nan), np.zeros(len(rows), bool), 0
    if path.exists():
        with np.load(path) as z:
            values, done, fallback = z["value"].copy(), z["done"].copy(), int(z["fallback"])
    starts = [k for k in range(0, len(rows), chunk) if not done[k:k + chunk].all()]
    jobs = [(engine, [d["state"][r].tobytes() for r in rows[k:k + chunk]],
             [int(d["mover"][r]) for r in rows[k:k + chunk]],
             [int(d["action"][r]) for r in rows[k:k + chunk]],
             [derive_seed(seed, 4, int(d["round"][r]), int(d["ply"][r]))
              for r in rows[k:k + chunk]]) for k in starts]
    if not jobs:
        return values, fallback
    pool = multiprocessing.get_context("spawn").Pool(workers) if workers > 1 else None
    try:
        results = pool.imap(_cold_chunk, jobs) if pool is not None else map(_cold_chunk, jobs)
        for k, (v, fb) in zip(starts, results):
            values[k:k + len(v)], done[k:k + len(v)] = v, True
            fallback += fb
            tmp = path.with_name(path.name + ".tmp.npz")
            np.savez(tmp, value=values, done=done, fallback=fallback)
            tmp.replace(path)
            say(f"{engine}: {int(done.sum()):,} of {len(rows):,} positions analysed cold",
                quiet)
    finally:
        if pool is not None:
            pool.close()
    return values, fallback

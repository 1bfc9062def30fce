"""Calibration of the win probability that ``analyse`` reports, at one budget or several.

Plays seeded self-play rounds with the default engine (each move searched from the
mover's view only), records at every position the win probability of the move played,
as ``analyse`` reported it, and the round's result; then reports the expected
calibration error (10 equal-width bins, weighted by positions) with a 95 % interval
(bootstrap over rounds: the positions of one round share its result, so the rounds, not
the positions, are the sample), and draws the reliability diagram, one line per budget
(matplotlib, an optional extra: ``pip install "jaipur-ai[plot]"``).

    PYTHONPATH=. python3 bench/bench_calibration.py [--rounds 100 ...] [--iterations 1000]
        [--engine SPEC ...] [--folder F ...] [--map WEIGHTS] [--workers 2] [--cold]
        [--out R.json] [--plot docs/img/calibration.png]

Each folder records the maps its values were reported under (``reported-map.json``:
``calibration`` for a search of the position alone, as a round's first move is, and
``calibration_moves`` for one whose belief had read the round's moves, every move after
it), so that a folder played before the maps changed is scored under today's maps
(``--map``: the shipped weights unless it names another weights file) without playing it
again: each value is taken back to the search's raw estimate and mapped anew, at the
iterations the search ran.  Exact round-ending results (0 or 1) are never mapped.

The self-play goes to ``bench/results/calibration-<fingerprint of the shipped weights>-
<hash of the engine's resolved options and the shipped maps>`` unless ``--folder`` says
otherwise, so that a rerun after the weights, their map or the Engine's defaults change
plays anew (the folder's settings name the engine spec, not what stands behind it).

With ``--cold``, every searched position of the self-play is analysed again by the same
engine without the round's moves (a position given cold, as a user pastes one in: the
belief deals the opponent's unknown goods uniformly), and the value of the move played
in that analysis (its best when the move played is not among its candidates) is scored
against the same result.  The cold values are kept in the folder (``cold/<hash>.npz``,
resumed when stopped; jaipur_ai.learning.calibration.cold_values, which ``jaipur-ai
calibrate`` fits the cold map on).  Each budget's slope and offset are those of a logistic
regression of the result on the logit of the reported value (1 and 0 for a calibrated
one), with 95 % intervals over rounds; beside them, the same regression on the raw
values (the map they need: what the shipped maps should be).
"""
from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

from jaipur_ai.learning.calibration import cold_values, moves_read
from jaipur_ai.learning.selfplay import selfplay
from jaipur_ai.learning.train import fit_calibration, load_shards, reliability
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.search.evaluation import (DEFAULT_WEIGHTS, calibrated, fingerprint,
                                         load_evaluation, uncalibrated)

MAP_FILE = "reported-map.json"


def weights_maps(path) -> dict[str, list[float]]:
    """The calibration maps a weights file holds (read and checked by the package): for
    a search of the position alone and for one that read the round's moves."""
    ev = load_evaluation(path)
    return {"calibration": [float(x) for x in ev.calibration],
            "calibration_moves": [float(x) for x in ev.calibration_moves]}


def rescored(value: np.ndarray, iterations: np.ndarray, played: list[float],
             scoring: list[float]) -> np.ndarray:
    """``value`` reported under the map ``played``, as the map ``scoring`` reports it."""
    out = value.astype(np.float64).copy()
    if played == scoring:
        return out
    searched = np.isfinite(out) & (out > 0.0) & (out < 1.0)
    for i in np.flatnonzero(searched):
        out[i] = calibrated(uncalibrated(out[i], played, iterations[i]), scoring, iterations[i])
    return out


def rescored_by_kind(value: np.ndarray, iterations: np.ndarray, moves: np.ndarray,
                     played: dict, scoring: dict) -> np.ndarray:
    """Values each reported under the map of its kind (``moves``: the search had read
    the round's moves), as the scoring maps of the same kinds report them."""
    out = rescored(value, iterations, played["calibration"], scoring["calibration"])
    m = np.asarray(moves, bool)
    out[m] = rescored(value[m], iterations[m], played["calibration_moves"],
                      scoring["calibration_moves"])
    return out


def _by_round(rounds: np.ndarray) -> list[np.ndarray]:
    ids, inverse = np.unique(rounds, return_inverse=True)
    return [np.flatnonzero(inverse == k) for k in range(len(ids))]


def ece_interval(p: np.ndarray, y: np.ndarray, rounds: np.ndarray, samples: int = 1000,
                 seed: int = 0) -> tuple[float, float]:
    """95 % interval of the calibration error, resampling whole rounds."""
    rng = np.random.default_rng(seed)
    members = _by_round(rounds)
    eces = []
    for _ in range(samples):
        pick = np.concatenate([members[k] for k in rng.integers(0, len(members), len(members))])
        eces.append(reliability(p[pick], y[pick])["ece"])
    lo, hi = np.percentile(eces, [2.5, 97.5])
    return float(lo), float(hi)


def slope(p: np.ndarray, y: np.ndarray, rounds: np.ndarray, samples: int = 300,
          seed: int = 0) -> dict:
    """Slope and offset of the result regressed on logit(p), over the positions whose
    value is an estimate (not an exact 0 or 1), with 95 % intervals resampling rounds."""
    est = (p > 0.0) & (p < 1.0)
    p, y, rounds = p[est], y[est], rounds[est]
    a, b = fit_calibration(p, y)
    rng = np.random.default_rng(seed)
    members = _by_round(rounds)
    fits = []
    for _ in range(samples):
        pick = np.concatenate([members[k] for k in rng.integers(0, len(members), len(members))])
        fits.append(fit_calibration(p[pick], y[pick]))
    f = np.array(fits)
    return {"slope": a, "slope_95": [float(x) for x in np.percentile(f[:, 0], [2.5, 97.5])],
            "offset": b, "offset_95": [float(x) for x in np.percentile(f[:, 1], [2.5, 97.5])],
            "estimates": int(est.sum())}


def _map_only(fit: dict) -> dict:
    """A :func:`slope` result without its count: the map the values would need."""
    return {k: v for k, v in fit.items() if k != "estimates"}


def default_folder(engine: str) -> str:
    # the values recorded are mapped by the shipped maps, so they name the folder too
    options = json.dumps([EngineSpec.parse(engine).make_engine().options(),
                          weights_maps(DEFAULT_WEIGHTS)], sort_keys=True)
    return (f"bench/results/calibration-{fingerprint(DEFAULT_WEIGHTS)}-"
            f"{hashlib.sha256(options.encode()).hexdigest()[:8]}")


def measure(engine: str, folder: str, rounds: int, seed: int, workers: int,
            scoring: dict, cold: bool = False) -> dict:
    """Play (or resume) the folder's self-play and score it under the maps ``scoring``
    (and its cold analyses with ``cold``)."""
    spec = EngineSpec.parse(engine)
    played_with = weights_maps(spec.options.get("weights") or DEFAULT_WEIGHTS)
    record = Path(folder) / MAP_FILE
    if record.exists():
        saved = json.loads(record.read_text())
        # (a folder of the builds with one map: it served both kinds of search)
        played_with = {"calibration": saved["calibration"],
                       "calibration_moves": saved.get("calibration_moves",
                                                      saved["calibration"])}
    elif Path(folder).exists() and any(Path(folder).glob("shard-*.npz")):
        raise SystemExit(f"{folder}: shards without {MAP_FILE}; write the map they were "
                         "reported under into it")
    selfplay(folder, rounds, engine, seed=seed, shard_rounds=10, workers=workers)
    if not record.exists():
        record.write_text(json.dumps(played_with) + "\n")
    d = load_shards(folder)
    ok = np.isfinite(d["value"]) & (d["round"] < rounds)   # (the folder may hold more)
    its = d["iterations"][ok].astype(np.float64)
    moves = moves_read(d)[ok]
    rounds_of = d["round"][ok]
    p = rescored_by_kind(d["value"][ok], its, moves, played_with, scoring)
    y = d["result"][ok].astype(np.float64)
    rel = reliability(p, y)
    lo, hi = ece_interval(p, y, rounds_of)
    searched = (p > 0.0) & (p < 1.0)
    rel.update(engine=engine, rounds=rounds, ece_95=[lo, hi],
               median_iterations=float(np.median(its[searched])) if searched.any() else 0.0,
               **slope(p, y, rounds_of))
    # the maps the raw values would need (identity: 1 and 0): what the maps correct
    identity = {"calibration": [1.0, 0.0], "calibration_moves": [1.0, 0.0]}
    raw = rescored_by_kind(d["value"][ok], its, moves, played_with, identity)
    rel["raw"] = _map_only(slope(raw, y, rounds_of))
    rel["raw_with_moves"] = _map_only(slope(raw[moves], y[moves], rounds_of[moves]))
    if cold:
        # the cold analyses are reported under the engine's map of the time they ran,
        # which may be later than the self-play's (kept beside them)
        cold_record = Path(folder) / "cold" / MAP_FILE
        if not cold_record.exists():
            cold_record.parent.mkdir(exist_ok=True)
            now = weights_maps(spec.options.get("weights") or DEFAULT_WEIGHTS)
            cold_record.write_text(json.dumps({"calibration": now["calibration"]}) + "\n")
        cold_map = json.loads(cold_record.read_text())["calibration"]
        v, fallback = cold_values(folder, engine, d, np.flatnonzero(ok), seed, workers,
                                  quiet=False)
        got = np.isfinite(v)
        # (a cold search's iterations are not kept: its value is mapped back and
        # forth at the self-play's, which is exact for maps of two numbers)
        none = np.zeros(int(got.sum()), bool)
        cold_played = {"calibration": cold_map, "calibration_moves": cold_map}
        pc = rescored_by_kind(v[got], its[got], none, cold_played, scoring)
        rc = reliability(pc, y[got])
        clo, chi = ece_interval(pc, y[got], rounds_of[got])
        rc.update(ece_95=[clo, chi], fallback=fallback, **slope(pc, y[got], rounds_of[got]))
        rc["raw"] = _map_only(slope(rescored_by_kind(v[got], its[got], none, cold_played,
                                                     identity), y[got], rounds_of[got]))
        rel["cold"] = rc
    return rel


def plot(rels: list[dict], path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 5.5), dpi=100)
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    for rel in rels:
        x = [r["mean_predicted"] for r in rel["bins"]]
        y = [r["observed"] for r in rel["bins"]]
        budget = rel["engine"].split(":", 1)[-1]
        line, = ax.plot(x, y, "o-", markersize=4,
                        label=f"{budget}: ECE {100 * rel['ece']:.1f} points, {rel['rounds']} "
                              f"rounds, {rel['positions']:,} positions")
        c = rel.get("cold")
        if c:                       # the same positions given without the round's moves
            ax.plot([r["mean_predicted"] for r in c["bins"]],
                    [r["observed"] for r in c["bins"]], "s--", markersize=3,
                    color=line.get_color(),
                    label=f"{budget}, cold: ECE {100 * c['ece']:.1f} points")
    ax.set_xlabel("reported win probability of the move played")
    ax.set_ylabel("share of those positions whose round the mover won")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper left", fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    fig.tight_layout()
    fig.savefig(path)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, nargs="+", default=[100],
                    help="self-play rounds, one number for every engine or one per engine")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--engine", nargs="+", default=None, help="engine specs, one per budget "
                    "(default: the Engine's default at --iterations)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--folder", nargs="+", default=None, help="self-play folders, one per "
                    "engine (default: bench/results/calibration-<fingerprint of the shipped "
                    "weights>-<hash of the engine's options and the map>)")
    ap.add_argument("--map", default=None, help="the weights file whose map scores the "
                    "values (default: the shipped weights)")
    ap.add_argument("--cold", action="store_true", help="also analyse every position "
                    "again without the round's moves and score those values")
    ap.add_argument("--out", default=None, help="JSON file for the results")
    ap.add_argument("--plot", default=None, help="PNG to write (needs matplotlib)")
    a = ap.parse_args(argv)
    engines = a.engine or [f"ismcts:iterations={a.iterations}"]
    folders = a.folder or [default_folder(e) for e in engines]
    if len(folders) != len(engines):
        ap.error("give one --folder per --engine")
    rounds = a.rounds * len(engines) if len(a.rounds) == 1 else a.rounds
    if len(rounds) != len(engines):
        ap.error("give one --rounds for every engine or one per engine")
    scoring = weights_maps(a.map or DEFAULT_WEIGHTS)
    rels = [measure(e, f, n, a.seed, a.workers, scoring, a.cold)
            for e, f, n in zip(engines, folders, rounds)]
    result = {"map": scoring, "budgets": rels}
    if a.out:
        Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    else:
        print(json.dumps(result, indent=1))
    for rel in rels:
        lo, hi = rel["ece_95"]
        print(f"{rel['engine']}: expected calibration error {100 * rel['ece']:.2f} points "
              f"(95 % interval over rounds {100 * lo:.1f}-{100 * hi:.1f}) over "
              f"{rel['positions']:,} positions of {rel['rounds']} rounds, median "
              f"{rel['median_iterations']:,.0f} iterations; slope {rel['slope']:.3f} "
              f"({rel['slope_95'][0]:.3f}-{rel['slope_95'][1]:.3f}), offset "
              f"{rel['offset']:+.3f} ({rel['offset_95'][0]:+.3f}-{rel['offset_95'][1]:+.3f})")
        r = rel["raw_with_moves"]
        print(f"  the raw values' own map (after the round's first move): slope {r['slope']:.3f} "
              f"({r['slope_95'][0]:.3f}-{r['slope_95'][1]:.3f}), offset {r['offset']:+.3f} "
              f"({r['offset_95'][0]:+.3f}-{r['offset_95'][1]:+.3f})")
        r = rel["raw"]
        print(f"  the raw values' own map (every position): slope {r['slope']:.3f} ({r['slope_95'][0]:.3f}-"
              f"{r['slope_95'][1]:.3f}), offset {r['offset']:+.3f} ({r['offset_95'][0]:+.3f}-"
              f"{r['offset_95'][1]:+.3f})")
        c = rel.get("cold")
        if c:
            print(f"  cold (without the round's moves): error {100 * c['ece']:.2f} points "
                  f"({100 * c['ece_95'][0]:.1f}-{100 * c['ece_95'][1]:.1f}) over "
                  f"{c['positions']:,} positions ({c['fallback']} valued by the best move); "
                  f"slope {c['slope']:.3f} ({c['slope_95'][0]:.3f}-{c['slope_95'][1]:.3f}), "
                  f"offset {c['offset']:+.3f} ({c['offset_95'][0]:+.3f}-"
                  f"{c['offset_95'][1]:+.3f})")
            r = c["raw"]
            print(f"  cold, the raw values' own map: slope {r['slope']:.3f} ({r['slope_95'][0]:.3f}-"
                  f"{r['slope_95'][1]:.3f}), offset {r['offset']:+.3f} ({r['offset_95'][0]:+.3f}-"
                  f"{r['offset_95'][1]:+.3f})")
    if a.plot:
        plot(rels, a.plot, "self-play of the default engine; maps "
                           + "; ".join(", ".join(f"{x:.3f}" for x in m)
                                       for m in scoring.values()))


if __name__ == "__main__":
    main()

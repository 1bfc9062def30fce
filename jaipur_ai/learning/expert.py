"""Expert iteration: ``jaipur-ai improve FOLDER``, generations of a search that learns
from its own search.

Each generation:

1. **self-play** by the current weights' default search (``iterations`` a move), its
   root visits and win estimates recorded (``learning.selfplay``), against a ``league``
   in ``league_share`` of the rounds when one is given (gauntlet engines, and ``past``:
   every weights kept before the current ones);
2. **value**: the evaluation refitted, from the current weights, on the last ``window``
   generations' positions, to the TD return averaged with the search's own estimate
   (``train.fit``, target ``"search"``; ``target="td"``: the TD return alone);
3. **policy**: the move policy fitted to the search's visits (``learning.policy``), its
   prior scores read through the new value;
4. **gate**: the candidate and the current weights each play the gauntlet's engines of
   other families (:data:`GATE_GAUNTLET`: pimc, the hand-set engine, expectimax) on the
   same mirrored deals, both seats, at ``gate_iterations`` a move; the candidate becomes
   the current weights only if its rating, fitted jointly over those games
   (:mod:`jaipur_ai.matches.rating`), is above the current weights' -- never because it
   beats its parent (which can learn to beat its own habits) nor because its loss went
   down.  The current weights' gauntlet games are played once and kept.

``FOLDER/generations.jsonl`` logs every generation (the fits' reports, the gate's
score, interval and decision); ``FOLDER/evaluation.npz`` is the last kept weights.  Every
step is seeded and the searches run to fixed iterations, so the same command gives the
same weights; a generation with a ``decision.json`` is done, and an interrupted run
resumes where it stopped (finished self-play shards and gate games are kept).
docs/search.md ("The learned move policy") describes the model, docs/strength.md the
matches that decided what ships.
"""
from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any, Optional, Union

from jaipur_ai.learning._report import say
from jaipur_ai.learning.calibration import CALIBRATION_ITERATIONS, CALIBRATION_ROUNDS, calibrate
from jaipur_ai.learning.policy import fit_policy, rows_of
from jaipur_ai.learning.selfplay import check_share, make_folder, selfplay
from jaipur_ai.learning.train import TARGETS, fit, load_shards
from jaipur_ai.matches.backends import Backend, make_backend
from jaipur_ai.matches.rating import GAUNTLET, fit_ratings, pairing_file, read_pairings, with_limit
from jaipur_ai.matches.runner import deal_scores, run_match
from jaipur_ai.errors import InvalidDataError, InvalidOptionError
from jaipur_ai.search.evaluation import (DEFAULT_WEIGHTS, POLICY_ARRAYS, RAW_ARRAYS, VALUE_ARRAYS,
                                         evaluation_of, fingerprint, read_weights,
                                         save_weights)

__all__ = ["improve", "IMPROVE_DEFAULTS", "PARTS", "GATE_GAUNTLET", "check_league",
           "league_specs"]

#: The gate's engines: the gauntlet's families other than our own searches' ancestors
#: (today's default and the 12-04 default) and greedy (which every generation beats).
GATE_GAUNTLET = ("pimc", "handset", "expectimax")


#: What a generation may refit (``parts``).
PARTS = ("value", "policy")

#: The recipe of ``jaipur-ai improve`` (docs/search.md, "The learned move policy").
IMPROVE_DEFAULTS: dict[str, Any] = {
    "generations": 4,          # generations after the starting weights
    "rounds": 800,             # self-play rounds a generation ...
    "iterations": 1000,        # ... at these ISMCTS iterations a move
    "window": 2,               # generations of self-play each fit reads
    "gate_deals": 100,         # mirrored deals against each gate engine (twice the games) ...
    "gate_iterations": 1000,   # ... at these iterations a move
    "epochs": 4,               # the value fit's epochs
    "target": "search",        # the value fit's target (train.TARGETS)
    # a league the self-play meets in league_share of its rounds: gauntlet engines by
    # name, and "past" for every weights kept before the current ones (fictitious play)
    "league": (),
    "league_share": 0.5,
    "seed": 1,
    # the reported win probability's map, fitted last on the final weights' own play
    # (learning.calibration.calibrate, seed + 100)
    "calibration_rounds": CALIBRATION_ROUNDS,
    "calibration_iterations": CALIBRATION_ITERATIONS,
}


def candidate_weights(current: dict[str, Any], data: dict[str, Any], parts: tuple[str, ...],
                      *, epochs: int, seed: int,
                      target: str = "search") -> tuple[dict[str, Any], dict[str, Any]]:
    """The next generation's weights from ``current`` (a weights file's arrays) and
    self-play ``data``: the parts named refitted, the rest kept.  Returns (weights,
    report)."""
    new = {k: v for k, v in current.items()}
    report: dict[str, Any] = {}
    if "value" in parts:
        # (a raw-input network, where the weights have one, is fitted with the rest)
        init = {k: current[k] for k in VALUE_ARRAYS + RAW_ARRAYS if current.get(k) is not None}
        value, rep = fit(data, hidden=int(init["hidden_w"].shape[0]), epochs=epochs,
                         target=target, seed=seed, init=init)
        new.update(value)
        report["value"] = rep
    if "policy" in parts:
        rows = rows_of(data, evaluation_of(new))
        start = ({k: current[k] for k in POLICY_ARRAYS}
                 if all(current.get(k) is not None for k in POLICY_ARRAYS) else None)
        policy, rep = fit_policy(rows, seed=seed, init=start)
        new.update(policy)
        report["policy"] = rep
    return new, report


def improve(folder: Union[str, Path], *, start: Union[str, Path, None] = None,
            parts: tuple[str, ...] = PARTS, workers: Optional[int] = None,
            backend: Union[str, Backend] = "local", address: Optional[str] = None,
            quiet: bool = True, **settings: Any) -> dict[str, Any]:
    """Run (or resume) expert iteration in ``folder`` from the weights ``start`` (default:
    the shipped ones); returns the summary written to ``FOLDER/summary.json``."""
    cfg = dict(IMPROVE_DEFAULTS)
    unknown = set(settings) - set(cfg)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    cfg.update(settings)
    cfg["league"] = check_league(cfg["league"])
    check_share(cfg["league_share"])
    if cfg["target"] not in TARGETS:
        raise InvalidOptionError("target", f"expected one of {', '.join(TARGETS)}, got "
                                           f"{cfg['target']!r}")
    bad = [p for p in parts if p not in PARTS]
    if bad or not parts:
        raise InvalidOptionError("parts", f"expected some of {', '.join(PARTS)}, got "
                                          f"{','.join(parts) or 'none'}")
    if workers is None and backend == "local":
        workers = 2
    runner = make_backend(backend, workers, address)
    root = make_folder(folder)
    src = Path(start) if start is not None else DEFAULT_WEIGHTS
    # a folder holds one run: a rerun with other settings or another start is refused
    # (it would mix generations made otherwise), as selfplay refuses its folders
    record = json.loads(json.dumps({"format": "jaipur-ai-improve/1", "settings": cfg,
                                    "parts": list(parts), "start": fingerprint(src)}))
    rfile = root / "improve.json"
    old = json.loads(rfile.read_text()) if rfile.exists() else None
    if isinstance(old, dict) and isinstance(old.get("settings"), dict):
        # (a folder of a build before a setting existed ran with its default)
        new = json.loads(json.dumps(IMPROVE_DEFAULTS))
        old["settings"] = {**{k: new[k] for k in new if k not in old["settings"]},
                           **old["settings"]}
    if old is not None and old != record:
        raise InvalidDataError(str(rfile), f"made with other settings or another start "
                                           f"({rfile.read_text().strip()}); use another folder")
    rfile.write_text(json.dumps(record, indent=1) + "\n")
    first = root / "gen0.npz"
    if not first.exists():
        save_weights(first, read_weights(src), {"command": "jaipur-ai improve",
                                                "generation": 0, "start": str(src)})
    current = first
    past: list[Path] = []          # the weights kept before the current ones
    kept: list[Path] = []
    history = []
    t0 = time.monotonic()
    for g in range(1, cfg["generations"] + 1):
        gdir = root / f"gen{g}"
        gdir.mkdir(exist_ok=True)
        done = gdir / "decision.json"
        if done.exists():
            dec = json.loads(done.read_text())
        else:
            dec = _generation(g, gdir, current, kept, past, parts, cfg, runner, quiet)
            done.write_text(json.dumps(dec, indent=1) + "\n")
            with open(root / "generations.jsonl", "a") as fh:
                fh.write(json.dumps(dec) + "\n")
        history.append(dec)
        kept = (kept + [gdir / "selfplay"])[-cfg["window"]:]
        if dec["accepted"]:
            past.append(current)
            current = gdir / "candidate.npz"
    # the last kept weights, then their reported win probability's map; evaluation.npz
    # is written only then, so an interrupted run leaves no uncalibrated file by that name
    final = root / "final-fit.npz"
    shutil.copyfile(current, final)
    out = root / "evaluation.npz"
    say(f"calibration: {cfg['calibration_rounds']:,} rounds of self-play by the default "
         f"engine at {cfg['calibration_iterations']:,} iterations a move", quiet)
    rec = calibrate(final, root / "calibration", rounds=cfg["calibration_rounds"],
                    iterations=cfg["calibration_iterations"], seed=cfg["seed"] + 100,
                    out=out, backend=runner, quiet=quiet)
    final_name = current.parent.name if current != first else "the start"
    summary = {"command": "jaipur-ai improve", "settings": cfg, "parts": list(parts),
               "final": final_name, "generations": history, **rec,
               "seconds": round(time.monotonic() - t0, 1)}
    (root / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    say(f"wrote {out} (the weights of {final_name})", quiet)
    return summary


def check_league(names: Any) -> tuple[str, ...]:
    """``names`` as a league of :func:`improve` (gauntlet names and ``"past"``, a list or
    one comma-separated string), or an InvalidOptionError naming the first that is not
    one."""
    if isinstance(names, str):
        names = [n for n in names.split(",") if n]
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise InvalidOptionError("league", f"expected names of gauntlet engines or 'past', "
                                           f"got {type(names).__name__}")
    out = tuple(names)
    for n in out:
        if n != "past" and n not in GAUNTLET:
            raise InvalidOptionError("league", f"{n!r} is not a gauntlet engine "
                                               f"({', '.join(GAUNTLET)}) nor 'past'")
    return out


def league_specs(names: tuple[str, ...], past: list[Path], iterations: int) -> list[str]:
    """The engine specs of a generation's league: each gauntlet engine at ``iterations``
    a move, and for ``"past"`` the default search with each earlier kept weights."""
    specs: list[str] = []
    for n in names:
        if n == "past":
            specs += [f"ismcts:iterations={iterations},weights={p.resolve()}" for p in past]
        else:
            specs.append(with_limit(GAUNTLET[n], None, iterations))
    return specs


def _generation(g: int, gdir: Path, current: Path, window: list[Path], past: list[Path],
                parts: tuple[str, ...], cfg: dict[str, Any], runner: Backend,
                quiet: bool) -> dict[str, Any]:
    t0 = time.monotonic()
    engine = f"ismcts:iterations={cfg['iterations']},weights={current.resolve()}"
    league = league_specs(cfg["league"], past, cfg["iterations"])
    say(f"generation {g}: {cfg['rounds']:,} rounds of self-play by {engine}"
        + (f", {cfg['league_share']:.0%} of them against {', '.join(league)}" if league
           else ""), quiet)
    selfplay(str(gdir / "selfplay"), cfg["rounds"], engine, seed=cfg["seed"] * 1000 + g,
             shard_rounds=20, progress=not quiet, backend=runner, league=league,
             league_share=cfg["league_share"])
    data = load_shards([str(d) for d in window + [gdir / "selfplay"]])
    cur = read_weights(current)
    weights, report = candidate_weights(cur, data, parts, epochs=cfg["epochs"],
                                        seed=cfg["seed"] + g, target=cfg["target"])
    cand = gdir / "candidate.npz"
    save_weights(cand, weights, {"command": "jaipur-ai improve", "generation": g,
                                 "parts": list(parts), "report": report,
                                 "from": str(current)})
    for k, v in report.items():
        say(f"  {k}: {json.dumps(v)}", quiet)
    gate = _gauntlet_gate(cand, current, cfg, runner, quiet)
    return {"generation": g, **gate, "engine": engine,
            "report": report, "seconds": round(time.monotonic() - t0, 1)}


def _gauntlet_dir(weights: Path) -> Path:
    """Where the gate games of a weights file are kept (beside it: a candidate's become
    the current weights' games when it is kept)."""
    return weights.parent / ("gen0-gauntlet" if weights.name == "gen0.npz" else "gauntlet")


def _gauntlet_gate(cand: Path, current: Path, cfg: dict[str, Any], runner: Backend,
                   quiet: bool) -> dict[str, Any]:
    """The candidate and the current weights against GATE_GAUNTLET on the same deals;
    the ratings fitted jointly, and the paired score difference over the deals."""
    j = cfg["gate_iterations"]
    engines = {"candidate": cand, "current": current}
    specs = {k: f"ismcts:iterations={j},weights={w.resolve()}" for k, w in engines.items()}
    opponents = {k: with_limit(GAUNTLET[k], None, j) for k in GATE_GAUNTLET}
    say(f"  gate: {cfg['gate_deals']} deals against each of {', '.join(GATE_GAUNTLET)}, "
        f"both seats, at {j:,} iterations a move", quiet)
    files = []
    pairs: dict[str, dict[tuple[str, int], float]] = {"candidate": {}, "current": {}}
    games = 0
    for who, w in engines.items():
        folder = _gauntlet_dir(w)
        folder.mkdir(exist_ok=True)
        for name, spec in opponents.items():
            path = pairing_file(str(folder), "weights", name)
            res = run_match(specs[who], spec, games=cfg["gate_deals"],
                            seed=cfg["seed"] * 1000, out=path, backend=runner)
            if res.interrupted:        # no decision on part of the games: resume later
                raise KeyboardInterrupt
            files.append(path)
            for deal, score in deal_scores(res.records).items():
                pairs[who][(name, deal)] = score
            if who == "candidate":
                games += res.n_games
    names = {v: k for k, v in {**specs, **opponents}.items()}
    ratings = fit_ratings(read_pairings(files, names), anchor=GATE_GAUNTLET[0])
    # the same deals against the same engines, candidate minus current, in score units
    d = [(pairs["candidate"][k] - pairs["current"][k]) / 2
         for k in pairs["candidate"] if k in pairs["current"]]
    mean = sum(d) / len(d) if d else 0.0
    sd = (sum((x - mean) ** 2 for x in d) / (len(d) - 1)) ** 0.5 if len(d) > 1 else 0.0
    half = 1.96 * sd / len(d) ** 0.5 if d else float("inf")
    # kept on the point estimate, as the gate against the parent kept any score above
    # one half: a stricter bar (the interval above 0) would keep almost nothing at this
    # many games, and a generation no better than its parent costs nothing but time
    accepted = bool(ratings["candidate"] > ratings["current"])
    say(f"  gate: candidate {ratings['candidate']:+.0f}, current {ratings['current']:+.0f} "
        f"Elo over the gauntlet (pimc 0); paired score difference {100 * mean:+.1f} "
        f"(+- {100 * half:.1f}) points: {'kept' if accepted else 'discarded'}", quiet)
    return {"accepted": accepted, "games": games, "ratings": ratings, "paired_difference": mean,
            "paired_difference_ci95": [mean - half, mean + half],
            "gate": list(GATE_GAUNTLET)}

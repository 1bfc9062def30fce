"""The learning pipeline and its commands: ``selfplay``, ``lookahead``, ``train``,
``learn`` and ``calibrate``.

``jaipur-ai learn FOLDER`` goes from an empty folder to a weights file, in generations:

1. generation 0: self-play by the informed playout policy (compiled, seconds), and a
   first fit of the evaluation on it;
2. each next generation: self-play by ISMCTS using the previous generation's weights
   (learned leaf evaluation and priors), and a fit on all the data so far;
3. ``FOLDER/evaluation.npz`` is the last generation's weights, with a ``meta`` record of
   how it was made (the settings, the data, the held-out scores of every generation);
4. its reported win probability is calibrated (``calibrate``) on self-play of the default
   engine with those weights (``FOLDER/calibration``).

Every step is seeded, so the same command gives the same weights; self-play shards
already on disk are kept, so an interrupted run resumes where it stopped.
docs/search.md ("Learned evaluation") describes the features, the model and the
training; docs/strength.md the matches that decided what ships.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any, Optional, Union


from jaipur_ai.errors import InvalidOptionError, InvalidWeightsError
from jaipur_ai.learning._report import say
from jaipur_ai.matches.backends import Backend, make_backend
from jaipur_ai.matches.backends import add_arguments as add_backend_arguments
from jaipur_ai.learning.calibration import CALIBRATION_ITERATIONS, CALIBRATION_ROUNDS, calibrate
from jaipur_ai.search.evaluation import MAX_HIDDEN, MAX_RAW_HIDDEN, read_weights, save_weights, with_calibration
from jaipur_ai.learning.expert import IMPROVE_DEFAULTS, PARTS, improve
from jaipur_ai.matches.rating import GAUNTLET
from jaipur_ai.learning.selfplay import make_folder, selfplay
from jaipur_ai.learning.train import LOOKAHEAD_MIX, TARGETS, fit, load_shards, start_from
from jaipur_ai.learning.lookahead import MAX_DEPTH, lookahead

__all__ = ["learn", "add_commands", "DEFAULTS"]


# The recipe that made the shipped weights (docs/search.md, "Learned evaluation"):
# features version 2, the last step being ``calibrate`` with seed + 100 (the weights of
# features version 1, bench/weights/view.npz, came from it with the features of their day).
DEFAULTS: dict[str, Any] = {
    "policy_rounds": 40000,     # generation 0: informed-policy rounds
    "generations": 3,           # searched generations after generation 0
    "rounds": 3000,             # searched self-play rounds per generation ...
    "iterations": 300,          # ... at these ISMCTS iterations per move,
    "last_rounds": 8000,        # except the last generation: more rounds ...
    "last_iterations": 600,     # ... at more iterations (its data weigh most in the last fit)
    "cutoff": 10,               # playout cutoff of the searched self-play
    "hidden": 0,                # hidden units of the evaluation
    "epochs": 4,
    "target": "td",
    "seed": 1,
    # the reported win probability's map (``calibrate``, the last step): self-play rounds
    # of the default engine with the final weights, at these iterations a move
    "calibration_rounds": CALIBRATION_ROUNDS,
    "calibration_iterations": CALIBRATION_ITERATIONS,
}


def learn(folder: str, *, workers: Optional[int] = None, quiet: bool = True,
          backend: Union[str, Backend] = "local", address: Optional[str] = None, **settings: Any) -> dict[str, Any]:
    """Run the pipeline in ``folder``; returns the meta record of the final weights.

    The self-play of every generation runs on ``backend`` (``"local"``: ``workers``
    processes, default 2; ``"ray"``: Ray tasks on the cluster at ``address``, default
    as many at once as it has CPUs); the weights do not depend on where it ran."""
    if workers is None and backend == "local":
        workers = 2
    # one backend for every generation (a bad one fails here, before any work)
    where: dict[str, Any] = {"backend": make_backend(backend, workers, address)}
    cfg = dict(DEFAULTS)
    unknown = set(settings) - set(cfg)
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    cfg.update(settings)
    root = make_folder(folder)
    t0 = time.monotonic()
    history = []
    data_dirs = [root / "gen0"]
    say(f"generation 0: {cfg['policy_rounds']:,} rounds of informed-policy self-play", quiet)
    selfplay(str(data_dirs[0]), cfg["policy_rounds"], "policy", seed=cfg["seed"],
             shard_rounds=5000, progress=not quiet, **where)
    weights_path = root / "gen0.npz"
    weights, rep = fit(load_shards([str(d) for d in data_dirs]), hidden=cfg["hidden"],
                       epochs=cfg["epochs"], target=cfg["target"], seed=cfg["seed"])
    history.append({"generation": 0, "engine": "policy", **rep})
    save_weights(weights_path, weights, {"generation": 0, "report": rep})
    say(f"  held-out log-loss {rep['holdout_logloss']:.4f} (constant "
         f"{rep['constant_logloss']:.4f}), Brier {rep['holdout_brier']:.4f}", quiet)
    for g in range(1, cfg["generations"] + 1):
        is_last = g == cfg["generations"]
        rounds = cfg["last_rounds"] if is_last else cfg["rounds"]
        iterations = cfg["last_iterations"] if is_last else cfg["iterations"]
        # the self-play engine's settings are spelled out, so that the recipe does not
        # drift when the Engine's defaults change (cutoff 10, the opponent choosing in the
        # sampled world from pooled statistics, and only the policy's candidates below
        # the root made the shipped weights)
        engine = (f"ismcts:iterations={iterations},evaluation=learned,"
                  f"weights={weights_path.resolve()},cutoff={cfg['cutoff']},"
                  "opponent_view=off,opponent_stats=pooled,all_moves_after=0")
        d = root / f"gen{g}"
        data_dirs.append(d)
        say(f"generation {g}: {rounds:,} rounds of self-play by {engine}", quiet)
        selfplay(str(d), rounds, engine, seed=cfg["seed"] + g, shard_rounds=50,
                 progress=not quiet, **where)
        weights, rep = fit(load_shards([str(x) for x in data_dirs]), hidden=cfg["hidden"],
                           epochs=cfg["epochs"], target=cfg["target"], seed=cfg["seed"] + g)
        history.append({"generation": g, "engine": engine, **rep})
        weights_path = root / f"gen{g}.npz"
        save_weights(weights_path, weights, {"generation": g, "report": rep})
        say(f"  held-out log-loss {rep['holdout_logloss']:.4f} (constant "
             f"{rep['constant_logloss']:.4f}), Brier {rep['holdout_brier']:.4f}", quiet)
    meta: dict[str, Any] = {"command": "jaipur-ai learn", "settings": cfg,
                            "generations": history}
    # the last fit, then the reported win probability's map, fitted on the final weights'
    # own play by the default engine (the search that will report it); evaluation.npz
    # is written only then, so an interrupted run leaves no uncalibrated file by that name
    final = root / "final-fit.npz"
    save_weights(final, weights, meta)
    say(f"calibration: {cfg['calibration_rounds']:,} rounds of self-play by the default "
         f"engine at {cfg['calibration_iterations']:,} iterations a move", quiet)
    out = root / "evaluation.npz"
    rec = calibrate(final, root / "calibration", rounds=cfg["calibration_rounds"],
                    iterations=cfg["calibration_iterations"], seed=cfg["seed"] + 100,
                    out=out, quiet=quiet, **where)
    meta.update(rec, seconds=round(time.monotonic() - t0, 1))
    with_calibration(out, rec["calibration"], out, meta, rec["calibration_moves"])
    say(f"wrote {out} in {meta['seconds']:.0f} s", quiet)
    return meta


# ------------------------------------------------------------------ commands
def _cmd_selfplay(args: argparse.Namespace) -> int:
    with redirect_stdout(sys.stderr):     # (Ray prints its workers' deaths to stdout)
        s = selfplay(args.folder, args.rounds, args.engine, seed=args.seed,
                     shard_rounds=args.shard_rounds, workers=args.workers,
                     progress=not args.quiet, backend=args.backend, address=args.address,
                     league=args.league, league_share=args.league_share)
    print(json.dumps(s) if args.json else
          f"{s['folder']}: {s['shards']} shards, {s['rounds']:,} rounds "
          f"({s['played_shards']} shards played now, {s['positions_played']:,} positions, "
          f"{s['seconds']:.1f} s)")
    return 0


def check_out(path: str) -> None:
    """InvalidWeightsError naming ``path`` unless a weights file can be made there: not a
    folder, in a folder that exists and can be written (checked before the work)."""
    folder = os.path.dirname(path) or "."
    if not path or os.path.isdir(path):
        raise InvalidWeightsError(path, "a folder, not a weights file name")
    if not os.path.isdir(folder):
        raise InvalidWeightsError(path, f"cannot write it: no such folder {folder!r}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InvalidWeightsError(path, f"cannot write it: the folder {folder!r} is not "
                                        "writable")


def _cmd_train(args: argparse.Namespace) -> int:
    if args.init_seed is not None and args.start is None:
        raise InvalidOptionError("--init-seed", "only with --start")
    start = None if args.start is None else read_weights(args.start)
    # (--hidden defaults to the start's width: a start's linear weights fitted beside its
    # hidden layer are no value on their own)
    hidden = args.hidden if args.hidden is not None else (
        DEFAULTS["hidden"] if start is None else int(start["hidden_w"].shape[0]))
    if not 0 <= hidden <= MAX_HIDDEN:   # (the engine would refuse the file it wrote)
        raise InvalidOptionError("--hidden", f"expected 0 to {MAX_HIDDEN} hidden units, "
                                             f"got {hidden}")
    if not 0 <= args.raw_hidden <= MAX_RAW_HIDDEN:
        raise InvalidOptionError("--raw-hidden", f"expected 0 to {MAX_RAW_HIDDEN} units, "
                                                 f"got {args.raw_hidden}")
    if not 0.0 <= args.lookahead_mix <= 1.0:
        raise InvalidOptionError("--lookahead-mix", f"expected a share from 0 to 1, got "
                                                    f"{args.lookahead_mix}")
    check_out(args.out)                  # before the training, not after it
    init, kept = (None, {}) if start is None else start_from(
        start, hidden, args.seed if args.init_seed is None else args.init_seed,
        raw_hidden=args.raw_hidden)
    data = load_shards(args.data)
    if start is not None and len(start["lin"]) != data["features"].shape[1]:
        raise InvalidWeightsError(args.start, f"weights of {len(start['lin'])} features; the "
                                  f"data has {data['features'].shape[1]}")
    weights, rep = fit(data, hidden=hidden, epochs=args.epochs, target=args.target,
                       seed=args.seed, init=init, raw_hidden=args.raw_hidden,
                       mix=args.lookahead_mix)
    weights = {**kept, **weights}
    try:
        save_weights(args.out, weights, {"command": "jaipur-ai train", "data": args.data,
                                         "start": args.start, "report": rep})
        failed = None
    except OSError as e:                 # (the report still shown, then where it failed)
        failed = InvalidWeightsError(args.out, f"cannot write it: {e.strerror or e} (the "
                                               "weights of the fit above are not saved)")
    if args.json:
        print(json.dumps(rep))
    else:
        print(f"{args.out}: {rep['positions']:,} positions of {rep['rounds']:,} rounds; "
              f"held out {rep['holdout_rounds']:,} rounds: log-loss "
              f"{rep['holdout_logloss']:.4f} (constant {rep['constant_logloss']:.4f}), "
              f"Brier {rep['holdout_brier']:.4f} (constant {rep['constant_brier']:.4f}), "
              f"margin RMSE {rep['margin_rmse']:.2f} points")
    if failed is not None:
        raise failed
    return 0


def _cmd_learn(args: argparse.Namespace) -> int:
    over = {k: getattr(args, k) for k in DEFAULTS if getattr(args, k, None) is not None}
    with redirect_stdout(sys.stderr):
        meta = learn(args.folder, workers=args.workers, quiet=args.quiet,
                     backend=args.backend, address=args.address, **over)
    if args.json:
        print(json.dumps(meta))
    return 0


def _cmd_calibrate(args: argparse.Namespace) -> int:
    with redirect_stdout(sys.stderr):
        rec = calibrate(args.weights, args.folder, rounds=args.rounds,
                        iterations=args.iterations, seed=args.seed, out=args.out,
                        workers=args.workers, backend=args.backend, address=args.address,
                        quiet=args.quiet)
    if args.json:
        print(json.dumps(rec))
    else:
        c = rec["calibration_data"]
        for name, label, fit in (("calibration", "calibration (cold)", c),
                                 ("calibration_moves", "calibration_moves", c["moves"])):
            print(f"{args.out or args.weights}: {label} "
                  f"{' '.join(f'{n}={x:.4f}' for n, x in zip('abcd', rec[name]))} from "
                  f"{fit['positions_fitted']:,} positions of {c['rounds']:,} rounds; "
                  f"calibration error {100 * fit['ece_raw']:.1f} points raw, "
                  f"{100 * fit['ece_in_sample']:.1f} mapped (in sample)")
    return 0


def _cmd_improve(args: argparse.Namespace) -> int:
    over = {k: getattr(args, k) for k in IMPROVE_DEFAULTS if getattr(args, k, None) is not None}
    parts = tuple(p for p in args.parts.split(",") if p)
    with redirect_stdout(sys.stderr):
        summary = improve(args.folder, start=args.start, parts=parts, workers=args.workers,
                          backend=args.backend, address=args.address, quiet=args.quiet,
                          **over)
    if args.json:
        print(json.dumps(summary))
    return 0


def _budgets(text: str) -> list[int]:
    out = [_positive_int(x) for x in text.split(",")]
    if len(set(out)) != len(out):
        raise argparse.ArgumentTypeError(f"budgets must be distinct, got {text!r}")
    return out


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 1 <= v <= 10**9:
        raise argparse.ArgumentTypeError(f"must be in 1..1000000000, got {v}")
    return v


def _cmd_lookahead(args: argparse.Namespace) -> int:
    s = lookahead(args.folder, depth=args.depth, weights=args.weights, workers=args.workers,
                  progress=not args.quiet)
    print(json.dumps(s) if args.json else
          f"{s['folder']}: {s['valued']:,} positions of {s['shards']} shards valued "
          f"{s['depth']} plies ahead ({s['seconds']:.1f} s)")
    return 0


def add_commands(sub: Any, formatter: Any, flag: Any) -> None:
    """Add ``selfplay``, ``train``, ``learn`` and ``calibrate`` to the CLI's subparsers;
    ``flag(name, "--name")`` is the CLI's argparse type of a flag that sets an option of
    the table (jaipur_ai.options), so that ``--workers`` is checked, and refused, as
    ``match``'s."""
    positive_int = _positive_int
    sp = sub.add_parser("selfplay", help="self-play records for training (numpy shards)",
                        formatter_class=formatter,
                        description="Play seeded self-play rounds and write them as numpy "
                                    "shards; rerun to resume.")
    sp.add_argument("folder", help="output folder (created; finished shards are kept)")
    sp.add_argument("--rounds", type=positive_int, default=1000, metavar="N")
    sp.add_argument("--engine", default="ismcts:iterations=400", metavar="SPEC",
                    help="engine spec playing both sides, or 'policy' (default "
                         "ismcts:iterations=400)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--league", nargs="+", default=[], metavar="SPEC",
                    help="engines the engine meets in a share of the rounds (earlier "
                         "weights, pimc:iterations=1000, greedy: a league, as fictitious "
                         "play; each that searches by iterations=N); their moves are value "
                         "rows only")
    sp.add_argument("--league-share", type=float, default=0.5, metavar="P",
                    help="the share of the rounds played against the league (default 0.5)")
    sp.add_argument("--shard-rounds", type=positive_int, default=100, metavar="K")
    sp.add_argument("--workers", type=flag("workers", "--workers"), default=None, metavar="W",
                    help="shards played at once (default 1; with --backend ray, the "
                         "cluster's CPUs)")
    add_backend_arguments(sp)
    sp.add_argument("--json", action="store_true")
    sp.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sp.set_defaults(func=_cmd_selfplay)

    la = sub.add_parser("lookahead", help="value self-play positions by a short expectimax "
                                          "(the train command's lookahead target)",
                        formatter_class=formatter,
                        description="Give each stored position of a self-play folder its "
                                    "mover's value by a DEPTH-ply expectimax of the full "
                                    "state, written beside the shards (FOLDER/lookahead); "
                                    "rerun to resume.")
    la.add_argument("folder", help="a selfplay folder (searched self-play: its shards "
                                   "store the states)")
    la.add_argument("--depth", type=positive_int, default=2, metavar="D",
                    help=f"plies of lookahead, 1..{MAX_DEPTH} (default 2: about 1.5 ms a "
                         "position)")
    la.add_argument("--weights", default=None, metavar="WEIGHTS",
                    help="the evaluation at the leaves (default: the shipped weights)")
    la.add_argument("--workers", type=flag("workers", "--workers"), default=None,
                    metavar="W", help="shards valued at once (default: the CPUs)")
    la.add_argument("--json", action="store_true")
    la.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    la.set_defaults(func=_cmd_lookahead)

    tr = sub.add_parser("train", help="fit the learned evaluation from self-play shards",
                        formatter_class=formatter,
                        description="Fit the learned evaluation (numpy) and write a weights "
                                    "file; prints held-out log-loss and Brier.")
    tr.add_argument("data", nargs="+", help="shard files or folders")
    tr.add_argument("--out", default="evaluation.npz", help="weights file to write")
    tr.add_argument("--hidden", type=int, default=None, metavar="H",
                    help=f"hidden units, 0..64 (default: the start's, with --start; else "
                         f"{DEFAULTS['hidden']}: logistic regression)")
    tr.add_argument("--epochs", type=positive_int, default=DEFAULTS["epochs"])
    tr.add_argument("--target", choices=TARGETS, default=DEFAULTS["target"])
    tr.add_argument("--seed", type=int, default=0)
    tr.add_argument("--start", default=None, metavar="WEIGHTS",
                    help="start from this weights file and keep its move policy and "
                         "calibration map; a hidden layer "
                         "added to linear weights leaves the tree's priors on their linear "
                         "value (prior_lin)")
    tr.add_argument("--raw-hidden", type=int, default=0, metavar="R",
                    help="units of a raw-input network beside the features (0..128; "
                         "default 0: none; a start's own is kept and fitted on)")
    tr.add_argument("--lookahead-mix", type=float, default=LOOKAHEAD_MIX, metavar="P",
                    help="with --target lookahead: the lookahead value's share of the "
                         f"target, the result the rest (default {LOOKAHEAD_MIX})")
    tr.add_argument("--init-seed", type=int, default=None, metavar="SEED",
                    help="with --start: the seed of a new hidden layer's first weights "
                         "(default: --seed)")
    tr.add_argument("--json", action="store_true")
    tr.set_defaults(func=_cmd_train)

    le = sub.add_parser("learn", help="the whole pipeline: self-play, train, generations",
                        formatter_class=formatter,
                        description="From an empty folder to FOLDER/evaluation.npz: "
                                    "policy self-play, fit, then searched generations, "
                                    "then the calibration of the reported win probability.")
    le.add_argument("folder")
    le.add_argument("--workers", type=flag("workers", "--workers"), default=None, metavar="W",
                    help="self-play shards played at once (default 2; with --backend ray, "
                         "the cluster's CPUs)")
    add_backend_arguments(le)
    for k, v in DEFAULTS.items():
        # (counts that must be >= 1 are checked here, not after the self-play before them)
        kind = positive_int if k.startswith("calibration_") else type(v)
        le.add_argument("--" + k.replace("_", "-"), type=kind, default=None,
                        help=f"(default {v})")
    le.add_argument("--json", action="store_true")
    le.add_argument("-q", "--quiet", action="store_true")
    le.set_defaults(func=_cmd_learn)

    im = sub.add_parser("improve", help="expert iteration: generations of self-play, "
                        "value and move-policy fits, each kept only if it rates above "
                        "the current weights over the gauntlet", formatter_class=formatter,
                        description="From the shipped weights (or --start) to "
                                    "FOLDER/evaluation.npz: each generation plays self-play "
                                    "by the current weights' search, refits the value and "
                                    "the move policy on it, and keeps the result only if its "
                                    "rating over the gauntlet's other families (pimc, the "
                                    "hand-set engine, expectimax), on mirrored deals, is "
                                    "above the current weights'. Rerun to "
                                    "resume; FOLDER/generations.jsonl logs each generation.")
    im.add_argument("folder")
    im.add_argument("--start", default=None, metavar="WEIGHTS",
                    help="weights to start from (default: the shipped ones)")
    im.add_argument("--parts", default=",".join(PARTS), metavar="LIST",
                    help=f"what each generation refits, of {','.join(PARTS)} (default both)")
    im.add_argument("--workers", type=flag("workers", "--workers"), default=None, metavar="W",
                    help="games played at once (default 2)")
    add_backend_arguments(im)
    for k, v in IMPROVE_DEFAULTS.items():
        if isinstance(v, int):
            im.add_argument("--" + k.replace("_", "-"),
                            type=int if k == "seed" else positive_int,
                            default=None, help=f"(default {v})")
    im.add_argument("--target", choices=TARGETS, default=None,
                    help=f"the value fit's target (default {IMPROVE_DEFAULTS['target']}: "
                         "the TD return averaged with the search's estimate)")
    im.add_argument("--league", default=None, metavar="LIST",
                    help="engines the self-play meets in a share of its rounds, comma-"
                         f"separated: gauntlet names ({', '.join(GAUNTLET)}) and 'past' "
                         "(every weights kept before the current ones); default none")
    im.add_argument("--league-share", type=float, default=None, metavar="P",
                    help=f"(default {IMPROVE_DEFAULTS['league_share']})")
    im.add_argument("--json", action="store_true")
    im.add_argument("-q", "--quiet", action="store_true")
    im.set_defaults(func=_cmd_improve)

    ca = sub.add_parser("calibrate", help="fit the reported win probability's map of a "
                        "weights file", formatter_class=formatter,
                        description="Play self-play rounds of the default engine with "
                                    "WEIGHTS (in FOLDER; rerun to resume), fit the map from "
                                    "the search's win estimate to the reported win "
                                    "probability, and write it into WEIGHTS (or --out).")
    ca.add_argument("weights", help="weights file (.npz) to calibrate")
    ca.add_argument("folder", help="folder for the self-play (created; finished shards "
                                   "are kept)")
    ca.add_argument("--rounds", type=positive_int, default=DEFAULTS["calibration_rounds"],
                    metavar="N", help=f"(default {DEFAULTS['calibration_rounds']})")
    ca.add_argument("--iterations", type=_budgets,
                    default=[DEFAULTS["calibration_iterations"]], metavar="N[,N...]",
                    help=f"ISMCTS iterations a move, or several budgets, comma-separated "
                         f"(the map then moves with the search's size; default "
                         f"{DEFAULTS['calibration_iterations']})")
    ca.add_argument("--seed", type=int, default=0,
                    help="self-play seed (default 0; learn's last step uses its --seed + 100)")
    ca.add_argument("--out", default=None, help="weights file to write (default: WEIGHTS)")
    ca.add_argument("--workers", type=flag("workers", "--workers"), default=None, metavar="W",
                    help="shards played at once (default 2; with --backend ray, the "
                         "cluster's CPUs)")
    add_backend_arguments(ca)
    ca.add_argument("--json", action="store_true")
    ca.add_argument("-q", "--quiet", action="store_true")
    ca.set_defaults(func=_cmd_calibrate)

"""``jaipur-ai rate``: engines rated against the gauntlet, on one Elo scale.

Each candidate plays every engine of the gauntlet (``--pairs star``, the default),
every engine plays every other (``--pairs all``), or each candidate also plays the
next one given (``--pairs ladder``: the levels), on mirrored deals in both seats, each
pairing in its own results file of the folder ``--dir``; then the ratings are fitted
jointly over every results file of the folder (:mod:`jaipur_ai.matches.rating`).  A
rerun with the same folder resumes: finished games are not played again, and more
``--games`` extends every pairing.  ``--fit-only`` fits what the folder holds.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from contextlib import redirect_stdout
from typing import Any, Callable

from jaipur_ai.errors import JaipurError

__all__ = ["add_command", "cmd_rate"]

EPILOG = """\
The gauntlet (a time or iteration limit is added to each searching engine):
{gauntlet}

A candidate is NAME=SPEC, or a SPEC (named by itself) or a gauntlet name.

examples:
  jaipur-ai rate --time 0.1 --games 100 --dir runs/rating-0.1 --workers 2
  jaipur-ai rate mine=ismcts:weights=w.npz --time 0.1 --games 100 --dir runs/rating-0.1
  jaipur-ai rate --pairs all --iterations 2000 --games 50 --dir runs/r --backend ray
  jaipur-ai rate --fit-only --dir runs/rating-0.1 --json
"""


def add_command(sub: Any, formatter: Any, flag: Callable[[str, str], Any]) -> None:
    from jaipur_ai.matches.backends import add_arguments as add_backend_arguments
    from jaipur_ai.matches.rating import GAUNTLET
    gauntlet = "\n".join(f"  {k:<12} {v}" for k, v in GAUNTLET.items())
    r = sub.add_parser("rate", help="rate engines against the gauntlet (Bradley-Terry, "
                                    "bootstrap intervals)", formatter_class=formatter,
                       epilog=EPILOG.format(gauntlet=gauntlet),
                       description="Play candidates against the gauntlet of engines on "
                                   "mirrored deals and fit all ratings jointly.")
    r.add_argument("candidates", nargs="*", metavar="CANDIDATE",
                   help="engines to rate (default: the gauntlet's default engine)")
    r.add_argument("--dir", required=True, metavar="FOLDER",
                   help="folder of the pairings' results files (made if missing; "
                        "resumed when it holds them)")
    r.add_argument("--gauntlet", nargs="+", metavar="NAME", default=None,
                   help="the gauntlet's engines to play, by name (default: all), or "
                        "NAME=SPEC for others")
    r.add_argument("--pairs", choices=("star", "all", "ladder"), default="star",
                   help="star: each candidate against each gauntlet engine (default); "
                        "all: every engine against every other; ladder: star, and each "
                        "candidate against the next one given (a ladder of levels)")
    r.add_argument("--time", type=flag("time", "--time"), default=None, metavar="S",
                   help="seconds a move for every searching engine without a limit "
                        "(default 0.1)")
    r.add_argument("--iterations", type=flag("iterations", "--iterations"), default=None,
                   metavar="N", help="iterations a move instead of --time")
    r.add_argument("--games", type=flag("games", "--games"), default=100, metavar="N",
                   help="deals a pairing, each played in both seats (default 100: 200 "
                        "games)")
    r.add_argument("--seed", type=flag("seed", "--seed"), default=1,
                   help="base seed: every pairing plays the same deals (default 1)")
    r.add_argument("--workers", type=flag("workers", "--workers"), default=None,
                   metavar="W", help="games played at once")
    add_backend_arguments(r)
    r.add_argument("--anchor", default=None, metavar="NAME[=ELO]",
                   help="the engine rated 0, or ELO (default: greedy when it played, "
                        "else the first)")
    r.add_argument("--prior", type=float, default=1.0, metavar="G",
                   help="virtual drawn games in each pairing (default 1; keeps a "
                        "perfect score finite)")
    r.add_argument("--bootstrap", type=int, default=1000, metavar="B",
                   help="bootstrap replicates over deals for the intervals (default 1000)")
    r.add_argument("--fit-only", action="store_true",
                   help="play nothing: fit the results files in the folder")
    r.add_argument("--json", action="store_true", help="print the rating list as JSON")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    r.set_defaults(func=cmd_rate)


def _named(text: str) -> tuple[str, str]:
    from jaipur_ai.matches.rating import GAUNTLET
    from jaipur_ai.matches.spec import EngineSpec
    name, eq, spec = text.partition("=")
    if eq and name and ":" not in name and "," not in name:
        return name.strip(), str(EngineSpec.parse(spec))
    if text in GAUNTLET:
        return text, GAUNTLET[text]
    return text, str(EngineSpec.parse(text))


def _anchor(text: Any) -> tuple[Any, float]:
    """``--anchor NAME`` or ``NAME=ELO``: the engine and the rating it is given."""
    from jaipur_ai.doors.commands import CliError
    if text is None:
        return None, 0.0
    name, eq, elo = str(text).partition("=")
    try:
        at = float(elo) if eq else 0.0
    except ValueError:
        at = float("nan")
    if not name.strip() or not abs(at) <= 100_000:
        raise CliError("--anchor", f"expected NAME or NAME=ELO (a number), got {text!r}")
    return name.strip(), at


def cmd_rate(args: argparse.Namespace) -> int:
    from jaipur_ai.doors.commands import CliError, EXIT_INTERRUPTED
    from jaipur_ai.matches.rating import GAUNTLET, format_table
    if args.time is not None and args.iterations is not None:
        raise CliError("--time", "give --time or --iterations, not both")
    try:
        gauntlet = dict(_named(g) for g in args.gauntlet) if args.gauntlet else dict(GAUNTLET)
        cands = dict(_named(c) for c in args.candidates) if args.candidates else \
            {"default": GAUNTLET["default"]}
    except JaipurError as e:
        raise CliError("engine", e.reason) from None
    anchor, at = _anchor(args.anchor)
    rows, pairings, shown, interrupted, anchor = rate(cands, gauntlet, args, anchor, at)
    if args.json:
        print(json.dumps({"ratings": rows, "anchor": anchor,
                          "anchor_elo": at, "prior": args.prior,
                          "bootstrap": args.bootstrap, "engines": shown,
                          "pairings": [{"a": p.a, "b": p.b, "games": p.n, "score": p.score}
                                       for p in pairings]}, indent=2))
    else:
        print(format_table(rows, pairings, shown))
    return EXIT_INTERRUPTED if interrupted else 0


def rate(cands: dict[str, str], gauntlet: dict[str, str], args: argparse.Namespace,
         anchor: Any = None, at: float = 0.0
         ) -> tuple[list[dict[str, Any]], list[Any], dict[str, str], bool, str]:
    """Play the pairings ``args.pairs`` asks for (resuming ``args.dir``), then fit every
    results file of the folder: ``(rows, pairings, specs shown, interrupted, anchor)``.
    ``args`` carries the flags of ``jaipur-ai rate`` (``jaipur-ai levels --rate``
    passes the same)."""
    from jaipur_ai.doors.commands import CliError, flag_of
    from jaipur_ai.doors.progress import Progress
    from jaipur_ai.matches.rating import (GAUNTLET, default_anchor, pairing_file,
                                          rating_table, read_pairings, with_limit)
    from jaipur_ai.matches.runner import run_match
    if args.bootstrap < 0 or args.bootstrap > 100_000:
        raise CliError("--bootstrap", f"expected 0 to 100000 replicates, got {args.bootstrap}")
    if not (0 <= args.prior <= 1000):
        raise CliError("--prior", f"expected 0 to 1000 games, got {args.prior}")
    time_ = args.time if args.time is not None or args.iterations is not None else 0.1
    for name in set(cands) & set(gauntlet):
        if cands[name] != gauntlet[name]:
            raise CliError("candidate", f"{name!r} names a gauntlet engine "
                                        f"({gauntlet[name]}): give the candidate another name")
    specs = {**cands, **gauntlet}
    specs = {k: with_limit(v, time_, args.iterations) for k, v in specs.items()}
    seen: dict[str, str] = {}
    for name, spec in specs.items():     # (a results file names its engines by spec)
        if spec in seen:
            raise CliError("candidate", f"{name!r} and {seen[spec]!r} are the same engine "
                                        f"({spec}): rate it under one name")
        seen[spec] = name
    if os.path.exists(args.dir) and not os.path.isdir(args.dir):
        raise CliError("--dir", f"{args.dir!r} is not a folder")
    interrupted = False
    if not args.fit_only:
        os.makedirs(args.dir, exist_ok=True)
        names = list(specs)
        if args.pairs == "all":
            todo = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
        else:
            todo = [(c, g) for c in cands for g in gauntlet if g != c]
            if args.pairs == "ladder":
                ladder = list(cands)
                todo = list(zip(ladder, ladder[1:])) + todo
            todo = [p for k, p in enumerate(todo)          # (a pair once, in one order)
                    if (p[1], p[0]) not in todo[:k] and p not in todo[:k]]
        for k, (a, b) in enumerate(todo, 1):
            if not args.quiet:
                sys.stderr.write(f"[{k}/{len(todo)}] {a} vs {b}: {specs[a]} vs {specs[b]}\n")
            progress = Progress(2 * args.games, not args.quiet)
            try:
                with redirect_stdout(sys.stderr):
                    res = run_match(specs[a], specs[b], games=args.games, seed=args.seed,
                                    workers=args.workers, on_result=progress,
                                    out=pairing_file(args.dir, a, b), backend=args.backend,
                                    address=args.address)
            except JaipurError as e:
                raise CliError(flag_of(e), e.reason) from None
            finally:
                progress.close()
            if res.interrupted:
                interrupted = True
                break
    files = sorted(glob.glob(os.path.join(args.dir, "*.jsonl")) +
                   glob.glob(os.path.join(args.dir, "*.jsonl.gz")))
    if not files:
        raise CliError("--dir", f"no results files in {args.dir!r}")
    try:
        pairings = read_pairings(files, {v: k for k, v in {**GAUNTLET, **specs}.items()})
        anchor = anchor if anchor is not None else default_anchor(pairings)
        rows = rating_table(pairings, anchor, args.prior, args.bootstrap, args.seed, at)
    except JaipurError as e:
        raise CliError(flag_of(e), e.reason) from None
    # each engine as the files played it (a fit alone may be given other limits, or none)
    played: dict[str, str] = {}
    for p in pairings:
        played.setdefault(p.a, p.spec_a)
        played.setdefault(p.b, p.spec_b)
    shown = {k: played[k] or specs.get(k, k) for k in [*specs, *sorted(set(played) - set(specs))]
             if k in played}
    return rows, pairings, shown, interrupted, anchor

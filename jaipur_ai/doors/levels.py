"""``jaipur-ai levels``: the rated ladder of levels, and the one command that rates it
again.

``jaipur-ai levels`` lists the levels, weakest first: name, engine spec, rating with
its 95 % interval, ms a move.  ``jaipur-ai levels --rate --dir FOLDER`` plays the
ladder's pairings (each level against the next, against greedy and against the
default engine at 0.1 s a move, on mirrored deals; resumable) and fits the ratings on
the rating list's scale with the default engine at 2000; ``--save FILE`` writes the
ladder with the new ratings and speeds (the shipped one is
``jaipur_ai/data/levels.json``).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable

__all__ = ["add_command", "cmd_levels", "ANCHOR", "ANCHOR_ELO"]

#: The ladder's scale: the rating list's, with this engine (the default engine at
#: 0.1 s a move) rated ANCHOR_ELO.
ANCHOR, ANCHOR_ELO = "default", 2000.0
_GAUNTLET = {"greedy": "greedy", ANCHOR: "ismcts:time=0.1"}

EPILOG = """\
examples:
  jaipur-ai levels
  jaipur-ai levels --json
  jaipur-ai levels --rate --dir runs/levels --games 100 --workers 2 --save levels.json
"""


def add_command(sub: Any, formatter: Any, flag: Callable[[str, str], Any]) -> None:
    from jaipur_ai.matches.backends import add_arguments as add_backend_arguments
    r = sub.add_parser("levels", help="the rated levels, weakest first (and --rate: "
                                      "rate them again)", formatter_class=formatter,
                       epilog=EPILOG,
                       description="List the levels a frontend can offer, weakest first, "
                                   "each with its engine spec, rating and ms a move; "
                                   "--rate plays the ladder's pairings and fits the "
                                   "ratings again (docs/levels.md).")
    r.add_argument("--json", action="store_true", help="print the levels as JSON")
    r.add_argument("--rate", action="store_true",
                   help="play each level against the next, greedy and the default "
                        "engine (0.1 s a move), then fit the ratings")
    r.add_argument("--dir", default=None, metavar="FOLDER",
                   help="with --rate: folder of the pairings' results files (resumed)")
    r.add_argument("--games", type=flag("games", "--games"), default=100, metavar="N",
                   help="with --rate: deals a pairing, each in both seats (default 100)")
    r.add_argument("--seed", type=flag("seed", "--seed"), default=1,
                   help="with --rate: base seed of the deals (default 1)")
    r.add_argument("--workers", type=flag("workers", "--workers"), default=None,
                   metavar="W", help="with --rate: games played at once")
    add_backend_arguments(r)
    r.add_argument("--fit-only", action="store_true",
                   help="with --rate: play nothing, fit what the folder holds")
    r.add_argument("--save", default=None, metavar="FILE",
                   help="with --rate: write the ladder with its new ratings to FILE")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    r.set_defaults(func=cmd_levels)


def _table(rows: list[dict[str, Any]]) -> str:
    out = [f"{'level':<6} {'rating':>6}  {'95 % interval':>13}  {'ms/move':>7}  spec"]
    for r in rows:
        iv = "" if r["lo"] is None else f"{r['lo']:.0f} .. {r['hi']:.0f}"
        ms = "" if r["ms"] is None else f"{r['ms']:.0f}"
        out.append(f"{r['name']:<6} {r['elo']:>6.0f}  {iv:>13}  {ms:>7}  {r['spec']}")
    return "\n".join(out)


def _speeds(folder: str) -> dict[str, float]:
    """Mean ms a move of each engine (by spec) over the results files of ``folder``."""
    import glob
    from jaipur_ai.matches.results import read_results
    spent: dict[str, list[float]] = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.jsonl*"))):
        st, games = read_results(path)
        for g in games:
            for k, key in enumerate(("a", "b")):
                acc = spent.setdefault(str(st[key]), [0.0, 0.0])
                acc[0] += float(g.seconds[k])
                acc[1] += float(g.engine_moves[k])
    return {s: 1000.0 * t / n for s, (t, n) in spent.items() if n}


def cmd_levels(args: argparse.Namespace) -> int:
    from jaipur_ai.doors.commands import CliError, EXIT_INTERRUPTED
    from jaipur_ai.search.levels import LEVELS_FILE, read_levels
    ladder, aliases, head = read_levels()
    if not args.rate:
        for flag in ("dir", "save"):
            if getattr(args, flag) is not None:
                raise CliError(f"--{flag}", "only with --rate")
        rows = [lv.to_dict() for lv in ladder]
        if args.json:
            print(json.dumps({"levels": rows, "aliases": aliases,
                              **{k: head.get(k) for k in ("scale", "measured", "command")}},
                             indent=2))
        else:
            print(_table(rows))
            print("aliases: " + ", ".join(f"{a} = {b}" for a, b in aliases.items()))
            print(f"scale: {head.get('scale')}")
        return 0
    if args.dir is None:
        raise CliError("--dir", "--rate needs a folder for the pairings' results files")
    if args.save is not None:                 # (refused now, not after hours of games)
        folder = os.path.dirname(os.path.abspath(args.save))
        if not os.path.isdir(folder) or (os.path.exists(args.save) and
                                         not os.path.isfile(args.save)):
            raise CliError("--save", f"cannot write {args.save!r}: its folder does not "
                                     "exist, or it is not a regular file")
    from jaipur_ai.doors.rate import rate
    cands = {lv.name: lv.spec for lv in ladder}
    ns = argparse.Namespace(dir=args.dir, pairs="ladder", time=None, iterations=None,
                            games=args.games, seed=args.seed, workers=args.workers,
                            backend=args.backend, address=args.address, prior=1.0,
                            bootstrap=1000, fit_only=args.fit_only, quiet=args.quiet)
    rows, _pairings, specs, interrupted, _ = rate(cands, dict(_GAUNTLET), ns, ANCHOR,
                                                  ANCHOR_ELO)
    fitted = {r["engine"]: r for r in rows}
    speeds = _speeds(args.dir)
    out = []
    for lv in ladder:
        r = fitted.get(lv.name)
        if r is None:
            raise CliError("--dir", f"level {lv.name} played no game in {args.dir!r}")
        out.append({**lv.to_dict(), "elo": round(r["elo"], 1),
                    "lo": None if r["lo"] is None else round(r["lo"], 1),
                    "hi": None if r["hi"] is None else round(r["hi"], 1),
                    "ms": None if specs[lv.name] not in speeds
                    else round(speeds[specs[lv.name]], 2)})
    others = [r for r in rows if r["engine"] not in cands]
    if args.json:
        print(json.dumps({"levels": out, "others": others}, indent=2))
    else:
        print(_table(out))
        for r in others:
            print(f"{r['engine']:<6} {r['elo']:>6.0f}  ({specs.get(r['engine'])})")
    if args.save is not None and not interrupted:
        import datetime
        import tempfile
        from jaipur_ai.errors import InvalidDataError
        doc = {**head, "measured": f"{datetime.date.today()}: ratings and ms a move (two "
                                   f"games at a time) by jaipur-ai levels --rate; error "
                                   f"and gross from the benchmark, as before",
               "levels": [{k: v for k, v in r.items() if k != "spec"} for r in out],
               "aliases": aliases}
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.save)),
                                   suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
                f.write("\n")
            read_levels(tmp)             # (a ladder that is not monotone is refused)
            os.replace(tmp, args.save)
        except InvalidDataError as e:
            raise CliError("--save", f"not saved: the fitted ladder is not valid "
                                     f"({e.reason}); the ratings are printed above") from None
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        sys.stderr.write(f"saved the ladder to {args.save} (the shipped one: "
                         f"{LEVELS_FILE})\n")
    return EXIT_INTERRUPTED if interrupted else 0

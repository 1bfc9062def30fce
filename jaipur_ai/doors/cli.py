"""The ``jaipur-ai`` command line: analyse, play, match, review, bench, serve, version.

``main(argv)`` returns the exit status: 0 done, 2 bad input (one line on stderr,
``jaipur-ai: error: <field>: <reason>``, never a traceback), 130 interrupted by
Ctrl-C (what was finished is reported first), 141 the reader of the output went
away (``| head``: a broken pipe, as for any command killed by SIGPIPE), 1 anything
else that failed (also one line; ``JAIPUR_AI_DEBUG=1`` shows the traceback).
docs/cli.md shows every command with real output.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any, Callable, Optional, Sequence

from jaipur_ai.doors.commands import (ALGORITHMS, DEFAULT_ANALYSE_TIME, EXIT_BAD_INPUT,
                                      EXIT_INTERRUPTED, PROG, CliError, cmd_analyse,
                                      cmd_bench, cmd_match, cmd_play, cmd_review, cmd_serve,
                                      cmd_version, cmd_web, flag_of, port_number,
                                      version_text)
from jaipur_ai.doors.limits import LIMIT_OPTIONS
from jaipur_ai.doors.web import DEFAULT_PORT
from jaipur_ai.errors import JaipurError
from jaipur_ai.matches.backends import add_arguments as add_backend_arguments
from jaipur_ai.matches.spec import EngineSpec
from jaipur_ai.options import ALGORITHMS as ENGINE_ALGORITHMS
from jaipur_ai.options import SPEC_OPTIONS, did_you_mean, option, parse_text, unknown
from jaipur_ai.search.rollouts import ANALYSIS_ROLLOUTS, LONG_ANALYSIS

__all__ = ["main", "build_parser"]


# --------------------------------------------------------------------- argparse
class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (raised, reported by main)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        m = re.match(r"argument ([^:]+): (.*)", message, re.S)
        hint = f" (see '{self.prog} --help')"
        if m:
            raise CliError(m.group(1).split("/")[-1], m.group(2) + hint)
        m = re.match(r"the following arguments are required: (.*)", message)
        if m:
            raise CliError(m.group(1), "required" + hint)
        raise CliError("", message + hint)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        # a flag this command does not have, close to one it has (--tiem): said here,
        # where the command's own flags are known (the top-level parser reports the rest)
        ns, extras = super().parse_known_args(args, namespace)
        for a in extras:
            flag = a.split("=", 1)[0]
            if flag.startswith("--") and flag not in self._option_string_actions:
                hint = did_you_mean(flag, [o for o in self._option_string_actions
                                           if o.startswith("--")])
                if hint is not None:
                    self.error(f"unrecognized arguments: {' '.join(extras)}; {hint}")
        return ns, extras


def _flag(name: str, flag: str) -> Callable[[str], Any]:
    """The argparse type of a flag that sets option ``name`` of the one table
    (jaipur_ai.options): the same check, and the same message, as every other door."""
    def read(text: str) -> Any:
        try:
            return parse_text(name, text)
        except JaipurError as e:
            raise CliError(flag, e.reason) from None
    read.__name__ = name
    return read


def _engine_spec(text: str) -> EngineSpec:
    try:
        spec = EngineSpec.parse(text)
        spec.make_engine()        # its weights file read and checked now, not mid-game
        return spec
    except JaipurError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _hint_spec(text: str) -> EngineSpec:
    """The engine spec of hints: a fixed limit per search (a hint is no move on a clock)."""
    spec = _engine_spec(text)
    try:
        spec.fixed_limits("the hint engine")
    except JaipurError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return spec


def engine_option(text: str) -> tuple[str, Any]:
    """``-o KEY=VALUE``: an engine option of the table, its value read as its type."""
    key, eq, val = text.partition("=")
    key = key.strip().replace("-", "_")
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    if key not in SPEC_OPTIONS:
        e = unknown(key)
        raise CliError(e.field, e.reason)
    try:
        return key, parse_text(key, val)
    except JaipurError as e:
        raise CliError(e.field, e.reason) from None


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)


# ------------------------------------------------------------------- parser
MAIN_EPILOG = f"""\
examples:
  {PROG} analyse sample
  {PROG} analyse 'V 1.0.0.00.- 0 GSMMM 40 - 555779 765 DSSPP/0/-/-.-.-.-.-.-/-.-.- 4/1/-/-.-.-.-.-.-/0.0.0' --time 2
  {PROG} play --level medium
  {PROG} match ismcts:iterations=2000 greedy --games 50 --workers 2 --seed 1
  {PROG} review game.json --plot game.png
  {PROG} bench --quick
  {PROG} web --port 0

Exit status: 0 done, 2 bad input (one line on stderr), 130 interrupted (Ctrl-C),
141 output pipe closed (e.g. '| head'), 1 any other failure.
"""

ANALYSE_EPILOG = f"""\
POSITION is one of
  - the one-line text of a state ('S ...') or of a player's view ('V ...'), quoted;
  - a path to a file holding that text or the JSON form (docs/notation.md);
  - '-' to read it from stdin;  'sample' for the sample position shipped with jaipur_ai.
A full state is analysed for the player to move from that player's view only (the
opponent's hand and the deck order are not used) unless --perfect-information is given.

examples:
  {PROG} analyse sample
  {PROG} analyse sample --iterations 20000 --seed 1 --top 3
  {PROG} analyse position.json --time 5 --threads 4
  {PROG} analyse - --json < position.txt
  {PROG} analyse sample --algorithm expectimax --time 0.5
"""

PLAY_EPILOG = f"""\
levels:
  1 .. 7, max   the rated ladder, weakest first ('jaipur-ai levels' lists each one's
                rating and ms a move; reproducible with --seed)
  easy, medium, hard   levels 3, 5 and 7
  SPEC          any engine spec, e.g. 'expectimax:time=0.5', 'ismcts:elo=1500'
                (see 'jaipur-ai match --help')

Moves are typed in the notation (take D, camels, sell 3L, swap DG for LM; case, spaces
and full names are forgiven); 'moves' lists them, 'hint' asks the engine, 'help', 'quit'.
Input is read line by line, so a game can be scripted; end of input ends it.

examples:
  {PROG} play
  {PROG} play --level hard --you 0
  printf 'moves\\nhint\\nquit\\n' | {PROG} play --level easy --seed 3
"""

MATCH_EPILOG = f"""\
engine specs: ALGORITHM[:key=value,...]
  ALGORITHM   ismcts, expectimax, pimc, ply1, greedy or random (or a level: 1 .. 7, max, easy,
              medium, hard; 'jaipur-ai levels')
  time=S      seconds per move;  iterations=N  iterations per move
  other keys  passed to jaipur_ai.Engine, e.g. playout=random, threads=2, depth=2;
              perfect_information=true lets that engine see the hidden cards (cheating)
  e.g. ismcts:time=1   ismcts:iterations=5000,playout=random   expectimax:time=0.5   greedy

Each of the --games deals is played twice, the engines swapping seats (same cards, same
player starts).  The win rate counts a draw as 1/2; its 95% interval is the Wilson score
interval, mapped to Elo for the Elo interval; the paired (pentanomial) statistics count
each deal's two games together.  With iteration limits (no time=) a match is
reproducible for its --seed, whatever --workers and --backend.  --backend ray plays the
games as Ray tasks (docs/cli.md has the cluster recipe).  --out FILE keeps every finished game
(rerun the same command to resume); --sprt elo0=0,elo1=5 stops when the sequential
test decides.

examples:
  {PROG} match ismcts:iterations=1000 greedy --games 20 --seed 1
  {PROG} match ismcts:time=1 ismcts:time=1,playout=random --games 100 --workers 4
  {PROG} match hard medium --unit match --games 10 --json > result.json
  {PROG} match ismcts:time=0.1 ismcts:time=0.1,evaluation=heuristic --sprt elo0=0,elo1=20 --out run.jsonl --workers 2
  {PROG} match ismcts:iterations=2000 greedy --games 1000 --backend ray --address 10.0.0.1:6379 --out run.jsonl
"""

REVIEW_EPILOG = f"""\
RECORD is a game record (JSON, 'jaipur-record/1') as 'match --record' and 'play --record'
write it, '-' for stdin, or 'sample' for the record shipped with jaipur_ai.  Every ply is
searched from the mover's view only.  A move is labelled by its loss in win-percentage
points: inaccuracy >= 5, mistake >= 10, blunder >= 20 (docs/review.md).

examples:
  {PROG} review game.json
  {PROG} review match.json --game 3 --iterations 5000 --plot game3.png
  {PROG} review sample --iterations 1000 --json > review.json
"""

SERVE_EPILOG = f"""\
Requests and answers are one JSON object per line; docs/protocol.md has every message.

examples:
  {PROG} serve
  {PROG} serve --threads 2 --time 0.5
  echo '{{"id": 1, "action": "version"}}' | {PROG} serve
"""

WEB_EPILOG = f"""\
Open the printed address in a browser: play a match against the engine by clicking
cards, ask for hints, analyse any position (the analysis updates while the engine
thinks), set up a position in the editor, and review a finished game.  The page
and its scripts ship in the package; nothing is fetched from the network.
docs/web.md describes every screen and the JSON API.

examples:
  {PROG} web                      # http://127.0.0.1:{DEFAULT_PORT}/
  {PROG} web --port 0             # any free port (the address is printed)
  {PROG} web --level hard --hint ismcts:time=1
  {PROG} web --host 0.0.0.0       # reachable from other machines (no authentication!)
"""

BENCH_EPILOG = f"""\
examples:
  {PROG} bench            # the figures of docs/performance.md, on this machine
  {PROG} bench --quick    # a few seconds
  {PROG} bench --json
"""


def _limit_flags(p: argparse.ArgumentParser) -> None:
    """The flags of a server's limits (jaipur_ai.doors.limits): what one request may spend."""
    g = p.add_argument_group("limits of a request (docs/protocol.md, \"Limits\")")
    metavars = {"limit_time": "S", "memory_budget": "MB", "weights_dir": "DIR"}
    for name in LIMIT_OPTIONS.values():
        o, metavar = option(name), metavars.get(name, "N")
        flag = "--" + name.replace("_", "-")
        default = "none" if o.default is None else o.default
        g.add_argument(flag, type=_flag(name, flag), default=o.default, metavar=metavar,
                       help=f"{o.doc} (default: {default})")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, formatter_class=_formatter, epilog=MAIN_EPILOG,
                description="Jaipur: exact rules, information sets, ISMCTS and "
                            "expectimax search.")
    p.add_argument("--version", action="version", version=version_text())
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                           title="commands")

    a = sub.add_parser("analyse", aliases=["analyze"],
                       help="suggest moves for the player to move (table or --json)",
                       formatter_class=_formatter, epilog=ANALYSE_EPILOG,
                       description="Analyse a position: the engine's top moves with win "
                                   "probability,\nexpected margin, visits and principal "
                                   "variation.")
    a.add_argument("position", nargs="+", metavar="POSITION",
                   help="one-line text, a file, '-' (stdin) or 'sample'")
    a.add_argument("--time", type=_flag("time", "--time"), metavar="S",
                   help=f"seconds to search (default {DEFAULT_ANALYSE_TIME:g} unless "
                        f"--iterations is given)")
    a.add_argument("--iterations", type=_flag("iterations", "--iterations"), metavar="N",
                   help="iterations to run")
    a.add_argument("--time-left", type=_flag("time_left", "--time-left"), metavar="S",
                   help="a clock instead of --time: the seconds the mover has left for the "
                        "rest of the round (UCI's wtime); the engine decides what this move "
                        "spends")
    a.add_argument("--increment", type=_flag("increment", "--increment"), metavar="S",
                   help="with --time-left: seconds added to the clock after each move "
                        "(UCI's winc)")
    a.add_argument("--algorithm", choices=ALGORITHMS, default="ismcts",
                   help="search algorithm (default ismcts)")
    a.add_argument("--top", type=_flag("top", "--top"), default=5, metavar="K",
                   help="candidate moves to show (default 5)")
    a.add_argument("--seed", type=_flag("seed", "--seed"),
                   help="search seed (default: random, printed)")
    a.add_argument("--threads", type=_flag("threads", "--threads"), default=None, metavar="T",
                   help="search threads (default 1)")
    a.add_argument("-o", "--option", type=engine_option, action="append", default=[],
                   metavar="KEY=VALUE", help="other Engine option, e.g. playout=random")
    a.add_argument("--rollouts", type=_flag("rollouts", "--rollouts"), metavar="N",
                   help=f"after the search, play its N best moves to the end of the round "
                        f"in the same sampled worlds: each one's result with its standard "
                        f"error, beside the search's values (default: {ANALYSIS_ROLLOUTS} "
                        f"when --time is {LONG_ANALYSIS:g} s or more, else none; 0: none)")
    a.add_argument("--perfect-information", action="store_true",
                   help="cheat: search the full state with the hidden cards visible "
                        "(needs a state, not a view)")
    a.add_argument("--history", metavar="FILE",
                   help="JSON file ('-': stdin) of the round's moves before the position, "
                        "[{\"position\": ..., \"move\": ...}, ...] (docs/protocol.md): the "
                        "belief weighs the opponent's hand by them")
    a.add_argument("--json", action="store_true", help="print the Analysis as JSON")
    a.set_defaults(func=cmd_analyse)

    pl = sub.add_parser("play", help="play a match against the engine in the terminal", formatter_class=_formatter,
                        epilog=PLAY_EPILOG,
                        description="Play a match (to two seals) against the engine.")
    pl.add_argument("--level", default="medium",
                    help="a level (1 to 7, max; easy, medium, hard: 'jaipur-ai levels'), "
                         "or an engine spec (default medium)")
    pl.add_argument("--seed", type=_flag("seed", "--seed"), help="seed of the deals and the engine's searches")
    pl.add_argument("--you", choices=("0", "1", "random"), default="random",
                    help="your player number (default random)")
    pl.add_argument("--hint", type=_hint_spec, default=EngineSpec.parse("ismcts:time=0.5"),
                    metavar="SPEC", help="engine used by 'hint' (default ismcts:time=0.5)")
    pl.add_argument("--record", metavar="FILE",
                    help="write the game as a JSON record (docs/ecosystem.md)")
    pl.set_defaults(func=cmd_play)

    m = sub.add_parser("match", help="engine against engine on mirrored deals, with statistics", formatter_class=_formatter,
                       epilog=MATCH_EPILOG,
                       description="Play engine A against engine B on mirrored deals.")
    m.add_argument("a", type=_engine_spec, metavar="A", help="engine spec of A")
    m.add_argument("b", type=_engine_spec, metavar="B", help="engine spec of B")
    m.add_argument("--games", type=_flag("games", "--games"), default=None, metavar="N",
                   help="deals, each played in both seats (default 10: 20 games; with "
                        "--sprt the most deals, default no limit)")
    m.add_argument("--seed", type=_flag("seed", "--seed"),
                   help="match seed (default: random, printed)")
    m.add_argument("--workers", type=_flag("workers", "--workers"), default=None, metavar="W",
                   help="games played at once (default 1; with --backend ray, the "
                        "cluster's CPUs)")
    add_backend_arguments(m)
    m.add_argument("--unit", choices=("round", "match"), default="round",
                   help="a game is one round (default) or a match to two seals")
    m.add_argument("--out", type=_flag("out", "--out"), metavar="FILE",
                   help="append each finished game to FILE (JSON lines); rerun with the "
                        "same FILE to resume, finished games are not played again")
    m.add_argument("--sprt", metavar="elo0=X,elo1=Y",
                   help="stop when the sequential test decides between H0 (A is elo0 "
                        "stronger) and H1 (elo1), on the mirrored deal pairs")
    m.add_argument("--alpha", type=_flag("alpha", "--alpha"), metavar="P",
                   help="SPRT: chance of accepting H1 when H0 holds (default 0.05)")
    m.add_argument("--beta", type=_flag("beta", "--beta"), metavar="P",
                   help="SPRT: chance of accepting H0 when H1 holds (default 0.05)")
    m.add_argument("--json", action="store_true", help="print the result as JSON")
    m.add_argument("--luck", action="store_true",
                   help="also report the luck-adjusted score: each draw's luck taken out "
                        "of each game (rounds only; docs/strength.md)")
    m.add_argument("-q", "--quiet", action="store_true", help="no progress bar on stderr")
    m.add_argument("--record", metavar="FILE",
                   help="write every game as a JSON record (docs/ecosystem.md)")
    m.set_defaults(func=cmd_match)

    rv = sub.add_parser("review", help="every move of a recorded game judged, with a summary",
                        formatter_class=_formatter, epilog=REVIEW_EPILOG,
                        description="Review a recorded game: for every ply the best move found, "
                                    "the mover's win\nprobability with it and with the move "
                                    "played, the loss and a label.")
    rv.add_argument("record", metavar="RECORD", help="a record file, '-' (stdin) or 'sample'")
    rv.add_argument("--game", type=_flag("game", "--game"), default=0, metavar="N",
                    help="which game of the record, counted from 0 (default 0)")
    limit = rv.add_mutually_exclusive_group()
    limit.add_argument("--iterations", type=_flag("iterations", "--iterations"), metavar="N",
                       help="iterations per ply (default 3000)")
    limit.add_argument("--time", type=_flag("time", "--time"), metavar="S",
                       help="seconds per ply (not reproducible)")
    rv.add_argument("--seed", type=_flag("seed", "--seed"), default=0,
                    help="seed of the review's searches (default 0)")
    rv.add_argument("--algorithm", choices=("ismcts", "expectimax"), default="ismcts",
                    help="search algorithm (default ismcts)")
    rv.add_argument("--threads", type=_flag("threads", "--threads"), default=None, metavar="T",
                    help="search threads (default 1)")
    rv.add_argument("-o", "--option", type=engine_option, action="append", default=[],
                    metavar="KEY=VALUE", help="other Engine option, e.g. exploration=1")
    rv.add_argument("--json", action="store_true",
                    help="print the review as JSON (docs/review.md has the layout)")
    rv.add_argument("--plot", metavar="FILE.png",
                    help="draw the win probabilities with the labelled moves marked "
                         "(needs the plot extra: matplotlib)")
    rv.add_argument("--annotate", metavar="FILE.json",
                    help="write the record with the review as notes on the moves (labels, "
                         "evaluations, the best move; docs/ecosystem.md)")
    rv.add_argument("-q", "--quiet", action="store_true", help="no progress bar on stderr")
    rv.set_defaults(func=cmd_review)

    b = sub.add_parser("bench", help="speed of the rules core and of the search", formatter_class=_formatter,
                       epilog=BENCH_EPILOG,
                       description="Rules core vs the pure-Python reference, and ISMCTS "
                                   "iterations per second.")
    b.add_argument("--quick", action="store_true", help="short runs (a few seconds)")
    b.add_argument("--json", action="store_true", help="print the figures as JSON")
    b.set_defaults(func=cmd_bench)

    sv = sub.add_parser("serve", help="JSON-lines server on stdin/stdout (docs/protocol.md)",
                        formatter_class=_formatter, epilog=SERVE_EPILOG,
                        description="Serve the engine over stdin/stdout, one JSON object per "
                                    "line (docs/protocol.md).")
    sv.add_argument("--algorithm", default="ismcts", type=_flag("algorithm", "--algorithm"),
                    metavar="A",
                    help="search of requests that name none: "
                         f"{', '.join(ENGINE_ALGORITHMS)} (default: ismcts)")
    sv.add_argument("--threads", type=_flag("threads", "--threads"), default=1, metavar="N",
                    help="search threads of requests that name none (default: 1)")
    sv.add_argument("--time", type=_flag("time", "--time"), default=None, metavar="S",
                    help="seconds per search for requests that give neither time nor "
                         "iterations (default: the engine's own default)")
    _limit_flags(sv)
    sv.set_defaults(func=cmd_serve)
    w = sub.add_parser("web", help="play, analyse and review in the browser (docs/web.md)",
                       formatter_class=_formatter, epilog=WEB_EPILOG,
                       description="Serve the browser page and its JSON API on this machine.")
    w.add_argument("--port", type=port_number, default=DEFAULT_PORT, metavar="N",
                   help=f"port to listen on (default {DEFAULT_PORT}; 0: a free one)")
    w.add_argument("--host", default="127.0.0.1", metavar="H",
                   help="address to bind (default 127.0.0.1: this machine only)")
    w.add_argument("--level", default="medium",
                   help="the engine of new games that choose none: a level (1 to 7, max; "
                        "easy, medium, hard) or an engine spec (default medium)")
    w.add_argument("--hint", type=_hint_spec, default=EngineSpec.parse("ismcts:time=0.5"),
                   metavar="SPEC",
                   help="the engine of hints (default ismcts:time=0.5)")
    w.add_argument("--threads", type=_flag("threads", "--threads"), default=1, metavar="N",
                   help="search threads of analyses that name none (default 1)")
    w.add_argument("--verbose", action="store_true", help="log every request on stderr")
    _limit_flags(w)
    w.set_defaults(func=cmd_web)
    from jaipur_ai.learning.pipeline import add_commands as _add_learning_commands
    _add_learning_commands(sub, _formatter, _flag)
    from jaipur_ai.doors.rate import add_command as _add_rate_command
    _add_rate_command(sub, _formatter, _flag)
    from jaipur_ai.doors.levels import add_command as _add_levels_command
    _add_levels_command(sub, _formatter, _flag)
    v = sub.add_parser("version", help="print the version", formatter_class=_formatter)
    v.set_defaults(func=cmd_version)
    return p


def _error(field: str, reason: str) -> None:
    msg = f"{field}: {reason}" if field else reason
    msg = " ".join(msg.split())  # one line
    sys.stderr.write(f"{PROG}: error: {msg}\n")
    sys.stderr.flush()


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(args_list)
        except SystemExit as e:  # --help, --version
            return int(e.code or 0) if not isinstance(e.code, str) else 2
        if getattr(args, "func", None) is None:
            raise CliError("command", "missing: one of analyse, play, match, review, bench, "
                                      "serve, web, version (see 'jaipur-ai --help')")
        return int(args.func(args) or 0)
    except CliError as e:
        _error(e.field, e.reason)
        return e.code
    except JaipurError as e:
        _error(flag_of(e), e.reason)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{PROG}: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        try:  # the reader went away (| head): stop quietly
            sys.stdout = open(os.devnull, "w")
        except OSError:  # pragma: no cover
            pass
        return 141
    except ValueError as e:  # bad input met below the library's typed errors
        _error("input", str(e) or type(e).__name__)
        return EXIT_BAD_INPUT
    except Exception as e:  # noqa: BLE001 - a bug: one line, the traceback on request
        if os.environ.get("JAIPUR_AI_DEBUG"):
            raise
        _error("internal error", f"{type(e).__name__}: {e} (set JAIPUR_AI_DEBUG=1 for the "
                                 f"traceback)")
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The commands of ``jaipur-ai`` (analyse, play, match, review, bench, version, serve,
web): what each does with its parsed arguments, and the errors they report
(:class:`CliError`).  :mod:`jaipur_ai.doors.cli` parses the command line and calls them."""
from __future__ import annotations

import argparse
import errno
import json
import os
import re
import stat
import sys
import threading
from contextlib import redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, Union

from jaipur_ai._version import __version__
from jaipur_ai.search.rollouts import ANALYSIS_ROLLOUTS, LONG_ANALYSIS
from jaipur_ai.search._table import format_analysis
from jaipur_ai.matches.backends import BackendError
from jaipur_ai.errors import InvalidOptionError, JaipurError, MissingExtraError
from jaipur_ai.doors.progress import Progress, SearchProgress
from jaipur_ai.doors.limits import limits_of
from jaipur_ai.options import check_clock
from jaipur_ai.doors.play import Game
from jaipur_ai.matches.runner import format_result, run_match
from jaipur_ai.matches.spec import LEVELS, EngineSpec
from jaipur_ai.doors.requests import SAMPLE_PATH, RequestError, read_request_history
from jaipur_ai.doors.stdio import serve_stdio
from jaipur_ai.rules.position import GameState
from jaipur_ai.rules.position import View, read_position

if TYPE_CHECKING:
    from jaipur_ai.doors.play import RecordingGameType

__all__ = ["CliError", "load_position", "load_history", "SAMPLE_PATH", "SAMPLE_RECORD",
           "EXIT_BAD_INPUT", "EXIT_INTERRUPTED", "PROG"]

PROG = "jaipur-ai"
SAMPLE_RECORD = Path(__file__).resolve().parents[1] / "data" / "sample-record.json"
ALGORITHMS = ("ismcts", "expectimax", "pimc", "greedy", "random", "ply1")
DEFAULT_ANALYSE_TIME = 1.0
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

Position = Union[GameState, View]


class CliError(Exception):
    """A failure to report as ``jaipur-ai: error: <field>: <reason>``."""

    def __init__(self, field: str, reason: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(f"{field}: {reason}" if field else reason)
        self.field = field
        self.reason = reason
        self.code = code


def flag_of(e: JaipurError) -> str:
    """The field of an error, named as the flag that set it for the backend's errors
    (``--backend``: Ray missing or failing; ``--address``: a cluster not reached)."""
    if isinstance(e, (BackendError, MissingExtraError)) and e.field in ("backend", "address"):
        return "--" + e.field
    return e.field


# ------------------------------------------------------------------- input files
#: The most a position, a history or a record read from a file or stdin may hold (bytes):
#: a position is about 1.5 kB, a history of 1,000 moves about 2 MB.
MAX_POSITION_BYTES = 1 << 20
MAX_HISTORY_BYTES = 16 << 20
MAX_RECORD_BYTES = 64 << 20


def read_input(path: str, field: str, limit: int, stdin: Any = None) -> str:
    """The text of the file ``path`` (``-``: stdin) for the argument ``field``: a
    regular file only (a FIFO or a device would block or never end), at most ``limit``
    bytes, UTF-8 (a leading byte-order mark, as some editors save, is dropped, as serve
    and the web do); CliError naming ``field`` otherwise."""
    if path == "-":
        text = (stdin or sys.stdin).read(limit + 1)
        if len(text) > limit:
            raise CliError(field, f"stdin holds more than {limit:,} bytes")
        return str(text).removeprefix("\ufeff")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise CliError(field, f"no such file: {path!r}") from None
    except OSError as e:
        raise CliError(field, f"cannot read {path!r}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise CliError(field, f"{path!r} is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise CliError(field, f"{path!r} is not a regular file (a FIFO, device or socket): "
                              "give a file, or '-' for stdin")
    if st.st_size > limit:
        raise CliError(field, f"{path!r} holds {st.st_size:,} bytes, more than the "
                              f"{limit:,} it can take")
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read(limit + 1)
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(field, f"cannot read {path!r}: {e}") from None
    if len(text) > limit:
        raise CliError(field, f"{path!r} holds more than {limit:,} bytes")
    return text


# ------------------------------------------------------------------- positions
def load_position(arg: Union[str, Sequence[str]], stdin: Any = None) -> Position:
    """A state or a view from the POSITION argument: one-line text (``S ...`` or
    ``V ...``, its words may come as separate arguments), JSON text, a path to a
    JSON or text file, ``-`` for stdin, or ``sample``."""
    text = arg if isinstance(arg, str) else " ".join(arg)
    text = text.strip()
    if text == "-":
        text = read_input("-", "position", MAX_POSITION_BYTES, stdin)
        where = "stdin"
    elif text.lower() == "sample":
        if os.path.exists(text):
            sys.stderr.write(f"{PROG}: note: 'sample' is the built-in sample position, not "
                             f"the file {text!r} here (write ./{text} for the file)\n")
        text = SAMPLE_PATH.read_text()
        where = str(SAMPLE_PATH)
    elif text.startswith("{") or re.match(r"[SV]\s", text):
        where = ""
    elif os.path.lexists(text):
        path = text
        text = read_input(path, "position", MAX_POSITION_BYTES)
        where = path
    else:
        if "/" in text or os.sep in text or re.search(r"\.(json|txt)$", text, re.I):
            raise CliError("position", f"no such file: {text!r}")
        raise CliError("position", f"{text!r} is neither a file nor a position (give the one-line "
                                   f"'S ...' or 'V ...' text, JSON, a file, '-' for stdin, "
                                   f"or 'sample')")
    body = text.strip()
    if not body.startswith("{"):
        lines = [ln.strip() for ln in body.splitlines()
                 if ln.strip() and not ln.lstrip().startswith("#")]
        if not lines:
            raise CliError("position", f"{where or 'the input'} holds no position")
        body = lines[0]
    try:
        return read_position(body)
    except JaipurError as e:
        raise CliError("position" if e.field in ("text", "json") else e.field,
                       e.reason) from None


# ---------------------------------------------------------------- the engine
def _engine_class() -> Any:
    try:
        from jaipur_ai.search.engine import Engine
    except ImportError as e:  # pragma: no cover - only while the search is missing
        raise CliError("engine", f"the search engine is not available ({e})", 1) from None
    return Engine


def _make_engine(algorithm: str, threads: Optional[int] = None, perfect: bool = False,
                 options: Sequence[tuple[str, Any]] = ()) -> Any:
    kwargs: dict[str, Any] = dict(options)
    if "algorithm" in kwargs:
        raise CliError("--option", "the algorithm is chosen by --algorithm, not by -o")
    if threads is not None:
        kwargs["threads"] = threads
    if perfect:
        kwargs["perfect_information"] = True
    try:
        # from_options, as specs and the server build theirs: the engine's own options
        # and the fields of its settings (docs/cli.md: -o playout=random)
        return _engine_class().from_options(algorithm, **kwargs)
    except TypeError as e:
        m = re.search(r"unexpected keyword argument '(\w+)'", str(e))
        if m:
            raise CliError("--option", f"{m.group(1)!r} is not an engine option") from None
        raise CliError("engine", str(e)) from None
    except JaipurError as e:
        raise CliError(e.field, e.reason) from None
    except ValueError as e:
        raise CliError("engine", str(e)) from None


def _run_interruptibly(fn: Callable[[Any], Any]) -> tuple[Any, bool]:
    """Run ``fn(stop_event)`` in a thread; Ctrl-C sets the event (the search
    returns what it has) instead of killing it.  Returns (value, interrupted)."""
    stop = threading.Event()
    finished = threading.Event()
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(stop)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller
            box["error"] = e
        finally:
            finished.set()

    # (Event.wait, not Thread.join: a join cut short by Ctrl-C can leave the
    # thread looking finished while it still runs.)
    t = threading.Thread(target=target, name="jaipur-ai-search", daemon=True)
    t.start()
    interrupted = False
    while not finished.is_set():
        try:
            finished.wait(0.05)
        except KeyboardInterrupt:
            if interrupted:  # a second Ctrl-C: give up waiting
                raise
            interrupted = True
            stop.set()
    if "error" in box:
        raise box["error"]
    return box.get("value"), interrupted


def _report_dict(report: Any) -> dict[str, Any]:
    if hasattr(report, "to_dict"):
        return dict(report.to_dict())
    return dict(json.loads(report.to_json()))  # pragma: no cover - defensive


def load_history(path: str, pos: Position) -> Optional[list[Any]]:
    """The moves of the round before ``pos`` from a JSON file (``-``: stdin): the list
    of ``{"position", "move"}`` objects of the serve protocol's ``history``
    (docs/protocol.md), read and checked by the same code."""
    text = read_input(path, "--history", MAX_HISTORY_BYTES)
    try:
        value = json.loads(text)
    except ValueError as e:
        raise CliError("--history", f"{path!r} is not JSON: {e}") from None
    try:
        return read_request_history(value, pos)
    except (RequestError, JaipurError) as e:
        raise CliError(str(e.field), e.reason) from None


# ------------------------------------------------------------------- analyse
def cmd_analyse(args: argparse.Namespace) -> int:
    pos = load_position(args.position)
    perfect = args.perfect_information
    if perfect and not isinstance(pos, GameState):
        raise CliError("--perfect-information",
                       "needs a full state (hidden cards included), not a player's view")
    if pos.is_round_over:
        raise CliError("position", f"the round is over ({_result_text(pos.result)}): "
                                   f"no move to analyse")
    notes = []
    if isinstance(pos, View):
        if pos.to_move != pos.observer:
            raise CliError("position", f"it is player {pos.to_move}'s turn but this is player "
                                       f"{pos.observer}'s view: only the player to move has "
                                       f"moves to analyse")
        target: Position = pos
        shown: Position = pos
    elif perfect:
        target, shown = pos, pos
        notes.append(f"Perfect-information mode: player {pos.to_move}'s moves are analysed "
                     f"with every hidden card visible (this is cheating).")
    else:
        target = shown = pos.view(pos.to_move)
        notes.append(f"Full state given: analysing for player {pos.to_move} (to move) from "
                     f"that player's view only; the hidden cards are not used.")
    if args.history == "-" and " ".join(args.position).strip() == "-":
        raise CliError("--history", "the position is read from stdin: give the history "
                                    "as a file")
    history = None if args.history is None else load_history(args.history, pos)
    t, n = args.time, args.iterations
    options = list(args.option)
    if args.rollouts is not None:
        options.append(("rollouts", args.rollouts))
    elif (t is not None and t >= LONG_ANALYSIS and not perfect and args.algorithm in
          ("ismcts", "expectimax", "pimc") and "rollouts" not in dict(options)
          and not dict(options).get("perfect_information")):
        options.append(("rollouts", ANALYSIS_ROLLOUTS))     # a long analysis rolls out
    engine = _make_engine(args.algorithm, args.threads, perfect, options)
    try:
        time_left, increment = check_clock(args.time_left, args.increment, t)
    except JaipurError as e:
        raise CliError("--" + e.field.replace("_", "-"), e.reason) from None
    if t is None and n is None and time_left is None and args.algorithm in ("ismcts",
                                                                           "expectimax", "pimc"):
        t = DEFAULT_ANALYSE_TIME

    # the board at once, then (on a terminal) the search as it goes; --json: the
    # analysis alone, at the end
    live = None if args.json else SearchProgress(sys.stdout)
    if not args.json:
        print(shown)
        for note in notes:
            print(note)
        print(flush=True)

    def search(stop: threading.Event) -> Any:
        progress = {} if live is None or not live.live else \
            {"on_progress": live, "report_every": 0.25}
        return engine.analyse(target, time=t, iterations=n, top=args.top, seed=args.seed,
                              stop_event=stop, history=history, time_left=time_left,
                              increment=increment, **progress)

    try:
        report, interrupted = _run_interruptibly(search)
    except JaipurError as e:
        raise CliError(e.field, e.reason) from None
    except ValueError as e:
        raise CliError("analyse", str(e)) from None
    finally:
        if live is not None:
            live.close()
    if args.json:
        print(json.dumps(_report_dict(report), indent=2))
    else:
        print(format_analysis(report, args.top))
        if report.best is None and not interrupted:
            # nothing was searched (--iterations 0): say what would be played
            greedy = _make_engine("greedy").best_move(target, seed=report.seed)
            print(f"(nothing was searched: the greedy engine would play {greedy})")
        if interrupted:
            print("(interrupted: the search was stopped early; the figures above are what it "
                  "had found)")
    return EXIT_INTERRUPTED if interrupted else 0


def _result_text(r: Any) -> str:
    return "drawn" if r == "draw" else f"won by player {r}"


# ---------------------------------------------------------------------- play
def _level_spec(level: str) -> EngineSpec:
    if level.strip().isdigit() and level.strip() not in LEVELS:
        # (a bare number here is a level: an unknown one is not read as iterations)
        from jaipur_ai.search.levels import unknown_level
        raise CliError("--level", f"{unknown_level(level.strip()).reason}; "
                                  f"N iterations: ismcts:iterations=N")
    try:
        spec = EngineSpec.parse(level)
    except InvalidOptionError as e:
        raise CliError("--level", f"{level!r}: {e}") from None
    except JaipurError as e:
        raise CliError("--level", f"{level!r} is not a level ({', '.join(LEVELS)}) or an "
                                  f"engine spec: {e.reason}") from None
    try:
        spec.make_engine()        # its weights file read and checked now, not mid-game
    except JaipurError as e:
        raise CliError("--level", f"{level!r}: {e}") from None
    return spec


def cmd_play(args: argparse.Namespace) -> int:
    game: Game
    recording: Optional[RecordingGameType] = None
    if args.record:
        _check_writable(args.record, "--record")      # before the game, not after it
        from jaipur_ai.doors.play import recording_game
        game = recording = recording_game()(_level_spec(args.level), args.hint,
                                            seed=args.seed, you=args.you)
    else:
        game = Game(_level_spec(args.level), args.hint, seed=args.seed, you=args.you)
    try:
        return game.run()
    except KeyboardInterrupt:
        print("\ninterrupted: the game is left unfinished.", flush=True)
        return EXIT_INTERRUPTED
    finally:
        if recording is not None:
            _save_record(recording.record(), args.record, "the game above is not saved")


def _save_record(record: Any, path: str, lost: str) -> None:
    """Write a record at the end of a command; CliError (exit status 1) saying where it
    could not go, once the results are shown."""
    try:
        record.save(path)
    except OSError as e:
        raise CliError("--record", f"cannot write {path!r}: {e.strerror or e} ({lost})",
                       1) from None


# --------------------------------------------------------------------- match
def cmd_match(args: argparse.Namespace) -> int:
    from jaipur_ai.options import MAX_GAMES
    from jaipur_ai.matches.sprt import parse_sprt
    sprt = None
    if args.sprt is not None:
        try:
            sprt = parse_sprt(args.sprt, alpha=args.alpha, beta=args.beta)
        except JaipurError as e:
            raise CliError("--sprt", e.reason) from None
    elif args.alpha is not None or args.beta is not None:
        raise CliError("--alpha", "--alpha and --beta are settings of --sprt")
    games = args.games if args.games is not None else (MAX_GAMES if sprt else 10)
    if args.luck and args.unit != "round":      # (before the match, not after it)
        raise CliError("--luck", "luck is adjusted for games of one round (--unit round)")
    if args.record:
        _check_writable(args.record, "--record")      # before the match, not after it
    progress = Progress(2 * games, not args.quiet, open_ended=sprt is not None)
    try:
        # stdout is the report's alone: Ray prints its workers' deaths to stdout
        with redirect_stdout(sys.stderr):
            res = run_match(args.a, args.b, games=games, seed=args.seed,
                            workers=args.workers, unit=args.unit, on_result=progress,
                            out=args.out, sprt=sprt, backend=args.backend,
                            address=args.address)
    except JaipurError as e:
        raise CliError(flag_of(e), e.reason) from None
    finally:
        progress.close()
    luck = None
    if args.luck and res.records:
        from jaipur_ai.matches.luck import format_luck, luck_summary
        luck = luck_summary(res.records)
    if args.json:
        print(res.to_json(indent=2) if luck is None else
              json.dumps({**json.loads(res.to_json(indent=None)), "luck": luck}, indent=2))
    else:
        print(format_result(res) + ("" if luck is None else "\n" + format_luck(luck)))
    if args.record:
        from jaipur_ai.matches.record import GameRecord
        _save_record(GameRecord.from_match(res), args.record,
                     "the games of the match above are not saved")
    return EXIT_INTERRUPTED if res.interrupted else 0


# -------------------------------------------------------------------- review
def _load_record(arg: str, stdin: Any = None) -> Any:
    """A game record from a file, ``-`` (stdin) or ``sample`` (the shipped one)."""
    from jaipur_ai.matches.record import GameRecord
    if arg.lower() == "sample" and not os.path.exists(arg):
        text = SAMPLE_RECORD.read_text(encoding="utf-8")
    else:
        text = read_input(arg, "record", MAX_RECORD_BYTES, stdin)
    return GameRecord.from_json(text)


def _check_writable(path: str, flag: str) -> None:
    """CliError unless ``path`` names a file that can be made: not a folder, in a folder
    that exists (checked before a long search, which would otherwise be lost)."""
    folder = os.path.dirname(path) or "."
    if not path:
        raise CliError(flag, "expected a file name")
    if os.path.isdir(path):
        raise CliError(flag, f"cannot write {path!r}: a folder, not a file name")
    if not os.path.isdir(folder):
        raise CliError(flag, f"cannot write {path!r}: no such folder {folder!r}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise CliError(flag, f"cannot write {path!r}: the folder {folder!r} is not writable")


def cmd_review(args: argparse.Namespace) -> int:
    from jaipur_ai.doors import _review_plot
    from jaipur_ai.doors.review import review_game
    if args.plot is not None:            # before the long part: a missing extra fails now
        try:
            _review_plot.check_path(args.plot, "--plot")
            _review_plot.require_matplotlib("--plot")
        except JaipurError as e:
            raise CliError(e.field, e.reason) from None
    if args.annotate is not None:        # likewise: no review is searched for nothing
        _check_writable(args.annotate, "--annotate")
    record = _load_record(args.record)
    engine = _make_engine(args.algorithm, args.threads, False, args.option)
    bar = Progress(0, not args.quiet, unit="plies")

    def run(stop: threading.Event) -> Any:
        return review_game(record, game=args.game, iterations=args.iterations, time=args.time,
                           seed=args.seed, engine=engine, progress=bar.plies, stop_event=stop)

    try:
        review, interrupted = _run_interruptibly(run)
    finally:
        bar.close()
    if args.plot is not None:
        try:
            review.plot(args.plot)
        except JaipurError as e:
            raise CliError("--plot", e.reason) from None
        except (OSError, ValueError) as e:
            raise CliError("--plot", f"cannot write {args.plot!r}: {e}") from None
    if args.annotate is not None:
        try:
            review.annotated(record).save(args.annotate)
        except OSError as e:
            raise CliError("--annotate", f"cannot write {args.annotate!r}: {e}") from None
    print(review.to_json(indent=2) if args.json else str(review))
    return EXIT_INTERRUPTED if interrupted or not review.complete else 0


# --------------------------------------------------------------------- bench
def cmd_bench(args: argparse.Namespace) -> int:
    from jaipur_ai.doors import _bench
    out: dict[str, Any] = {"quick": args.quick, "version": __version__}

    def progress(text: str) -> None:      # on stderr: the full run takes minutes
        if not args.quick:
            sys.stderr.write(f"{PROG} bench: {text}\n")
            sys.stderr.flush()
    if args.quick:
        rules = _bench.rules_report(core_rounds=2000, ref_rounds=10, repeat=1)
    else:
        progress("rules core: random rounds, compiled and reference")
        rules = _bench.rules_report()
    out["rules"] = rules
    if not args.json:
        print("Rules core: uniformly random full rounds (one core, median of runs)")
        print(_bench.format_rules_report(rules))
        print()
    out["search"] = _bench.search_report(quick=args.quick, progress=progress)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print("Search speed")
        print(_bench.format_search_report(out["search"]))
    return 0


# ------------------------------------------------------------------ version
def version_text() -> str:
    import platform
    try:
        import numpy
        np_v = numpy.__version__
    except ImportError:  # pragma: no cover
        np_v = "?"
    return f"{PROG} {__version__} (Python {platform.python_version()}, numpy {np_v})"


def cmd_version(args: argparse.Namespace) -> int:
    print(version_text())
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        limits = limits_of(args)
        return int(serve_stdio(algorithm=args.algorithm, threads=args.threads,
                               time=args.time, limits=limits) or 0)
    except JaipurError as e:
        raise CliError(f"--{e.field.replace('_', '-')}", e.reason) from None


def port_number(text: str) -> int:
    t = text.strip()
    if not t.isdigit() or not 0 <= int(t) <= 65535:
        raise CliError("--port", f"expected a port number 0..65535 (0: a free one), got "
                                 f"{text[:40]!r}")
    return int(t)


def cmd_web(args: argparse.Namespace) -> int:
    from jaipur_ai.doors import web
    try:
        app = web.WebApp(level=_level_spec(args.level), hint=args.hint, threads=args.threads,
                         limits=limits_of(args))
    except RequestError as e:
        raise CliError(f"--{e.field}", e.reason) from None
    try:
        return web.run(app, host=args.host, port=args.port, verbose=args.verbose)
    except OSError as e:   # the port is taken, the host is not this machine's, ...
        raise CliError("--port" if e.errno in (errno.EADDRINUSE, errno.EACCES) else "--host",
                       f"cannot listen on {args.host}:{args.port}: "
                       f"{e.strerror or e}") from None

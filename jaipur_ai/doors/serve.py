"""``jaipur-ai serve``: the engine as a child process speaking JSON lines.

A frontend (web, mobile, a bot) starts ``jaipur-ai serve`` and writes one JSON
object per line to its stdin; the server answers with one JSON object per line
on its stdout, flushed after each line.  docs/protocol.md describes every
message; in short::

    -> {"id": 1, "position": "S 1.0.0.00.- ...", "iterations": 2000, "seed": 7}
    <- {"id": 1, "action": "analyse", "candidates": [...], ..., "final": true}

* Searches run in worker threads (the compiled search releases the GIL), so
  several requests can be in flight; the reader keeps reading, which is how
  ``terminate`` and ``quit`` reach a running search.
* Partial results (``"final": false``) come every ``report_every`` seconds
  when a request asks for them; the last answer to a search has
  ``"final": true``.
* Bad input of any kind gets an ``error`` answer and the server keeps serving;
  unknown request fields are ignored.  Nothing but protocol lines ever goes to
  stdout (``print`` is sent to stderr while serving).

>>> import io
>>> out = io.StringIO()
>>> Server(io.StringIO('{"id": "v", "action": "version"}\\n'), out).run()
0
>>> json.loads(out.getvalue())["protocol"]
2
"""
from __future__ import annotations

import logging
import io
import json
import sys
import threading
import traceback
from typing import Any, Optional, Union

from jaipur_ai._version import __version__
from jaipur_ai.doors.requests import (Position, RequestError, as_state, error_body,
                                      integer_field, json_error_reason, json_safe, option_field,
                                      read_request_history, read_request_position,
                                      reject_constant, required_field, salvage_id,
                                      scalar_id, write_position)
from jaipur_ai.doors.limits import Budget, Limits
from jaipur_ai.errors import (InvalidOptionError, InvalidPositionError, InvalidWeightsError,
                              JaipurError)
from jaipur_ai.options import ALGORITHMS, SPEC_OPTIONS, check, check_clock, option, reads
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import STATE_FORMAT
from jaipur_ai.rules.position import VIEW_FORMAT, View
from jaipur_ai.search.clock import TimePlan, plan_for
from jaipur_ai.search.levels import level_limits

__all__ = ["Server", "PROTOCOL_VERSION", "ACTIONS", "MAX_LINE"]

log = logging.getLogger(__name__)

#: The longest request line read (bytes): a history of 1,000 positions in JSON is
#: about 2 MB.
MAX_LINE = 16 << 20

#: Bumped only for changes that break old frontends; adding actions, request
#: fields or response fields does not bump it.
PROTOCOL_VERSION = 2


# --------------------------------------------------------------------------- the engine
def _engine_module() -> Any:
    try:
        from jaipur_ai.search import engine
    except ImportError as e:  # pragma: no cover - only while the search is being built
        raise RequestError(None, f"the search engine is not available: {e}",
                           "EngineUnavailableError") from None
    return engine


# Request fields that belong to the protocol or to analyse(), never to Engine().
_ANALYSE_FIELDS = {"id", "action", "position", "time", "iterations", "top", "seed",
                   "report_every", "history", "time_left", "increment"}


class _Job:
    """One search in flight."""

    __slots__ = ("token", "rid", "key", "stop", "lock", "done", "thread", "terminated")

    def __init__(self, token: int, rid: Any) -> None:
        self.token = token
        self.rid = rid
        self.key = _id_key(rid)
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.done = False
        self.thread: Optional[threading.Thread] = None
        self.terminated = False


def _id_key(rid: Any) -> str:
    # JSON text of the id: 1 and true and "1" are different ids.
    return json.dumps(rid, sort_keys=True)


# --------------------------------------------------------------------------- the server
ACTIONS: dict[str, dict[str, Any]] = {
    "analyse": {
        "fields": ["position", "history", "time", "time_left", "increment", "iterations",
                   "top", "seed", "algorithm", "threads", "report_every", "<engine options>"],
        "description": "search the position; partial answers every report_every seconds "
                       "(final: false), then the final answer (final: true)",
    },
    "legal_moves": {"fields": ["position"],
                    "description": "the legal moves of the player to move, canonical text "
                                   "and action ids"},
    "apply": {"fields": ["position", "move"],
              "description": "the state after the move, in the form the position came in"},
    "view": {"fields": ["position", "player"],
             "description": "the player's view of a full state, in the form the state came in"},
    "result": {"fields": ["position"],
               "description": "a round's totals, winner and seals"},
    "terminate": {"fields": ["id"],
                  "description": "end the searches with this id early; each still gets its "
                                 "final answer"},
    "quit": {"fields": [],
             "description": "end every search (each gets its final answer), then exit"},
    "version": {"fields": [], "description": "the library and protocol versions"},
    "help": {"fields": [], "description": "this list of actions"},
    "actions": {"fields": [], "description": "this list of actions (same as help)"},
}
_ALIASES = {"analyze": "analyse", "legal-moves": "legal_moves", "legalmoves": "legal_moves"}


class Server:
    """The JSON-lines engine protocol over two streams.

    ``infile`` yields request lines (a text or binary stream); answers go to
    ``outfile`` (text or binary), one line each, flushed.  ``run()`` serves
    until ``quit`` or end of input and returns the exit status (0).

    ``algorithm``, ``threads`` and ``time`` are the defaults of requests that do
    not name them (``time`` only when a request gives neither ``time`` nor
    ``iterations``).  ``limits`` bound what a request may spend
    (:class:`jaipur_ai.doors.limits.Limits`; default: its safe defaults), counted in
    ``budget`` with the searches of other servers that share it (the web API's).
    """

    def __init__(self, infile: Any, outfile: Any, *, algorithm: str = "ismcts", threads: int = 1,
                 time: Optional[float] = None, log: Any = None,
                 limits: Optional[Limits] = None, budget: Optional[Budget] = None) -> None:
        self.infile = infile
        self.outfile = outfile
        # the defaults are options of the one table too: checked here, once
        self.algorithm = check("algorithm", algorithm)
        self.threads = check("threads", threads)
        self.default_time = check("time", time)
        self.limits = limits if limits is not None else Limits()
        self.budget = budget if budget is not None else Budget(self.limits)
        if self.threads > self.limits.max_threads:
            raise InvalidOptionError("threads", f"{self.threads}, more than the server's limit "
                                                f"of {self.limits.max_threads} (--limit-threads)")
        if self.default_time is not None and self.default_time > self.limits.max_time:
            # else every request that names no time would be refused for a time it never sent
            raise InvalidOptionError("time", f"{self.default_time:g} seconds, more than the "
                                             f"server's limit of {self.limits.max_time:g} "
                                             "(--limit-time)")
        self.log = log if log is not None else sys.stderr
        self._binary_out = not isinstance(outfile, io.TextIOBase)
        self._write_lock = threading.Lock()
        self._jobs_lock = threading.Lock()
        self._jobs: dict[int, _Job] = {}
        self._next_token = 0
        self._broken = False

    # ------------------------------------------------------------ output
    def send(self, msg: dict[str, Any]) -> None:
        """Write one answer line (thread-safe; lines never interleave)."""
        try:
            line = json.dumps(msg, allow_nan=False)
        except ValueError:
            line = json.dumps(json_safe(msg), allow_nan=False)
        except TypeError as e:  # something that is not JSON: an internal error
            self._log_exception(e)
            line = json.dumps(json_safe({"id": msg.get("id"), "error": error_body(e)}))
        data = line + "\n"
        with self._write_lock:
            if self._broken:
                return
            try:
                self.outfile.write(data.encode("utf-8") if self._binary_out else data)
                self.outfile.flush()
            except (OSError, ValueError):
                # the frontend went away: stop every search and stop serving
                self._broken = True
                for job in list(self._jobs.values()):  # (a snapshot; no lock needed)
                    job.stop.set()

    def frontend_gone(self) -> None:
        """The frontend went away (stdout is closed): stop every search and stop serving."""
        with self._write_lock:
            self._broken = True
        for job in list(self._jobs.values()):  # (a snapshot; no lock needed)
            job.stop.set()

    def _send_error(self, rid: Any, exc: BaseException, action: Optional[str] = None,
                    where: str = "") -> None:
        msg: dict[str, Any] = {"id": rid}
        if action is not None:
            msg["action"] = action
        msg["error"] = error_body(exc, where)
        self.send(msg)

    def _log_exception(self, exc: BaseException) -> None:
        try:
            log.error("internal error while serving", exc_info=exc)
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=self.log)
            self.log.flush()
        except Exception:  # pragma: no cover - a broken stderr must not stop the server
            pass

    # ------------------------------------------------------------ main loop
    def run(self) -> int:
        """Serve until ``quit`` (searches in flight are terminated and answered)
        or end of input (searches in flight finish first).  Returns 0."""
        try:
            while not self._broken:
                raw = self.infile.readline()
                if not raw:
                    break
                if self.handle_line(raw) == "quit":
                    return 0
            self.wait()
            return 0
        except KeyboardInterrupt:
            self.terminate_all()
            self.wait()
            return 130

    def handle_line(self, raw: Union[str, bytes]) -> Optional[str]:
        """Serve one request line; returns "quit" after a quit request."""
        rid: Any = None
        action: Optional[str] = None
        try:
            if len(raw) > MAX_LINE:
                rid = salvage_id(raw[:4096].decode("utf-8", "replace")
                                 if isinstance(raw, bytes) else raw[:4096])
                raise RequestError(None, f"a request line holds at most {MAX_LINE:,} bytes; "
                                         "this one is longer (the rest of it was skipped)")
            if isinstance(raw, bytes):
                try:
                    raw = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise RequestError(None, f"the line is not UTF-8: {e}") from None
            line = raw.strip().lstrip("\ufeff")
            if not line:
                return None
            try:
                req = json.loads(line, parse_constant=reject_constant)
            except (ValueError, RecursionError) as e:
                rid = salvage_id(line)
                raise RequestError(None, json_error_reason(e)) from None
            if not isinstance(req, dict):
                raise RequestError(None, "a request is a JSON object, got "
                                         f"{type(req).__name__ if req is not None else 'null'}")
            rid = scalar_id(req)
            a = req.get("action", "analyse")
            if a is None:
                a = "analyse"
            if not isinstance(a, str):
                raise RequestError("action", f"expected a string, got {a!r}")
            a = _ALIASES.get(a.strip().lower(), a.strip().lower())
            if a not in ACTIONS:
                raise RequestError("action", f"unknown action {a!r} (known: "
                                             f"{', '.join(sorted(ACTIONS))})")
            action = a
            return self._dispatch(action, rid, req)
        except _PositionError as e:
            self._send_error(rid, e.exc, action, where="position")
        except (RequestError, JaipurError) as e:
            self._send_error(rid, e, action)
        except Exception as e:  # an internal error: an answer, never a traceback on stdout
            self._log_exception(e)
            self._send_error(rid, e, action)
        return None

    def _dispatch(self, action: str, rid: Any, req: dict[str, Any]) -> Optional[str]:
        if action == "analyse":
            self._start_analyse(rid, req)
        elif action == "terminate":
            self.terminate(rid)  # answers inside, before the final answers it causes
        elif action == "quit":
            self.terminate_all()
            self.wait()
            self.send({"id": rid, "action": "quit"})
            return "quit"
        else:
            body = getattr(self, "_do_" + action)(req)
            self.send({"id": rid, "action": action, **body})
        return None

    # ------------------------------------------------------------ no-search actions
    def _position(self, req: dict[str, Any]) -> tuple[Position, str]:
        value = required_field(req, "position")
        try:
            return read_request_position(value)
        except JaipurError as e:
            raise _PositionError(e) from None

    def _do_legal_moves(self, req: dict[str, Any]) -> dict[str, Any]:
        pos, _ = self._position(req)
        try:
            moves = pos.legal_moves()
        except JaipurError as e:
            raise _PositionError(e) from None
        return {"to_move": pos.to_move, "moves": [str(m) for m in moves],
                "action_ids": [m.action_id for m in moves]}

    def _do_apply(self, req: dict[str, Any]) -> dict[str, Any]:
        pos, form = self._position(req)
        state = as_state(pos, "apply")
        move = Move.coerce(required_field(req, "move"))
        after = state.apply(move)
        return {"move": str(move), "action_id": move.action_id,
                "position": write_position(after, form), "to_move": after.to_move,
                "result": after.result, "round_over": after.is_round_over,
                "seals": list(after.seals), "match_over": after.is_match_over}

    def _do_view(self, req: dict[str, Any]) -> dict[str, Any]:
        pos, form = self._position(req)
        state = as_state(pos, "view")
        required_field(req, "player")
        player = integer_field(req, "player", 0, 1)
        assert player is not None                     # (required above)
        return {"player": player, "position": write_position(state.view(player), form)}

    def _do_result(self, req: dict[str, Any]) -> dict[str, Any]:
        pos, _ = self._position(req)
        state = as_state(pos, "result")
        over = state.is_round_over
        return {"round_over": over, "result": state.result,
                "totals": list(state.round_totals()),
                "winner": state.round_winner() if over else None,
                "seals": list(state.seals), "match_over": state.is_match_over,
                "match_winner": state.match_winner, "round": state.round}

    def _do_version(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"name": "jaipur_ai", "version": __version__, "protocol": PROTOCOL_VERSION,
                "formats": [STATE_FORMAT, VIEW_FORMAT], "algorithms": list(ALGORITHMS),
                "default_algorithm": self.algorithm, "default_threads": self.threads,
                "actions": sorted(ACTIONS), "limits": self.limits.public()}

    def _do_help(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"protocol": PROTOCOL_VERSION,
                "actions": {k: dict(v) for k, v in ACTIONS.items()}}

    _do_actions = _do_help

    # ------------------------------------------------------------ searches
    def _start_analyse(self, rid: Any, req: dict[str, Any]) -> None:
        pos, _ = self._position(req)
        if pos.is_round_over:
            raise _PositionError(InvalidPositionError(
                "result", "the round is over: there is no move to search"))
        if isinstance(pos, View) and pos.to_move != pos.observer:
            raise _PositionError(InvalidPositionError(
                "to_move", "it is the opponent's turn: search the view of the player to move"))
        limits = {k: option_field(req, k) for k in ("time", "iterations", "top", "seed",
                                                     "time_left", "increment")}
        if "top" not in req:          # absent: the table's default; null: all (as in Python)
            limits["top"] = option("top").default
        limits["time_left"], limits["increment"] = check_clock(
            limits["time_left"], limits["increment"], limits["time"])
        plan = None if limits["time_left"] is None else plan_for(
            pos, limits["time_left"], limits["increment"])
        if plan is None:              # (an engine is asked about a clock only with one)
            del limits["time_left"], limits["increment"]
        level, elo = option_field(req, "level"), option_field(req, "elo")
        if limits["time"] is None and limits["iterations"] is None and plan is None and \
                (level is not None or elo is not None):
            # a level's own limit, its iterations (checked against the server's limits)
            limits["iterations"] = level_limits(level, elo)[0]
        if limits["time"] is None and limits["iterations"] is None and plan is None \
                and self.default_time:
            limits["time"] = self.default_time
        report_every = option_field(req, "report_every")
        history = read_request_history(req.get("history"), pos)
        if history is not None:
            limits["history"] = history
        engine, reserve = self._make_engine(req, limits["time"], limits["iterations"], plan)
        self.budget.admit(reserve)
        try:
            self._launch(rid, engine, pos, limits, report_every, reserve)
        except BaseException:
            self.budget.release(reserve)
            raise

    def _make_engine(self, req: dict[str, Any], time: Optional[float],
                     iterations: Optional[int], plan: Optional[TimePlan] = None
                     ) -> tuple[Any, int]:
        """The request's engine: every engine option of the one table (jaipur_ai.options)
        that the request names, checked there (other fields are ignored), within the
        server's limits (a clock's ``plan``: the longest this algorithm's search may run
        on it); and the memory its search reserves."""
        E = _engine_module()
        opts: dict[str, Any] = {"algorithm": self.algorithm, "threads": self.threads}
        for k, v in req.items():
            if k in SPEC_OPTIONS and k not in _ANALYSE_FIELDS and v is not None:
                opts[k] = option_field(req, k)
        if "weights" in opts:
            opts["weights"] = self.limits.weights_path(opts["weights"])
        if plan is not None:
            time = plan.longest(opts["algorithm"])
        nodes, reserve = self.limits.check_search(time, iterations, opts["threads"],
                                                  opts.get("max_nodes"), plan is not None)
        if reads(opts["algorithm"], "max_nodes"):   # (a tree's; refused elsewhere)
            opts["max_nodes"] = nodes
        try:
            engine = E.Engine.from_options(**opts)
        except InvalidWeightsError as e:
            if "weights" not in req:
                raise
            # the field the client sent, and its file name only: not the server's path
            raise InvalidWeightsError("weights", f"{req['weights']}: {e.reason}") from None
        # only an ISMCTS tree holds memory by the node (expectimax and greedy hold little)
        return engine, reserve if engine.algorithm == "ismcts" else 0

    def _launch(self, rid: Any, engine: Any, pos: Position, limits: dict[str, Any],
                report_every: Optional[float], reserve: int = 0) -> None:
        with self._jobs_lock:
            token = self._next_token
            self._next_token += 1
            job = _Job(token, rid)
            self._jobs[token] = job
        t = threading.Thread(target=self._search,
                             args=(job, engine, pos, limits, report_every, reserve),
                             name=f"jaipur-search-{token}", daemon=True)
        job.thread = t
        try:
            t.start()
        except RuntimeError as e:   # no thread to be had (a memory or process limit)
            with self._jobs_lock:
                self._jobs.pop(token, None)
            raise RequestError(None, f"cannot start a search now ({e}); try again when "
                                     "fewer searches are running",
                               "ResourceError") from None

    def _search(self, job: _Job, engine: Any, pos: Position, limits: dict[str, Any],
                report_every: Optional[float], reserve: int = 0) -> None:
        msg: dict[str, Any]
        # the server's --limit-time over every search, whatever limit it names
        cap = self.limits.cap(job.stop)
        try:
            kwargs = dict(limits, stop_event=job.stop)
            if report_every is not None:
                kwargs["on_progress"] = lambda a: self._partial(job, a)
                kwargs["report_every"] = report_every
            report = engine.analyse(pos, **kwargs)
            cap.close()
            body = _analysis_dict(report)
            msg = {"id": job.rid, "action": "analyse", **body,
                   "terminated": job.terminated}
            if cap.fired:                  # stopped by the server's time limit
                msg["capped"] = True
            msg["final"] = True
        except JaipurError as e:
            where = "position" if isinstance(e, InvalidPositionError) else ""
            msg = {"id": job.rid, "action": "analyse", "error": error_body(e, where)}
        except Exception as e:
            self._log_exception(e)
            msg = {"id": job.rid, "action": "analyse", "error": error_body(e)}
        finally:
            cap.close()
            self.budget.release(reserve)
        self._finish(job, msg)

    def _partial(self, job: _Job, analysis: Any) -> None:
        try:
            body = _analysis_dict(analysis)
            with job.lock:
                if job.done:
                    return
                self.send({"id": job.rid, "action": "analyse", **body, "final": False})
        except Exception as e:  # a report that fails must not end the search
            self._log_exception(e)

    def _finish(self, job: _Job, msg: dict[str, Any]) -> None:
        with self._jobs_lock:
            with job.lock:
                job.done = True
                self._jobs.pop(job.token, None)
                self.send(msg)

    def terminate(self, rid: Any) -> int:
        """End the searches in flight with id ``rid`` early; answers the
        terminate request (before their final answers) and returns how many."""
        key = _id_key(rid)
        with self._jobs_lock:
            jobs = [j for j in self._jobs.values() if j.key == key and not j.done]
            self.send({"id": rid, "action": "terminate", "terminated": len(jobs)})
            for j in jobs:
                j.terminated = True
                j.stop.set()
        return len(jobs)

    def terminate_all(self) -> int:
        with self._jobs_lock:
            jobs = list(self._jobs.values())
            for j in jobs:
                j.terminated = True
                j.stop.set()
        return len(jobs)

    def wait(self, timeout: Optional[float] = None) -> None:
        """Wait for every search in flight to send its final answer."""
        while True:
            with self._jobs_lock:
                threads = [j.thread for j in self._jobs.values() if j.thread is not None]
            if not threads:
                return
            for t in threads:
                t.join(timeout)
            if timeout is not None:
                return

    @property
    def in_flight(self) -> list[Any]:
        """Ids of the searches running now."""
        with self._jobs_lock:
            return [j.rid for j in self._jobs.values()]


def _analysis_dict(report: Any) -> dict[str, Any]:
    """``Analysis.to_dict()``, also for a search stopped before its first
    iteration (no candidates: ``"best": null``, ``"candidates": []``)."""
    try:
        return dict(report.to_dict())
    except IndexError:
        if len(report.candidates):
            raise
    # Analysis.to_dict() reads candidates[0]; an empty analysis gets the same
    # fields by hand.
    import dataclasses
    d = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)}
    d.pop("drawn", None)
    d.update(best=None, play=None, candidates=[],
             iterations_per_second=report.iterations_per_second,
             options=dict(d.get("options") or {}))
    return d


class _PositionError(Exception):
    """A JaipurError raised while reading or checking the request's position."""

    def __init__(self, exc: JaipurError) -> None:
        super().__init__(str(exc))
        self.exc = exc


# --------------------------------------------------------------------------- CLI

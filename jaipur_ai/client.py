"""A Python client of the engine protocol: drive ``jaipur-ai serve`` (or any program that
speaks docs/protocol.md) as a child process, the way python-chess drives a UCI engine.

>>> import jaipur_ai as jp
>>> from jaipur_ai.client import EngineClient
>>> with EngineClient.popen() as engine:
...     state = jp.GameState.new(seed=7, starter=0)
...     move = engine.best_move(state, iterations=500, seed=1)
...     move in state.legal_moves()
True

Every request gets its own id; a reader thread hands each answer to the request that
is waiting for it, so several searches can run at once (from several threads) and a
long one can be followed as it goes (:meth:`EngineClient.analysis`) and stopped
(:meth:`EngineClient.stop`).

The client is as strict as the Python API: a search's limits and engine options are
checked before anything is sent, by the same table and with the same
:class:`~jaipur_ai.InvalidOptionError` as :func:`jaipur_ai.analyse` (a misspelt option
is refused, not ignored), and an analysis comes back as the same
:class:`~jaipur_ai.search.analysis.Analysis`.  An error answer is raised as
:class:`EngineError`, which names the field the engine named (and is also the
library's own error type where there is one: an ``InvalidPositionError`` answer is a
:class:`jaipur_ai.InvalidPositionError`); an answer that does not follow the protocol is
an :class:`EngineProtocolError`; a dead engine is an :class:`EngineTerminated`; and no
wait is unbounded: an engine silent for ``timeout`` seconds past what the request may
take is an :class:`EngineTimeout`.
"""
from __future__ import annotations

import itertools
import json
import math
import queue
import subprocess
import sys
import threading
import time as _time
from typing import Any, Iterator, Optional, Sequence, Union

from jaipur_ai.errors import (InvalidMoveError, InvalidOptionError, InvalidPositionError,
                              InvalidWeightsError, JaipurError)
from jaipur_ai.options import (SEARCH_LIMITS, SPEC_OPTIONS, check, check_clock, describe,
                               check_engine_options, unknown)
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState, View
from jaipur_ai.search.analysis import Analysis, Candidate

__all__ = ["EngineClient", "EngineError", "EngineTerminated", "EngineTimeout",
           "EngineProtocolError", "EnginePositionError", "EngineOptionError",
           "EngineWeightsError", "SERVE_COMMAND", "DEFAULT_TIMEOUT"]

#: The command :meth:`EngineClient.popen` starts by default: this library's server.
SERVE_COMMAND = (sys.executable, "-m", "jaipur_ai", "serve")

#: Seconds the client waits for an answer beyond what the request may take (a search's
#: time, or the server's time limit); None: no bound.
DEFAULT_TIMEOUT = 30.0

Position = Union[GameState, View, str]
_END = object()          # the reader's mark that the engine's output ended
_DEFAULT: Any = object()  # a timeout argument not given: the client's


class EngineError(JaipurError):
    """An error answer of the engine: ``field`` and ``reason`` as the engine gave them,
    ``type`` its error type (``InvalidPositionError``, ``LimitError``, ...)."""

    def __init__(self, field: Optional[str], reason: str, type: str = "") -> None:
        super().__init__(field or "request", reason)
        self.type = type


class EngineTerminated(EngineError):
    """The engine process ended (or its output closed) before it answered."""


class EngineTimeout(EngineError):
    """No answer within the wait: ``timeout`` seconds past what the request may take (a
    hung engine, or a program that does not speak the protocol).  A search waited for
    is terminated."""


class EngineProtocolError(EngineError):
    """An answer that does not follow the protocol (docs/protocol.md): a line that is not
    a JSON object, or a field of the wrong type; ``field`` names the field."""


class EnginePositionError(EngineError, InvalidPositionError):
    """An ``InvalidPositionError`` answer: the position cannot be searched."""


class EngineOptionError(EngineError, InvalidOptionError):
    """A request error naming a limit or an engine option (the server's own limits:
    ``LimitError``)."""


class EngineWeightsError(EngineError, InvalidWeightsError):
    """An ``InvalidWeightsError`` answer: the weights file the request named."""


class _Malformed:
    """The reader's mark that the engine wrote a line that is not a JSON object."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class EngineClient:
    """One engine process and the requests in flight to it.  Build one with
    :meth:`popen`; close it with :meth:`quit` (or a ``with`` block).  ``timeout``:
    seconds to wait for an answer beyond what the request may take (a search's
    ``time``, ``time_left``, or the server's ``--limit-time``, which the server says in
    its ``version`` answer); ``None``: wait as long as it takes."""

    def __init__(self, process: "subprocess.Popen[bytes]",
                 timeout: Optional[float] = DEFAULT_TIMEOUT) -> None:
        self.process = process
        self.timeout = _check_timeout(timeout)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()          # writes, and the table of waiters
        self._waiting: dict[str, "queue.Queue[Any]"] = {}
        self._server_limit: Optional[float] = None  # the server's --limit-time
        self._limit_read = False
        self._reader = threading.Thread(target=self._read, name="jaipur-client-reader",
                                        daemon=True)
        self._reader.start()

    @classmethod
    def popen(cls, command: Sequence[str] = SERVE_COMMAND, *,
              timeout: Optional[float] = DEFAULT_TIMEOUT,
              **popen_args: Any) -> "EngineClient":
        """Start ``command`` (default: ``python -m jaipur_ai serve``; add flags such as
        ``--threads 2`` to it) and speak the protocol over its stdin and stdout."""
        timeout = _check_timeout(timeout)
        proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                **popen_args)
        return cls(proc, timeout)

    # ------------------------------------------------------------ requests
    def request(self, action: str, *, timeout: Any = _DEFAULT,
                **fields: Any) -> dict[str, Any]:
        """One request and its (final) answer, as the protocol's dict; EngineError for an
        error answer.  ``timeout``: the longest wait for the answer (default: the
        client's ``timeout``; None: no bound)."""
        wait = self.timeout if timeout is _DEFAULT else _check_timeout(timeout)
        return self._final(action, fields, wait)

    def analyse(self, position: Position, *, timeout: Any = _DEFAULT,
                **limits: Any) -> Analysis:
        """The analysis of ``position`` (a state, a view or its text), as
        :func:`jaipur_ai.analyse` gives it.  ``limits``: ``time``, ``iterations``,
        ``time_left``, ``increment``, ``seed``, ``top``, ``history`` and any engine
        option, checked as :func:`jaipur_ai.analyse` checks them (InvalidOptionError)
        before anything is sent.  ``timeout``: seconds to wait past what the search may
        take (default: the client's)."""
        fields = _checked(limits)
        wait = self._search_wait(fields, timeout)
        answer = self._final("analyse", dict(fields, position=_text(position)), wait)
        return _analysis_of(answer)

    def analysis(self, position: Position, report_every: float = 0.5, *,
                 timeout: Any = _DEFAULT, **limits: Any) -> Iterator[Analysis]:
        """The analysis as it goes: an :class:`Analysis` every ``report_every`` seconds,
        then the final one (the last the iterator gives).  Closing the iterator early
        stops the search."""
        fields = _checked(dict(limits, report_every=report_every))
        wait = self._search_wait(fields, timeout)
        rid = str(next(self._ids))
        answers = self._exchange("analyse", dict(fields, position=_text(position)), wait, rid)
        try:
            for answer in answers:
                yield _analysis_of(answer)
        finally:
            if rid in self._waiting:
                self.stop(rid)
                try:
                    for _ in answers:              # its final answer ends the exchange
                        pass
                except EngineError:
                    pass

    def best_move(self, position: Position, *, timeout: Any = _DEFAULT,
                  **limits: Any) -> Move:
        """The engine's move for the player to move (see :meth:`analyse`)."""
        best = self.analyse(position, timeout=timeout, **limits).play
        if best is None:
            raise EngineError("best", "the engine found no move to play")
        return best

    def stop(self, rid: Optional[str] = None) -> None:
        """End the search ``rid`` early (default: every search); each still gets its
        final answer."""
        if rid is None:
            with self._lock:
                ids = list(self._waiting)
        else:
            ids = [rid]
        for r in ids:             # the protocol's terminate names the search by its id
            self._send({"id": r, "action": "terminate"}, None)

    def version(self) -> dict[str, Any]:
        return self.request("version")

    def quit(self, timeout: float = 30.0) -> int:
        """End every search, ask the engine to quit and wait for it; its exit status."""
        try:
            self._send({"id": "quit", "action": "quit"}, None)
            if self.process.stdin is not None:
                self.process.stdin.close()
        except (OSError, ValueError, EngineError):
            pass
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def __enter__(self) -> "EngineClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.quit()

    # ------------------------------------------------------------ waits
    def _search_wait(self, fields: dict[str, Any], timeout: Any) -> Optional[float]:
        """The longest wait for a search's final answer: what it may take (its ``time``
        or clock, at most the server's time limit; with iterations only, that limit),
        plus the timeout; None when unbounded."""
        extra = self.timeout if timeout is _DEFAULT else _check_timeout(timeout)
        if extra is None:
            return None
        own = fields.get("time")
        if own is None:
            own = fields.get("time_left")
        limit = self._time_limit(extra)
        if own is None or (limit is not None and limit < own):
            own = limit
        return None if own is None else own + extra

    def _time_limit(self, wait: float) -> Optional[float]:
        """The server's time limit (``limits.max_time`` of its ``version`` answer, read
        once); None for an engine that does not say one."""
        if not self._limit_read:
            answer = self._final("version", {}, wait)
            limits = answer.get("limits")
            limit = limits.get("max_time") if isinstance(limits, dict) else None
            if isinstance(limit, (int, float)) and not isinstance(limit, bool) \
                    and math.isfinite(limit) and limit > 0:
                self._server_limit = float(limit)
            self._limit_read = True
        return self._server_limit

    # ------------------------------------------------------------ plumbing
    def _final(self, action: str, fields: dict[str, Any],
               wait: Optional[float]) -> dict[str, Any]:
        for answer in self._exchange(action, fields, wait):
            if answer.get("final", True):
                return answer
        raise EngineTerminated(None, "the engine ended before its final answer")  # pragma: no cover

    def _exchange(self, action: str, fields: dict[str, Any], wait: Optional[float],
                  rid: Optional[str] = None) -> Iterator[dict[str, Any]]:
        rid = rid or str(next(self._ids))
        box: "queue.Queue[Any]" = queue.Queue()
        with self._lock:
            self._waiting[rid] = box
        deadline = None if wait is None else _time.monotonic() + wait
        self._send({"id": rid, "action": action, **fields}, rid)
        try:
            while True:
                try:
                    answer = box.get(timeout=None if deadline is None else
                                     max(0.0, deadline - _time.monotonic()))
                except queue.Empty:
                    if action == "analyse":
                        try:
                            self._send({"id": rid, "action": "terminate"}, None)
                        except EngineError:
                            pass
                    raise EngineTimeout(None, f"no answer to {action!r} within {wait:g} "
                                              "seconds") from None
                if answer is _END:
                    raise EngineTerminated(None, "the engine ended before it answered")
                if isinstance(answer, _Malformed):
                    raise EngineProtocolError(None, answer.reason, "ProtocolError")
                if "error" in answer:
                    raise _error_of(answer["error"])
                final = answer.get("final", True)
                if not isinstance(final, bool):
                    raise _malformed("final", "true or false", final)
                yield answer
                if final:
                    return
        finally:
            with self._lock:
                self._waiting.pop(rid, None)

    def _send(self, msg: dict[str, Any], rid: Optional[str]) -> None:
        line = (json.dumps(msg) + "\n").encode()
        with self._lock:
            try:
                assert self.process.stdin is not None
                self.process.stdin.write(line)
                self.process.stdin.flush()
            except (OSError, ValueError):
                if rid is not None:
                    self._waiting.pop(rid, None)
                raise EngineTerminated(None, "the engine's input is closed") from None

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in self.process.stdout:
            if not raw.strip():
                continue
            try:
                answer = json.loads(raw)
            except ValueError:
                answer = None
            if not isinstance(answer, dict):
                # not an answer of the protocol, and no id to say whose: every request
                # waiting is told (the engine's output can no longer be trusted)
                self._tell_all(_Malformed(f"the engine wrote a line that is not a JSON "
                                          f"object: {describe(raw[:200])}"))
                continue
            with self._lock:
                box = self._waiting.get(str(answer.get("id")))
            if box is not None and answer.get("action") != "terminate":
                box.put(answer)
        self._tell_all(_END)               # the engine is gone: wake every waiter

    def _tell_all(self, mark: Any) -> None:
        with self._lock:
            boxes = list(self._waiting.values())
        for box in boxes:
            box.put(mark)


# ---------------------------------------------------------------- requests, checked
def _check_timeout(timeout: Any) -> Optional[float]:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
            or not math.isfinite(timeout) or timeout <= 0:
        raise InvalidOptionError("timeout", f"must be a number of seconds above 0, or None; "
                                            f"got {describe(timeout)}")
    return float(timeout)


def _checked(limits: dict[str, Any]) -> dict[str, Any]:
    """A search request's fields, checked as :func:`jaipur_ai.analyse` checks them and in
    the same order (the engine's options, then the limits; the one table,
    jaipur_ai.options): the same InvalidOptionError for the same mistake."""
    limit_names = set(SEARCH_LIMITS) | {"history"}
    options = {k: v for k, v in limits.items() if k not in limit_names}
    for k in options:
        if k not in SPEC_OPTIONS:
            raise unknown(k)
    out = check_engine_options(options)
    for k in ("time", "iterations"):
        if k in limits:
            out[k] = check(k, limits[k])
    if "time_left" in limits or "increment" in limits:
        time_left, increment = check_clock(limits.get("time_left"), limits.get("increment"),
                                           out.get("time"))
        out["time_left"] = time_left
        if "increment" in limits:
            out["increment"] = increment
    for k in ("top", "seed", "report_every"):
        if k in limits:
            out[k] = check(k, limits[k])
    if "history" in limits:
        out["history"] = _history(limits["history"])
    return {k: v for k, v in out.items() if v is not None or k == "top"}


def _history(history: Any) -> Any:
    """A history as the protocol takes it (``{"position", "move"}`` objects, texts) from
    the forms :meth:`jaipur_ai.Engine.analyse` takes too: ``(position, move)`` pairs of
    GameStates or Views and Moves.  What is not of these forms is sent as it is, for
    the engine to check."""
    if not isinstance(history, (list, tuple)):
        return history
    out = []
    for entry in history:
        if isinstance(entry, (list, tuple)) and len(entry) == 2:
            entry = {"position": entry[0], "move": entry[1]}
        if isinstance(entry, dict):
            entry = {k: (v.to_text() if isinstance(v, (GameState, View)) else
                         str(v) if isinstance(v, Move) else v) for k, v in entry.items()}
        out.append(entry)
    return out


def _text(position: Position) -> str:
    return position if isinstance(position, str) else position.to_text()


# ---------------------------------------------------------------- answers, checked
def _malformed(field: str, expected: str, got: Any) -> EngineProtocolError:
    return EngineProtocolError(field, f"expected {expected}, got {describe(got)}",
                               "ProtocolError")


def _error_of(err: Any) -> EngineError:
    """The typed error of an error answer's ``error`` object."""
    if not isinstance(err, dict):
        return _malformed("error", "an object", err)
    field, reason, kind = err.get("field"), err.get("reason", ""), err.get("type", "")
    if field is not None and not isinstance(field, str):
        return _malformed("error.field", "a string or null", field)
    if not isinstance(reason, str):
        return _malformed("error.reason", "a string", reason)
    if not isinstance(kind, str):
        return _malformed("error.type", "a string", kind)
    if kind == "InvalidPositionError":
        return EnginePositionError(field, reason, kind)
    if kind == "InvalidWeightsError":
        return EngineWeightsError(field, reason, kind)
    if kind in ("InvalidRequestError", "LimitError") and field is not None and \
            (field in SPEC_OPTIONS or field in SEARCH_LIMITS):
        return EngineOptionError(field, reason, kind)
    return EngineError(field, reason, kind)


def _get(d: dict[str, Any], key: str, where: str, types: tuple[type, ...],
         expected: str, optional: bool = False, default: Any = None) -> Any:
    if key not in d:
        if optional:
            return default
        raise EngineProtocolError(where + key, "missing", "ProtocolError")
    v = d[key]
    if v is None and optional:
        return default
    if isinstance(v, bool) and bool not in types:
        raise _malformed(where + key, expected, v)
    if not isinstance(v, types):
        raise _malformed(where + key, expected, v)
    if isinstance(v, float) and not math.isfinite(v):
        raise _malformed(where + key, expected, v)
    return v


def _move(text: Any, where: str) -> Move:
    if not isinstance(text, str):
        raise _malformed(where, "a move's text", text)
    try:
        return Move.parse(text)
    except InvalidMoveError as e:
        raise EngineProtocolError(where, e.reason, "ProtocolError") from None


_NUM = (int, float)


def _analysis_of(answer: dict[str, Any]) -> Analysis:
    """The :class:`Analysis` of an ``analyse`` answer, every field checked
    (EngineProtocolError naming the first that is not as the protocol says)."""
    cands = _get(answer, "candidates", "", (list,), "a list")
    out = []
    for i, c in enumerate(cands):
        w = f"candidates[{i}]."
        if not isinstance(c, dict):
            raise _malformed(w[:-1], "an object", c)
        pv = _get(c, "pv", w, (list,), "a list of moves", optional=True, default=[])
        decisive = _get(c, "decisive", w, (str,), "a string or null", optional=True)
        out.append(Candidate(
            _move(c.get("move"), w + "move"),
            _get(c, "visits", w, (int,), "a whole number"),
            _get(c, "win_probability", w, _NUM, "a number or null", optional=True),
            _get(c, "expected_margin", w, _NUM, "a number or null", optional=True),
            [_move(m, f"{w}pv[{j}]") for j, m in enumerate(pv)],
            _get(c, "score", w, _NUM, "a number or null", optional=True),
            decisive))
    best = _get(answer, "best", "", (str,), "a move's text or null", optional=True)
    if (best is None) != (not out) or (best is not None and _move(best, "best") != out[0].move):
        raise EngineProtocolError("best", f"{describe(best)} is not the first "
                                          "candidate", "ProtocolError")
    return Analysis(
        out,
        _get(answer, "algorithm", "", (str,), "a string"),
        _get(answer, "seed", "", (int,), "a whole number"),
        _get(answer, "iterations", "", (int,), "a whole number"),
        _get(answer, "determinizations", "", (int,), "a whole number"),
        float(_get(answer, "elapsed", "", _NUM, "a number")),
        threads=_get(answer, "threads", "", (int,), "a whole number", optional=True,
                     default=1),
        depth=_get(answer, "depth", "", (int,), "a whole number or null", optional=True),
        stopped=_get(answer, "stopped", "", (bool,), "true or false", optional=True,
                     default=False),
        perfect_information=_get(answer, "perfect_information", "", (bool,),
                                 "true or false", optional=True, default=False),
        legal_moves=_get(answer, "legal_moves", "", (int,), "a whole number",
                         optional=True, default=0),
        options=dict(_get(answer, "options", "", (dict,), "an object", optional=True,
                          default={})),
        clock=_get(answer, "clock", "", (dict,), "an object or null", optional=True),
        drawn=_drawn(answer, best))


def _drawn(answer: dict[str, Any], best: Optional[str]) -> Optional[Move]:
    """The ``play`` of an answer when it is not its best (a level's draw)."""
    play = _get(answer, "play", "", (str,), "a move's text or null", optional=True,
                default=best)
    if (play is None) != (best is None):
        raise EngineProtocolError("play", f"{describe(play)} with best {describe(best)}",
                                  "ProtocolError")
    return None if play is None or play == best else _move(play, "play")

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
(:meth:`EngineClient.stop`).  An error answer is raised as :class:`EngineError`, which
names the field the engine named; a dead engine is an :class:`EngineTerminated`.
"""
from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
from typing import Any, Iterator, Optional, Sequence, Union

from jaipur_ai.errors import JaipurError
from jaipur_ai.rules.move import Move
from jaipur_ai.rules.position import GameState, View

__all__ = ["EngineClient", "EngineError", "EngineTerminated", "SERVE_COMMAND"]

#: The command :meth:`EngineClient.popen` starts by default: this library's server.
SERVE_COMMAND = (sys.executable, "-m", "jaipur_ai", "serve")

Position = Union[GameState, View, str]
_END = object()          # the reader's mark that the engine's output ended


class EngineError(JaipurError):
    """An error answer of the engine: ``field`` and ``reason`` as the engine gave them,
    ``type`` its error type (``InvalidPositionError``, ``LimitError``, ...)."""

    def __init__(self, field: Optional[str], reason: str, type: str = "") -> None:
        super().__init__(field or "request", reason)
        self.type = type


class EngineTerminated(EngineError):
    """The engine process ended (or its output closed) before it answered."""


class EngineClient:
    """One engine process and the requests in flight to it.  Build one with
    :meth:`popen`; close it with :meth:`quit` (or a ``with`` block)."""

    def __init__(self, process: "subprocess.Popen[bytes]") -> None:
        self.process = process
        self._ids = itertools.count(1)
        self._lock = threading.Lock()          # writes, and the table of waiters
        self._waiting: dict[str, "queue.Queue[Any]"] = {}
        self._reader = threading.Thread(target=self._read, name="jaipur-client-reader",
                                        daemon=True)
        self._reader.start()

    @classmethod
    def popen(cls, command: Sequence[str] = SERVE_COMMAND, **popen_args: Any) -> "EngineClient":
        """Start ``command`` (default: ``python -m jaipur_ai serve``; add flags such as
        ``--threads 2`` to it) and speak the protocol over its stdin and stdout."""
        proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                **popen_args)
        return cls(proc)

    # ------------------------------------------------------------ requests
    def request(self, action: str, **fields: Any) -> dict[str, Any]:
        """One request and its (final) answer, as a dict; EngineError for an error."""
        for answer in self._exchange(action, fields):
            if answer.get("final", True):
                return answer
        raise EngineTerminated(None, "the engine ended before its final answer")  # pragma: no cover

    def analyse(self, position: Position, **limits: Any) -> dict[str, Any]:
        """The final analysis of ``position`` (a state, a view or its text): the
        protocol's answer (``best``, ``candidates``, ...).  ``limits``: ``time``,
        ``iterations``, ``seed``, ``top``, ``history`` and any engine option."""
        return self.request("analyse", position=_text(position), **limits)

    def analysis(self, position: Position, report_every: float = 0.5,
                 **limits: Any) -> Iterator[dict[str, Any]]:
        """The analysis as it goes: a partial answer every ``report_every`` seconds, then
        the final one (``"final": true``).  Closing the iterator early stops the search."""
        rid = str(next(self._ids))
        answers = self._exchange("analyse", dict(limits, position=_text(position),
                                                 report_every=report_every), rid)
        try:
            yield from answers
        finally:
            if rid in self._waiting:
                self.stop(rid)
                for _ in answers:                  # its final answer ends the exchange
                    pass

    def best_move(self, position: Position, **limits: Any) -> Move:
        """The engine's move for the player to move (see :meth:`analyse`)."""
        best = self.analyse(position, **limits).get("best")
        if best is None:
            raise EngineError("best", "the engine found no move to play")
        return Move.parse(best)

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
        except (OSError, ValueError):
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

    # ------------------------------------------------------------ plumbing
    def _exchange(self, action: str, fields: dict[str, Any],
                  rid: Optional[str] = None) -> Iterator[dict[str, Any]]:
        rid = rid or str(next(self._ids))
        box: "queue.Queue[Any]" = queue.Queue()
        with self._lock:
            self._waiting[rid] = box
        self._send({"id": rid, "action": action, **fields}, rid)
        try:
            while True:
                answer = box.get()
                if answer is _END:
                    raise EngineTerminated(None, "the engine ended before it answered")
                if "error" in answer:
                    err = answer["error"]
                    raise EngineError(err.get("field"), err.get("reason", ""),
                                      err.get("type", ""))
                yield answer
                if answer.get("final", True):
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
            try:
                answer = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(answer, dict):
                continue
            with self._lock:
                box = self._waiting.get(str(answer.get("id")))
            if box is not None and answer.get("action") != "terminate":
                box.put(answer)
        with self._lock:                  # the engine is gone: wake every waiter
            boxes = list(self._waiting.values())
        for box in boxes:
            box.put(_END)


def _text(position: Position) -> str:
    return position if isinstance(position, str) else position.to_text()

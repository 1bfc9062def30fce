"""The page and the JSON API of ``jaipur-ai web`` (docs/web.md), without sockets.

:class:`WebApp` answers one request at a time (:meth:`WebApp.handle`); jaipur_ai.doors.web
is the HTTP server around it.  The page is the folder ``jaipur_ai/webpage/`` (HTML,
CSS and JavaScript shipped in the package: no build step, nothing fetched from the
network), served as it is; the API lives under ``/api/``.  Analyses stream as
server-sent events and go through the engine protocol of ``jaipur-ai serve``
(:class:`jaipur_ai.doors.serve.Server`), so a search, its options and its errors are those of
every other door; reviews stream too (:func:`jaipur_ai.doors.review.review_game`).  Bad
requests get a JSON ``error`` (type, field, message, reason), never an exception:

>>> app = WebApp(level="greedy", hint="greedy")
>>> r = app.handle("POST", "/api/games", b'{"seed": 3, "you": 0}')
>>> r.status, r.json()["turn"], r.json()["last_engine_move"]
(200, 'you', 'take D')
>>> r = app.handle("POST", "/api/games/" + r.json()["id"] + "/move", b'{"move": "sell 9Z"}')
>>> r.status, r.json()["error"]["field"]
(400, 'move')
>>> app.handle("POST", "/api/games", b'{"you": 2}').json()["error"]["message"]
'you: expected 0, 1 or "random", got 2'
"""
from __future__ import annotations

import io
import json
import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Optional, Union

from jaipur_ai._version import __version__
from jaipur_ai.errors import JaipurError
from jaipur_ai.matches.record import GameRecord
from jaipur_ai.matches.spec import LEVELS, EngineSpec
from jaipur_ai.options import SPEC_OPTIONS, SEARCH_LIMITS, check, describe
from jaipur_ai.doors.requests import (RequestError, error_body, json_error_reason,
                                      read_request_position)
from jaipur_ai.doors.limits import Budget, Limits
from jaipur_ai.doors.serve import Server
from jaipur_ai.rules.position import View
from jaipur_ai.search.levels import levels
from jaipur_ai.doors.webgame import GameStore, WebGame

__all__ = ["WebApp", "Response", "json_response", "error_response", "PAGE_DIR",
           "ENDPOINTS"]

#: The page: every file of this folder is served at ``/<name>``, index.html at ``/``.
PAGE_DIR = Path(__file__).resolve().parent / "webpage"
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}
_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'")
_STATUS = {"ForbiddenError": 403, "NotFoundError": 404, "MethodNotAllowedError": 405,
           "ConflictError": 409, "PayloadTooLargeError": 413,
           "UnsupportedMediaTypeError": 415, "InternalError": 500, "NotImplementedError": 501}

#: method, path, body fields, answer: the JSON API (docs/web.md has it with examples).
ENDPOINTS: tuple[tuple[str, str, str, str], ...] = (
    ("GET", "/api", "", "this list, the levels and the version"),
    ("POST", "/api/games", "level, seed, you; or record (jaipur-record/1), game, round, ply",
     "a new game, or one opened from a record at a move (replayed up to it): its table "
     "(below)"),
    ("GET", "/api/games/ID", "", "the game's table: the player's view, legal moves, "
                                 "this round's moves, scores, seals, round end"),
    ("POST", "/api/games/ID/move", "move", "play the move; the engine replies; the table"),
    ("POST", "/api/games/ID/next", "", "deal the next round; the table"),
    ("POST", "/api/games/ID/hint", "", "the hint engine's top 3 moves for the player"),
    ("GET", "/api/games/ID/record", "", "the game record (jaipur-record/1)"),
    ("POST", "/api/games/ID/line", "round, ply, moves",
     "a line played out from before a move on the cards as they were: the mover's views"),
    ("POST", "/api/games/ID/review", "iterations, time, seed",
     "server-sent events: progress, then the review (jaipur-review/1) once a round is over"),
    ("POST", "/api/position", "position", "read a position: canonical text, JSON form, "
                                          "legal moves"),
    ("POST", "/api/analyse", "position, history, time, time_left, increment, iterations, "
                             "seed, top, report_every, engine options",
     "server-sent events: the serve protocol's analyse answers, the last final"),
)


# --------------------------------------------------------------------------- answers
@dataclass
class Response:
    """An answer: ``body`` (bytes), or ``stream`` (chunks of a server-sent event stream)."""

    status: int
    content_type: str = "application/json"
    body: bytes = b""
    stream: Optional[Iterator[bytes]] = None
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        return json.loads(self.body)


def json_response(obj: Any, status: int = 200) -> Response:
    return Response(status, body=json.dumps(obj, allow_nan=False).encode("utf-8"))


def error_response(exc: BaseException, where: str = "") -> Response:
    body = error_body(exc, where)
    return json_response({"error": body}, _STATUS.get(body["type"], 400))


def _sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, allow_nan=False)}\n\n".encode("utf-8")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _body(raw: bytes) -> dict[str, Any]:
    """A request body: a JSON object (empty: ``{}``)."""
    if not raw.strip():
        return {}
    try:
        req = json.loads(raw.decode("utf-8-sig"), parse_constant=_reject_constant)
    except UnicodeDecodeError as e:
        raise RequestError("body", f"not UTF-8: {e}") from None
    except (ValueError, RecursionError) as e:
        raise RequestError("body", json_error_reason(e)) from None
    if not isinstance(req, dict):
        raise RequestError("body", f"expected a JSON object, got {describe(req)}")
    return req


def _only(req: dict[str, Any], known: tuple[str, ...]) -> None:
    for k in req:
        if k not in known:
            shown = k if len(k) <= 40 else k[:37] + "..."
            raise RequestError(shown, "unknown field (known: "
                                      f"{', '.join(known) if known else 'none'})")


class _Lines(io.TextIOBase):
    """The output stream of a :class:`Server`: each answer line onto a queue of
    events, as ``(event, answer)``."""

    def __init__(self, event: str) -> None:
        super().__init__()
        self.event = event
        self.answers: "queue.Queue[tuple[str, Any]]" = queue.Queue()

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        for line in s.splitlines():
            if line.strip():
                self.answers.put((self.event, json.loads(line)))
        return len(s)


class _LogWriter(io.TextIOBase):
    """The log stream of a :class:`Server` (its tracebacks of internal errors): the
    app's log (stderr with ``jaipur-ai web --verbose``)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        super().__init__()
        self.log = log

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.log(s)
        return len(s)


# --------------------------------------------------------------------------- the app
class WebApp:
    """The page and the JSON API, without sockets: :meth:`handle` answers one request.

    ``level`` is the engine of games that name none, ``hint`` the engine of hints (both
    engine specs or level names, as for ``jaipur-ai play``); ``threads`` the search
    threads of analyses that name none; ``limits`` what a request may spend
    (:class:`jaipur_ai.doors.limits.Limits`, shared by every analysis of this app).  A
    client chooses a game's engine among the level names only (``GET /api`` lists them)."""

    def __init__(self, level: Union[str, EngineSpec] = "medium",
                 hint: Union[str, EngineSpec] = "ismcts:time=0.5", threads: int = 1,
                 limits: Optional[Limits] = None) -> None:
        self.spec = self._level(level, "level")
        self.hint_spec = self._level(hint, "hint")
        self.threads = check("threads", threads)
        self.limits = limits if limits is not None else Limits()
        self.budget = Budget(self.limits)
        if self.threads > self.limits.max_threads:
            raise RequestError("threads", f"{self.threads}, more than the server's limit of "
                                          f"{self.limits.max_threads} (--limit-threads)")
        self.games = GameStore()
        self.log: Callable[[str], None] = lambda text: None
        self._routes: dict[tuple[str, str], Callable[..., Response]] = {
            ("GET", ""): self._index, ("POST", "games"): self._new_game,
            ("GET", "game"): self._table, ("POST", "move"): self._move,
            ("POST", "next"): self._next, ("POST", "hint"): self._hint,
            ("GET", "record"): self._record, ("POST", "review"): self._review,
            ("POST", "line"): self._line,
            ("POST", "position"): self._position,
            ("POST", "analyse"): self._analyse,
        }

    @staticmethod
    def _level(text: Any, name: str) -> EngineSpec:
        if not isinstance(text, (str, EngineSpec)):
            raise RequestError(name, f"expected a level ({', '.join(LEVELS)}) or an engine "
                                     f"spec, got {describe(text)}")
        try:
            spec = EngineSpec.parse(text)
            spec.make_engine()    # its weights file read and checked at start, not per game
            if name == "hint":
                spec.fixed_limits("the hint engine")
        except JaipurError as e:
            raise RequestError(name, f"{e.field}: {e.reason}") from None
        if spec.cheats:
            raise RequestError(name, "perfect_information: the engine plays from its own "
                                     "view of the table")
        return spec

    # ------------------------------------------------------------ dispatch
    def handle(self, method: str, target: str, body: bytes = b"") -> Response:
        """Answer one request (``target`` is the request's path and query)."""
        try:
            # the request target's path (origin form): not urlsplit, which reads a
            # target starting "//" as a host and raises on "//[" (an IPv6 literal)
            path = target.split("#", 1)[0].split("?", 1)[0]
            if path != "/api" and not path.startswith("/api/"):
                return self._static(method, path)
            parts = [p for p in path[len("/api"):].split("/") if p]
            if parts[:1] == ["games"] and len(parts) in (2, 3):
                key = parts[2] if len(parts) == 3 else "game"
                if key in ("game", "move", "next", "hint", "record", "review", "line"):
                    return self._call(method, key, body, parts[1])
            elif len(parts) <= 1 and (parts or [""])[0] in ("", "games", "position",
                                                              "analyse"):
                return self._call(method, parts[0] if parts else "", body)
            raise RequestError("path", f"no such endpoint: {path[:60]!r}", "NotFoundError")
        except (RequestError, JaipurError) as e:
            return error_response(e)
        except Exception as e:  # a bug: an answer, and the traceback on the log
            import traceback
            self.log(traceback.format_exc())
            return error_response(e)

    def _call(self, method: str, key: str, body: bytes, *args: str) -> Response:
        fn = self._routes.get((method, key))
        if fn is None:
            allowed = [m for (m, k) in self._routes if k == key]
            if not allowed:
                raise RequestError("path", f"no such endpoint: {key!r}", "NotFoundError")
            raise RequestError("method", f"{method[:20]} is not allowed here (use "
                                         f"{', '.join(allowed)})", "MethodNotAllowedError")
        return fn(_body(body) if method == "POST" else {}, *args)

    def _static(self, method: str, path: str) -> Response:
        name = "index.html" if path in ("", "/") else path[1:]
        files = {p.name: p for p in PAGE_DIR.iterdir() if p.is_file()}
        if "/" in name or name not in files:
            raise RequestError("path", f"no such page: {path[:60]!r}", "NotFoundError")
        if method != "GET":
            raise RequestError("method", f"{method[:20]} is not allowed here (use GET)",
                               "MethodNotAllowedError")
        p = files[name]
        return Response(200, _TYPES.get(p.suffix, "application/octet-stream"), p.read_bytes(),
                        headers={"Content-Security-Policy": _CSP})

    # ------------------------------------------------------------ endpoints
    def _index(self, req: dict[str, Any]) -> Response:
        from jaipur_ai.doors.review import DEFAULT_ITERATIONS
        return json_response({
            "name": "jaipur_ai", "version": __version__, "levels": dict(LEVELS),
            "ladder": [lv.to_dict() for lv in levels()],
            "level": str(self.spec), "hint": str(self.hint_spec),
            "review_iterations": DEFAULT_ITERATIONS, "max_time": self.limits.max_time,
            "endpoints": [{"method": m, "path": p, "fields": f, "answer": a}
                          for m, p, f, a in ENDPOINTS]})

    def _new_game(self, req: dict[str, Any]) -> Response:
        _only(req, ("level", "seed", "you", "record", "game", "round", "ply"))
        if "record" not in req:
            for k in ("game", "round", "ply"):
                if k in req:
                    raise RequestError(k, "only with a record")
        level = req.get("level")
        if level is not None and (not isinstance(level, str) or (
                level.strip().lower() not in LEVELS and level.strip() != str(self.spec))):
            raise RequestError("level", f"one of this server's levels ({', '.join(LEVELS)}, "
                                        f"or its default {self.spec}), got {describe(level)}")
        spec = self.spec if level is None else self._level(level, "level")
        seed = check("seed", req.get("seed"))
        you = req.get("you", "random")
        if you is None:
            you = "random"
        if isinstance(you, bool) or you not in (0, 1, "random"):
            raise RequestError("you", f'expected 0, 1 or "random", got {describe(you)}')
        if "record" in req:
            if "seed" in req:
                raise RequestError("seed", "a game opened from a record has the record's seed")
            record = GameRecord.from_dict(req["record"])
            rnd = req.get("round")        # (from 1, as a review numbers rounds)
            if rnd is not None and (isinstance(rnd, bool) or not isinstance(rnd, int)
                                    or rnd < 1):
                raise RequestError("round", f"expected a round number from 1, got "
                                            f"{describe(rnd)}")
            game = WebGame.from_record(record, spec, self.hint_spec,
                                       game=req.get("game", 0),
                                       round_index=None if rnd is None else rnd - 1,
                                       ply=req.get("ply"),
                                       you=None if you == "random" else you)
        else:
            game = WebGame(spec, self.hint_spec, seed=seed, you=you)
        self.games.add(game)
        return json_response(game.table())

    def _game(self, gid: str) -> WebGame:
        return self.games.get(gid)

    def _table(self, req: dict[str, Any], gid: str) -> Response:
        # the table as of the last move, without waiting for the game's lock: readable
        # while the engine thinks (it then says "turn": "engine")
        return json_response(self._game(gid).last_table)

    def _move(self, req: dict[str, Any], gid: str) -> Response:
        _only(req, ("move",))
        game = self._game(gid)
        if req.get("move") is None:
            raise RequestError("move", "missing")
        with game.lock:
            return json_response(game.play(req["move"]))

    def _next(self, req: dict[str, Any], gid: str) -> Response:
        _only(req, ())
        game = self._game(gid)
        with game.lock:
            return json_response(game.next_round())

    def _hint(self, req: dict[str, Any], gid: str) -> Response:
        _only(req, ())
        game = self._game(gid)
        with game.lock:
            return json_response(game.hint())

    def _record(self, req: dict[str, Any], gid: str) -> Response:
        game = self._game(gid)
        with game.lock:
            return json_response(game.record().to_dict())

    def _line(self, req: dict[str, Any], gid: str) -> Response:
        _only(req, ("round", "ply", "moves"))
        game = self._game(gid)
        with game.lock:
            return json_response(game.line(req.get("round"), req.get("ply"), req.get("moves")))

    def _review(self, req: dict[str, Any], gid: str) -> Response:
        """The review of the game (jaipur_ai.doors.review), streamed: ``progress`` events
        (plies done, of all), then a ``review`` event (``GameReview.to_dict()``, ``you``
        and ``annotated_record``: the game's record with the review as notes, as JSON
        text, since its 64-bit seeds would not survive a browser's numbers);
        a search every ply, from the mover's view.  Iterations per ply:
        the request's, else the review's default."""
        _only(req, ("iterations", "time", "seed"))
        limits = {k: check(k, req.get(k)) for k in ("iterations", "time")}
        # each ply's search within the server's limits, its tree at most --limit-nodes; the
        # review counted against the searches running and their memory as an analysis is
        # (it holds one search at a time), and stopped after --limit-time as a whole
        nodes, reserve = self.limits.check_search(limits["time"], limits["iterations"],
                                                  self.threads, None)
        seed = check("seed", req.get("seed", 0))
        game = self._game(gid)
        with game.lock:
            record = game.finished_record()
        from jaipur_ai.doors.review import review_game   # (the search is loaded when first needed)
        events: "queue.Queue[tuple[str, Any]]" = queue.Queue()
        stop = threading.Event()
        self.budget.admit(reserve)
        cap = self.limits.cap(stop)

        def work() -> None:
            try:
                r = review_game(record, seed=seed, stop_event=stop, threads=self.threads,
                                max_nodes=nodes,
                                progress=lambda done, total: events.put(
                                    ("progress", {"done": done, "total": total})), **limits)
                cap.close()
                capped = {"capped": True} if cap.fired else {}
                events.put(("review", {"you": game.you, **r.to_dict(), **capped,
                                       "annotated_record": r.annotated(record).to_json()}))
            except Exception as e:  # noqa: BLE001 - every failure becomes an answer
                if not isinstance(e, JaipurError):
                    import traceback
                    self.log(traceback.format_exc())
                events.put(("error", {"error": error_body(e)}))
            finally:
                cap.close()
                self.budget.release(reserve)

        def finish() -> None:
            stop.set()
            thread.join()

        thread = threading.Thread(target=work, name="jaipur-review", daemon=True)
        try:
            thread.start()
        except RuntimeError as e:   # no thread to be had (a memory or process limit)
            cap.close()
            self.budget.release(reserve)
            raise RequestError(None, f"cannot start a review now ({e}); try again when "
                                     "fewer searches are running", "ResourceError") from None
        first = events.get()         # progress(0, n) once the record replays, or the error
        return _streamed(events, first, lambda name, data: name in ("review", "error"),
                         finish)

    def _position(self, req: dict[str, Any]) -> Response:
        _only(req, ("position",))
        if req.get("position") is None:
            raise RequestError("position", "missing")
        try:
            pos, _form = read_request_position(req["position"])
            moves = [str(m) for m in pos.legal_moves()] \
                if not isinstance(pos, View) or pos.to_move == pos.observer else []
        except JaipurError as e:
            return error_response(e, "position")
        return json_response({"kind": "view" if isinstance(pos, View) else "state",
                              "position": pos.to_text(), "json": pos.to_dict(),
                              "to_move": pos.to_move, "round_over": pos.is_round_over,
                              "legal_moves": moves})

    def _analyse(self, req: dict[str, Any]) -> Response:
        """The analysis of a position, streamed: every answer of the serve protocol's
        ``analyse`` request (partial ones every ``report_every`` seconds, default 0.25),
        each as an ``analysis`` event; the last has ``"final": true``."""
        _only(req, tuple(dict.fromkeys(("position", "history", *SEARCH_LIMITS,
                                         *SPEC_OPTIONS))))
        req = dict(req, id=1, action="analyse")
        if req.get("report_every") is None:
            req["report_every"] = 0.25
        out = _Lines("analysis")
        server = Server(io.StringIO(), out, threads=self.threads, log=_LogWriter(self.log),
                        limits=self.limits, budget=self.budget)
        server.handle_line(json.dumps(req))
        try:
            first: Optional[tuple[str, Any]] = out.answers.get_nowait()
        except queue.Empty:
            first = None

        def finish() -> None:
            server.terminate_all()
            server.wait()

        return _streamed(out.answers, first,
                         lambda name, msg: bool(msg.get("final")) or "error" in msg, finish)


# --------------------------------------------------------------------------- streams
def _streamed(events: "queue.Queue[tuple[str, Any]]", first: Optional[tuple[str, Any]],
              last: Callable[[str, Any], bool], finish: Callable[[], None]) -> Response:
    """The answer to a request whose work runs on: a JSON error when the work's first
    event is one (refused before it began), else the stream of :func:`_events`."""
    if first is not None and "error" in first[1]:
        finish()
        err = first[1]["error"]
        return json_response({"error": err}, _STATUS.get(err["type"], 400))
    return Response(200, "text/event-stream", headers={"Cache-Control": "no-store"},
                    stream=_Closing(events, first, last, finish))


class _Closing:
    """The chunks of :func:`_events`, whose ``close()`` finishes the work even when no
    chunk was read (a generator closed before its first step never runs its
    ``finally``: a page gone before the headers were sent would leave the work
    running).  ``finish`` runs once, whichever end comes first."""

    def __init__(self, events: "queue.Queue[tuple[str, Any]]",
                 first: Optional[tuple[str, Any]], last: Callable[[str, Any], bool],
                 finish: Callable[[], None]) -> None:
        self._finish = finish
        self._finished = False
        self._chunks = _events(events, first, last, self._finish_once)

    def _finish_once(self) -> None:
        if not self._finished:
            self._finished = True
            self._finish()

    def __iter__(self) -> "_Closing":
        return self

    def __next__(self) -> bytes:
        return next(self._chunks)

    def close(self) -> None:
        self._chunks.close()
        self._finish_once()


def _events(events: "queue.Queue[tuple[str, Any]]", first: Optional[tuple[str, Any]],
            last: Callable[[str, Any], bool],
            finish: Callable[[], None]) -> Generator[bytes, None, None]:
    """Server-sent events of work running on another thread: ``first`` (unless None),
    then each ``(event, data)`` of ``events``, until one for which ``last(event, data)``
    holds; a comment line every second while none comes (a write that finds the page
    gone ends the stream).  When the stream ends, done or closed because the page went
    away, ``finish()`` stops the work and waits for it: nothing is left running.

    >>> q: "queue.Queue[tuple[str, Any]]" = queue.Queue()
    >>> q.put(("done", 2))
    >>> finished = []
    >>> chunks = _events(q, ("step", 1), lambda e, d: e == "done",
    ...                  lambda: finished.append(True))
    >>> list(chunks), finished
    ([b'event: step\\ndata: 1\\n\\n', b'event: done\\ndata: 2\\n\\n'], [True])
    """
    item = first
    try:
        while True:
            if item is None:
                try:
                    item = events.get(timeout=1.0)
                except queue.Empty:
                    yield b": still working\n\n"   # (finds a page that went away)
                    continue
            yield _sse(*item)
            if last(*item):
                return
            item = None
    finally:
        finish()

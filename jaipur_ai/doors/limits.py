"""What a request to a server (``jaipur-ai serve``, ``jaipur-ai web``) may spend.

A server answers whoever writes to it, so no request may ask for an unbounded search:
one table of limits, set by the server's flags with safe defaults, bounds the time,
iterations, threads and tree of each search, how many searches run at once, and the
memory they may hold together; and a request may name a weights file only inside a
folder the server was started with.  Past a limit the request gets a typed error naming
the limit (``LimitError``), and nothing is started.  Whatever limit a request names
(iterations, nodes, a review's plies), its work is stopped once it has run
``max_time`` seconds (:meth:`Limits.cap`).

>>> from jaipur_ai.doors.limits import Limits
>>> Limits().check_search(time=1.0, iterations=None, threads=1, max_nodes=None)
(1000000, 250000000)
>>> Limits(max_time=5).check_search(time=10.0, iterations=None, threads=1, max_nodes=None)
Traceback (most recent call last):
...
jaipur_ai.doors.requests.RequestError: time: 10 seconds, more than this server's limit of 5 (--limit-time)
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any, Optional

from jaipur_ai.doors.requests import RequestError
from jaipur_ai.options import check, describe

__all__ = ["Limits", "Budget", "TimeCap", "NODE_BYTES", "LIMIT_OPTIONS", "limits_of"]

#: Memory a search may use for one tree node, with the statistics kept beside it (the
#: node pool itself takes about 53 bytes a node; the opponent's statistics by hand and
#: the pool's doubling take the rest): the bound reserved for every node a search may grow.
NODE_BYTES = 250

#: The options of ``serve`` and ``web`` that set the limits, by field (the options table;
#: the flags are their names, ``--limit-time`` and so on).
LIMIT_OPTIONS = {"max_time": "limit_time", "max_iterations": "limit_iterations",
                 "max_threads": "limit_threads", "max_nodes": "limit_nodes",
                 "max_searches": "limit_searches", "memory_mb": "memory_budget",
                 "weights_dir": "weights_dir"}


def _error(field: str, reason: str) -> RequestError:
    return RequestError(field, reason, "LimitError")


@dataclass(frozen=True)
class Limits:
    """The limits of one server; every field is an option of the table
    (:data:`LIMIT_OPTIONS` names it, ``--limit-time`` and so on)."""

    max_time: float = 60.0           #: seconds one search may run
    max_iterations: int = 10_000_000  #: iterations (ISMCTS) or nodes (expectimax) of one
    max_threads: int = 2             #: threads of one search
    max_nodes: int = 1_000_000       #: tree nodes of one thread (a request gets at most this)
    max_searches: int = 8            #: searches running at once
    memory_mb: int = 1024            #: memory the running searches may reserve together
    weights_dir: Optional[str] = None  #: the folder requests' weights files come from

    def __post_init__(self) -> None:
        for f, name in LIMIT_OPTIONS.items():
            object.__setattr__(self, f, check(name, getattr(self, f)))

    def check_search(self, time: Optional[float], iterations: Optional[int], threads: int,
                     max_nodes: Optional[int], clock: bool = False) -> tuple[int, int]:
        """(the tree nodes a thread of this search gets, the bytes it reserves), or a
        LimitError naming the request's field that asks for too much.  ``time``: the
        longest the search may run (with ``clock``, what the request's clock lets this
        move spend at most)."""
        if time is not None and time > self.max_time:
            if clock:
                raise _error("time_left", f"this clock may spend up to {time:.3g} seconds "
                                          "on this move, more than this server's limit of "
                                          f"{describe(self.max_time)} (--limit-time)")
            raise _error("time", f"{describe(time)} seconds, more than this server's limit "
                                 f"of {describe(self.max_time)} (--limit-time)")
        if time is None and iterations is not None and iterations > self.max_iterations:
            raise _error("iterations", f"{describe(iterations)}, more than this server's "
                                       f"limit of {self.max_iterations} (--limit-iterations; "
                                       "a time limit is also taken)")
        if threads > self.max_threads:
            raise _error("threads", f"{threads}, more than this server's limit of "
                                    f"{self.max_threads} (--limit-threads)")
        if max_nodes is not None and max_nodes > self.max_nodes:
            raise _error("max_nodes", f"{max_nodes}, more than this server's limit of "
                                      f"{self.max_nodes} (--limit-nodes)")
        nodes = self.max_nodes if max_nodes is None else max_nodes
        return nodes, threads * nodes * NODE_BYTES

    def public(self) -> dict[str, Any]:
        """The limits a client may know (the ``version`` answer's ``limits``): all but
        the server's weights folder."""
        return {f: getattr(self, f) for f in LIMIT_OPTIONS if f != "weights_dir"}

    def cap(self, stop: threading.Event) -> "TimeCap":
        """Sets ``stop`` (the stop_event of a request's work) once ``max_time`` seconds
        have passed, unless closed first: the server's time limit over every request,
        whatever limit the request names (an iteration limit, an endgame solve's
        positions, a review's plies)."""
        return TimeCap(self.max_time, stop)

    def weights_path(self, value: Any) -> str:
        """The file a request's ``weights`` names: a bare file name inside ``weights_dir``
        (a remote client never names a path of the server's); LimitError otherwise."""
        if self.weights_dir is None:
            raise _error("weights", "this server takes no weights files (start it with "
                                    "--weights-dir DIR to offer the files of DIR)")
        if not isinstance(value, str) or not value or os.path.basename(value) != value \
                or value in (".", "..") or "\x00" in value:
            raise _error("weights", f"a file name in the server's weights folder, got "
                                    f"{describe(value)}")
        path = os.path.join(self.weights_dir, value)
        if not os.path.isfile(path):
            raise _error("weights", f"no such file in the server's weights folder: "
                                    f"{describe(value)}")
        return path


class TimeCap:
    """A timer that sets ``stop`` after ``seconds`` (:meth:`Limits.cap`); ``fired`` says
    whether it did.  ``close()`` (or leaving a ``with`` block) cancels it.

    >>> stop = threading.Event()
    >>> with TimeCap(0.0, stop) as cap:
    ...     _ = stop.wait(10)
    >>> cap.fired, stop.is_set()
    (True, True)
    """

    def __init__(self, seconds: float, stop: threading.Event) -> None:
        self.seconds = seconds
        self.fired = False
        self._stop = stop
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.name = "jaipur-time-cap"
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        self._stop.set()

    def close(self) -> None:
        self._timer.cancel()

    def __enter__(self) -> "TimeCap":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def limits_of(values: Any) -> Limits:
    """The limits a server's parsed flags set (an object with an attribute per option of
    :data:`LIMIT_OPTIONS`, as argparse gives)."""
    return Limits(**{f: getattr(values, name) for f, name in LIMIT_OPTIONS.items()})


class Budget:
    """The searches running now against :class:`Limits`: a search is admitted only while
    fewer than ``max_searches`` run and their reserved memory fits ``memory_mb``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self.running = 0
        self.reserved = 0

    def admit(self, nbytes: int) -> None:
        """Reserve ``nbytes`` for a new search, or a LimitError naming ``search``."""
        budget = self.limits.memory_mb << 20
        with self._lock:
            if self.running >= self.limits.max_searches:
                raise _error("search", f"{self.running} searches are running, this server's "
                                       f"limit (--limit-searches): try again when one ends")
            if self.reserved + nbytes > budget:
                raise _error("search", f"the searches running hold {self.reserved >> 20} MB "
                                       f"and this one would reserve {nbytes >> 20} MB more, past "
                                       f"this server's {self.limits.memory_mb} MB "
                                       "(--memory-budget): fewer threads or nodes, or later")
            self.running += 1
            self.reserved += nbytes

    def release(self, nbytes: int) -> None:
        with self._lock:
            self.running -= 1
            self.reserved -= nbytes

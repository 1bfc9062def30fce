"""Where a match's games and self-play's shards are played: the backends.

A backend runs one function over many tasks and yields each result as soon as its
task finishes (in the order they finish, not the order given).  Two backends:

* ``local`` (the default, no extra needed): this process for one worker, else a pool
  of ``workers`` processes on this machine;
* ``ray``: every task is a Ray task on a Ray cluster (``pip install "jaipur-ai[ray]"``;
  docs/cli.md has the cluster recipe).  ``workers`` tasks are in flight at once
  (default: the cluster's CPUs); a task whose worker process dies is run again by Ray
  (``max_retries``), so its result still comes back, and once.

The tasks are made as they are needed, never all at once (a match of a million deals
holds a few tasks in memory, not a million).  What a task computes must depend on the
task alone, never on the process or the machine that runs it: the callers seed every
game and shard from the task's own numbers, so both backends give the same results.

>>> backend = make_backend("local", workers=1)
>>> sorted(backend.map(abs, [-2, 3, -1]))
[1, 2, 3]
>>> make_backend("cluster")
Traceback (most recent call last):
...
jaipur_ai.errors.InvalidOptionError: backend: must be one of local, ray, got "cluster"

Stopping early: ``should_stop()`` is asked between results (and, while waiting, about
20 times a second); when it returns true, or the caller stops reading (``close()`` on
the iterator, a ``break`` in a ``with closing(...)`` block) or Ctrl-C arrives, the tasks
still running are cancelled and the worker processes the backend started are ended.
"""
from __future__ import annotations

import importlib
import itertools
import logging
import re
import signal
from collections import deque
from typing import Any, Callable, Generator, Iterable, Iterator, Optional, TypeVar

from jaipur_ai.errors import JaipurError, MissingExtraError
from jaipur_ai.options import check, describe, parse_text

__all__ = ["BACKENDS", "Backend", "LocalBackend", "RayBackend", "BackendError",
           "make_backend", "add_arguments", "RAY_MAX_RETRIES"]

BACKENDS = ("local", "ray")

#: Times Ray runs a task again after its worker process died (then the run fails).
RAY_MAX_RETRIES = 3

_POLL = 0.05          # seconds between looks at should_stop() while waiting

T = TypeVar("T")
R = TypeVar("R")


class BackendError(JaipurError):
    """A backend that cannot be used: an address given to the local backend or one
    that cannot be reached (field ``address``), a task that failed on every try
    (``backend``).  Ray missing is a :class:`~jaipur_ai.errors.MissingExtraError`
    (field ``backend``)."""


class Backend:
    """The interface: :meth:`map` yields ``fn(task)`` for each task as it finishes.

    ``fn`` is sent to other processes: a module-level function for the local pool
    (sent by name; Ray also takes a closure, sent by value), and the tasks and results
    plain picklable data."""

    name = "?"

    def __init__(self, workers: Optional[int] = None) -> None:
        self.workers = None if workers is None else check("workers", workers)

    def map(self, fn: Callable[[T], R], tasks: Iterable[T],
            should_stop: Optional[Callable[[], bool]] = None) -> Generator[R, None, None]:
        raise NotImplementedError

    def start(self) -> None:
        """Get ready before the first task (Ray: import it, start or join the cluster),
        so that a backend that cannot run fails before any work is done."""

    def for_tasks(self, n: int) -> "Backend":
        """The backend to run ``n`` tasks with: this one (a local pool is cut down to
        at most ``n`` processes, so that a short run starts no idle workers)."""
        return self


def _stopped(should_stop: Optional[Callable[[], bool]]) -> bool:
    return should_stop is not None and bool(should_stop())


# ------------------------------------------------------------------------ local
def _worker_init() -> None:  # pragma: no cover - runs in the worker processes
    # Ctrl-C is the parent's business: it stops the pool and reports.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalBackend(Backend):
    """This process (``workers=1``, the default) or a pool of ``workers`` processes.

    >>> list(LocalBackend().map(str, [1, 2]))
    ['1', '2']
    """

    name = "local"

    def __init__(self, workers: Optional[int] = None) -> None:
        super().__init__(1 if workers is None else workers)

    def for_tasks(self, n: int) -> "LocalBackend":
        return LocalBackend(max(1, min(self.workers or 1, n)))

    def map(self, fn: Callable[[T], R], tasks: Iterable[T],
            should_stop: Optional[Callable[[], bool]] = None) -> Generator[R, None, None]:
        if self.workers == 1:
            for t in tasks:
                if _stopped(should_stop):
                    return
                yield fn(t)
            return
        yield from self._pool(fn, iter(tasks), should_stop)

    def _pool(self, fn: Callable[[T], R], tasks: Iterator[T],
              should_stop: Optional[Callable[[], bool]]) -> Generator[R, None, None]:
        import multiprocessing as mp
        workers = int(self.workers or 1)
        pool = mp.get_context().Pool(workers, initializer=_worker_init)
        pending: deque[Any] = deque(pool.apply_async(fn, (t,))
                               for t in itertools.islice(tasks, 4 * workers))
        finished = False
        try:
            while pending:
                if _stopped(should_stop):
                    return
                ready = next((r for r in pending if r.ready()), None)
                if ready is None:
                    pending[0].wait(_POLL)
                    continue
                pending.remove(ready)
                result = ready.get()
                nxt = next(tasks, None)
                if nxt is not None:
                    pending.append(pool.apply_async(fn, (nxt,)))
                yield result
            finished = True
        finally:
            if finished:
                pool.close()
            else:                      # stopped, interrupted, or the reader went away
                pool.terminate()
            pool.join()


# -------------------------------------------------------------------------- ray
_ADDRESS = re.compile(r"(auto|local|(ray://)?[A-Za-z0-9._\-\[\]:]+:[0-9]{1,5})")


def _check_address(address: Any) -> Optional[str]:
    if address is None:
        return None
    if isinstance(address, str) and len(address) <= 200 and _ADDRESS.fullmatch(address.strip()):
        return address.strip()
    raise BackendError("address", "expected HOST:PORT of the Ray head (e.g. 10.0.0.1:6379), "
                                  f"ray://HOST:PORT or auto, got {describe(address)}")


def _import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError as e:
        raise MissingExtraError("backend", "ray is not installed: pip install "
                                           f"\"jaipur-ai[ray]\" ({e})") from None


class RayBackend(Backend):
    """Ray tasks, ``workers`` in flight at once (default: the cluster's CPUs).

    ``address``: the cluster to connect to (``HOST:PORT`` of ``ray start --head``,
    ``ray://HOST:PORT``, ``auto``); ``None``: Ray's own default, the cluster that
    ``ray start`` runs on this machine if there is one, else a Ray instance started
    for this process.  A Ray already initialised in this process is used as it is
    (and left running).
    Every node needs the same jaipur_ai installed: the tasks import it there."""

    name = "ray"

    def __init__(self, workers: Optional[int] = None, address: Optional[str] = None,
                 max_retries: int = RAY_MAX_RETRIES) -> None:
        super().__init__(workers)
        self.address = _check_address(address)
        self.max_retries = int(max_retries)
        self._ray: Any = _import_ray()         # missing: an error now, before any work
        self._connected = False

    def start(self) -> None:
        self.connect()

    def connect(self) -> Any:
        """Start or join the cluster (once); returns the ``ray`` module."""
        ray = self._ray
        if self._connected:
            return ray
        if not ray.is_initialized():
            kw: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.ERROR}
            if self.address is None:
                kw["include_dashboard"] = False
            try:
                ray.init(address=self.address, **kw)
            except (ConnectionError, TimeoutError, RuntimeError, ValueError) as e:
                where = self.address or "this machine"
                hint = ("" if self.address is None else
                        " (is the head running, and has this machine the cluster's token? "
                        "docs/cli.md, 'A Ray cluster')")
                raise BackendError("address", f"cannot start or reach Ray at {where}: "
                                              f"{' '.join(str(e).split())[:300]}{hint}") from None
        if self.workers is None:
            cpus = int(ray.cluster_resources().get("CPU", 1))
            self.workers = check("workers", max(1, min(cpus, 256)))
        self._connected = True
        return ray

    def remote_function(self, fn: Callable[[T], R]) -> Any:
        """``fn`` as a Ray remote function: one CPU, rerun up to ``max_retries`` times
        when its worker dies (an exception raised by ``fn`` itself is not retried)."""
        ray = self.connect()
        return ray.remote(num_cpus=1, max_retries=self.max_retries,
                          retry_exceptions=False)(fn)

    def map(self, fn: Callable[[T], R], tasks: Iterable[T],
            should_stop: Optional[Callable[[], bool]] = None) -> Generator[R, None, None]:
        ray = self.connect()
        remote = self.remote_function(fn)
        tasks = iter(tasks)
        pending = [remote.remote(t) for t in itertools.islice(tasks, int(self.workers or 1))]
        try:
            while pending:
                if _stopped(should_stop):
                    return
                ready, pending = ray.wait(pending, num_returns=1, timeout=_POLL)
                for ref in ready:
                    result = self._get(ray, ref)
                    nxt = next(tasks, None)
                    if nxt is not None:
                        pending.append(remote.remote(nxt))
                    yield result
        finally:
            for ref in pending:        # stopped, interrupted, or the reader went away
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001 - finished meanwhile, or already gone
                    pass

    def _get(self, ray: Any, ref: Any) -> Any:
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as e:
            cause = e.cause if isinstance(getattr(e, "cause", None), BaseException) else None
            if isinstance(cause, (JaipurError, KeyboardInterrupt)):
                raise cause from None          # the task's own typed error, as is
            raise
        except ray.exceptions.RayError as e:   # workers died on every try, node lost, ...
            died = tuple(getattr(ray.exceptions, n) for n in ("WorkerCrashedError",
                                                              "NodeDiedError")
                         if hasattr(ray.exceptions, n))
            what = (f"its worker died on each of {self.max_retries + 1} tries"
                    if isinstance(e, died) else "it failed")
            raise BackendError("backend", f"a Ray task could not be run, {what}: "
                                          f"{type(e).__name__}: "
                                          f"{' '.join(str(e).split())[:300]}") from None


def make_backend(name: Any = "local", workers: Optional[int] = None,
                 address: Optional[str] = None) -> Backend:
    """The backend called ``name`` (``local`` or ``ray``); ``address`` is Ray's only.
    Ray is imported here, only for its backend (a :class:`BackendError` naming the
    extra to install when it is missing); the cluster is joined by ``start()``."""
    if isinstance(name, Backend):
        return name
    name = check("backend", name)          # the table's check (jaipur_ai.options)
    if name == "ray":
        return RayBackend(workers, address)
    if address is not None:
        raise BackendError("address", "only with the ray backend (--backend ray)")
    return LocalBackend(workers)


# ------------------------------------------------------------------ the flags
def _backend_flag(text: str) -> str:
    import argparse
    try:
        return str(parse_text("backend", text))
    except JaipurError as e:
        raise argparse.ArgumentTypeError(e.reason) from None


def _address_flag(text: str) -> str:
    import argparse
    try:
        return str(_check_address(text))
    except JaipurError as e:
        raise argparse.ArgumentTypeError(e.reason) from None


def add_arguments(parser: Any) -> None:
    """``--backend`` and ``--address``, the same for every command that has them
    (``match``, ``selfplay``, ``learn``)."""
    parser.add_argument("--backend", type=_backend_flag, default="local", metavar="NAME",
                        help="where the work runs: local (processes here, the default) or "
                             "ray (Ray tasks; pip install \"jaipur-ai[ray]\")")
    parser.add_argument("--address", type=_address_flag, default=None, metavar="HOST:PORT",
                        help="with --backend ray: the Ray cluster's head (ray start --head "
                             "prints it) or auto; default: start Ray on this machine")

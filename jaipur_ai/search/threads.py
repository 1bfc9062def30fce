"""Running compiled searches (which release the GIL) in threads while this thread
watches for a stop: the one loop the tree searches, PIMC's worlds and the exact
endgame's depths share."""
from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

__all__ = ["run_threads", "POLL"]

POLL = 0.02      # seconds between looks at the caller's stop while a search runs


def run_threads(jobs: Sequence[Callable[..., Any]], call: Any) -> None:
    """Run the callables in threads (they release the GIL), looking every :data:`POLL`
    seconds whether ``call`` (a :class:`jaipur_ai.search.drive.Call`) was stopped, and
    stopping it then.  The first error a callable raised is raised here.

    On KeyboardInterrupt the searches are stopped and joined before re-raising."""
    errors = []

    def wrap(fn: Callable[[], None]) -> Any:
        def run() -> None:
            try:
                fn()
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)
        return run

    threads = [threading.Thread(target=wrap(fn), daemon=True) for fn in jobs]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(POLL)
                if call.stopped():
                    call.stop()
    except BaseException:
        call.stop()
        for t in threads:
            t.join()
        raise
    if errors:
        raise errors[0]

"""Helpers for the tests that start the command line in a child process."""
from __future__ import annotations

import signal


def default_sigint() -> None:
    """``preexec_fn`` of a child that must stop on Ctrl-C as a shell gives it, whatever
    this test process inherited.  A child started with SIGINT ignored keeps it ignored,
    and Ctrl-C would do nothing; a shell script starts its background jobs (``pytest &``)
    that way."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

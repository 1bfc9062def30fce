"""How the learning commands report their progress: to the ``jaipur_ai`` logger, and to
stderr when not quiet.  Called from Python, ``learn``, ``improve``, ``calibrate`` and
``selfplay`` are quiet by default (they only log); the CLI shows their progress unless
``-q``."""
from __future__ import annotations

import logging
import sys

__all__ = ["say"]

log = logging.getLogger("jaipur_ai.learning")   # (the commands of this layer share it)


def say(msg: str, quiet: bool) -> None:
    """Log ``msg``; write it to stderr too unless ``quiet``."""
    log.info("%s", msg)
    if not quiet:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

"""How the learning commands report their progress: to the ``jaipur_ai`` logger, and to
stderr unless asked to be quiet (the library itself never prints to stdout)."""
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

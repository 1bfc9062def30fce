"""The progress bar on stderr of the long commands (``match``, ``rate``: games, with A's
results; ``review``: plies): redrawn in place on a terminal, one line per tenth
otherwise."""
from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["Progress"]


class Progress:
    """The progress bar on stderr of ``match`` (games, with A's results) and ``review``
    (plies): redrawn in place on a terminal, one line per tenth otherwise."""

    def __init__(self, total: int, enabled: bool, open_ended: bool = False,
                 unit: str = "games") -> None:
        self.total = total
        self.open_ended = open_ended
        self.enabled = enabled
        self.unit = unit
        self.tty = sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self.w = self.d = self.l = 0
        self.step = -1
        self.new = 0             # games played (plies reviewed) by this run
        self.done = 0

    def __call__(self, rec: Any, done: int, total: int) -> None:
        """A match's ``on_result``."""
        self.w += rec.winner == "A"
        self.d += rec.winner == "draw"
        self.l += rec.winner == "B"
        self.new += 1
        self.show(done, total, f"A: {self.w} W {self.d} D {self.l} L")

    def plies(self, done: int, total: int) -> None:
        """A review's ``progress``."""
        self.total, self.new = total, done
        self.show(done, total)

    def show(self, done: int, total: int, middle: str = "") -> None:
        self.done = done
        if not self.enabled or total <= 0:
            return
        width = 24
        fill = width * done // total
        elapsed = time.perf_counter() - self.t0
        rate = self.new / elapsed if elapsed > 0 else 0.0
        mid = f"  {middle}" if middle else ""
        if self.open_ended:                           # --sprt: no known end
            text = f"{done} {self.unit}{mid}  {elapsed:.0f} s"
        else:
            text = (f"[{'#' * fill}{'-' * (width - fill)}] {done}/{total} {self.unit}{mid}  "
                    f"{elapsed:.0f} s")
            if self.new:
                left = (total - done) / rate if rate > 0 else 0.0
                text += f"  {rate:.2f} {self.unit}/s, ~{left:.0f} s left"
        if self.tty:
            sys.stderr.write("\r" + text + ("\n" if done == total else ""))
            sys.stderr.flush()
        else:
            step = 10 * done // total if not self.open_ended else done // 100
            if step != self.step:
                self.step = step
                sys.stderr.write(text + "\n")
                sys.stderr.flush()

    def close(self) -> None:
        if self.enabled and self.tty and 0 < self.new and self.done < self.total:
            sys.stderr.write("\n")
            sys.stderr.flush()

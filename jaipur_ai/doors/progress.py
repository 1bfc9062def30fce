"""The progress bar on stderr of the long commands (``match``, ``rate``: games, with A's
results; ``review``: plies): redrawn in place on a terminal, one line per tenth
otherwise; and the live line of ``analyse`` on a terminal (:class:`SearchProgress`)."""
from __future__ import annotations

import sys
import time
from typing import Any, Optional, TextIO

__all__ = ["Progress", "SearchProgress"]


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


class SearchProgress:
    """``jaipur-ai analyse`` on a terminal: the search as it goes on one line of
    ``stream``, rewritten in place (as a chess engine's info lines: the iterations or
    the depth, the time, the best move so far with its win probability and margin),
    erased when the search ends; nothing when ``stream`` is not a terminal, so what is
    piped or redirected is unchanged.  ``__call__`` is the search's ``on_progress``."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        try:
            self.live = self.stream.isatty()
        except (AttributeError, ValueError):
            self.live = False
        self.shown = False

    def __call__(self, analysis: Any) -> None:
        if not self.live:
            return
        what = (f"depth {analysis.depth}" if analysis.depth is not None
                else f"{analysis.iterations:,} iterations")
        text = f"searching: {what}, {analysis.elapsed:.1f} s"
        ro = getattr(analysis, "rollouts", None)
        if ro is not None and analysis.candidates and analysis.candidates[0].rollout:
            # the rollouts' ranking as it firms up (docs/search.md, "Rollouts: a second opinion")
            c = analysis.candidates[0]
            text = (f"rolling out: {ro.worlds:,} worlds, {c.move} "
                    f"{c.rollout.win_probability:.1%} ±{c.rollout.se:.1%}"
                    + (", settled" if ro.settled else ""))
        elif analysis.candidates:
            c = analysis.candidates[0]
            text += f", best {c.move}"
            if c.win_probability is not None:
                text += f" ({c.win_probability:.1%} to win"
                if c.expected_margin is not None:
                    text += f", {c.expected_margin:+.1f} points"
                text += ")"
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """Erase the line (before the result is printed)."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False

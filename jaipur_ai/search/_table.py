"""The table of an analysis: what ``print(analysis)`` and ``jaipur-ai analyse`` show.

One row per candidate move, best first: the move, the win probability, the expected
margin, the visits (ISMCTS) or sampled worlds (expectimax) with thousands separators,
greedy's score when there is one, the rollouts when the engine made them (win %
with its standard error, and the difference from the first move's with the standard
error of that difference, in points), and the principal variation (the line of play
expected after the move, starting with it); then one line of totals.  docs/cli.md
shows it.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from jaipur_ai.search.clock import STOPS

__all__ = ["format_analysis"]


def _fmt_float(x: Any, fmt: str, none: str = "-") -> str:
    if x is None:
        return none
    try:
        return format(float(x), fmt)
    except (TypeError, ValueError):
        return str(x)


def _pv_text(pv: Any, limit: int = 8) -> str:
    if not pv:
        return "-"
    items = [str(m) for m in pv]
    more = len(items) > limit
    return ", ".join(items[:limit]) + (", ..." if more else "")


def _rollout_cells(r: Any) -> list[str]:
    """A candidate's rollout win % with its standard error, and its difference from
    the first candidate's (the search's best) with that difference's standard error
    (points)."""
    if r is None:
        return ["-", "-"]
    win = f"{100 * r.win_probability:.1f}% ±{100 * r.se:.1f}"
    if r.diff == 0.0 and r.diff_se == 0.0:
        return [win, "-"]
    return [win, f"{100 * r.diff:+.1f} ±{100 * r.diff_se:.1f}"]


def format_analysis(report: Any, top: Optional[int] = None) -> str:
    """The table of ``report``'s candidates (the first ``top`` of them, or all)
    and its totals line: an :class:`jaipur_ai.Analysis`, or anything with its
    attributes."""
    cands = list(getattr(report, "candidates", []) or [])
    if top is not None:
        cands = cands[:top]
    algo = getattr(report, "algorithm", "?")
    counts = algo in ("ismcts", "expectimax", "pimc")
    scores = any(getattr(c, "score", None) is not None for c in cands)
    head = ["#", "move", "win", "margin", "visits" if algo != "expectimax" else "worlds"]
    if scores:
        head.append("score")
    rolled = any(getattr(c, "rollout", None) is not None for c in cands)
    if rolled:
        head += ["rollout", "vs #1"]
    head.append("principal variation")
    rows = []
    for i, c in enumerate(cands, 1):
        win = getattr(c, "win_probability", None)
        visits = getattr(c, "visits", None)
        row = [str(i), str(getattr(c, "move", "?")),
               "-" if win is None else f"{100 * float(win):.1f}%",
               _fmt_float(getattr(c, "expected_margin", None), "+.2f"),
               f"{int(visits):,}" if counts and visits is not None else "-"]
        if scores:
            row.append(_fmt_float(getattr(c, "score", None), ".2f"))
        if rolled:
            row += _rollout_cells(getattr(c, "rollout", None))
        pv = _pv_text(getattr(c, "pv", None))
        decisive = getattr(c, "decisive", None)
        if decisive:
            pv = f"[ends the round: {decisive}] {pv}"
        row.append(pv)
        rows.append(row)
    ncol = len(head) - 1
    widths = [max([len(head[k])] + [len(r[k]) for r in rows]) for k in range(ncol)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.ljust(widths[k]) if k == 1 else c.rjust(widths[k])
                 for k, c in enumerate(cells[:ncol])]
        return ("  ".join(parts) + "  " + cells[ncol]).rstrip()

    out = [line(head)] + [line(r) for r in rows]
    if not rows:
        out.append("(no candidate moves)")
    drawn = getattr(report, "drawn", None)
    if drawn is not None:              # a level's move (docs/levels.md)
        out.append(f"plays {drawn} (a level's draw among the searched moves, temperature "
                   f"{getattr(report, 'options', {}).get('temperature', '?')})")
    it = getattr(report, "iterations", None)
    el = getattr(report, "elapsed", None)
    ips = getattr(report, "iterations_per_second", None)
    det = getattr(report, "determinizations", None)
    unit = "nodes" if algo == "expectimax" else "iterations"
    tot = [f"algorithm {algo}"]
    if counts and it is not None:
        tot.append(f"{int(it):,} {unit}")
        if ips:
            tot.append(f"{float(ips):,.0f} {unit}/s")
    if counts and det:
        tot.append(f"{int(det):,} sampled worlds")
    if getattr(report, "depth", None) is not None:
        tot.append(f"depth {report.depth}")
    threads = getattr(report, "threads", 1)
    if threads and threads > 1:
        tot.append(f"{threads} threads")
    if el is not None:
        tot.append(f"elapsed {float(el):.2f} s")
    seed = getattr(report, "seed", None)
    if seed is not None:
        tot.append(f"seed {seed}")
    if getattr(report, "stopped", False):
        tot.append("stopped early")
    out.append("")
    out.append(", ".join(tot))
    ro = getattr(report, "rollouts", None)
    if ro is not None:
        out.append(f"rollouts: {int(ro.worlds):,} worlds each, {float(ro.elapsed):.2f} s, "
                   + ("their best settled (3 standard errors above every other)"
                      if ro.settled else "their ranking not settled"))
    clock = getattr(report, "clock", None)
    if clock:
        out.append(f"clock: {float(clock['time_left']):.2f} s left + "
                   f"{float(clock['increment']):g} s a move; this move aimed at "
                   f"{float(clock['soft']):.2f} s, at most {float(clock['hard']):.2f} s; "
                   f"stopped: {STOPS.get(clock['stop'], clock['stop'])}")
    return "\n".join(out)


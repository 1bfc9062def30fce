"""The text of a game review: what ``print(review)`` and ``jaipur-ai review`` show.

A heading with the settings, then per round a table of every ply (the mover, the move
played and its win probability, the best move and its win probability when another,
the loss in win-percentage points); a labelled move is marked at the end of its row
(``?!`` inaccuracy, ``?`` mistake, ``??`` blunder, and the label in capitals), with the
best move's line below it; then the round's result and where it turned, and the
summary per player.  docs/review.md shows it.
"""
from __future__ import annotations

from typing import Any

__all__ = ["format_review", "limit_text", "MARKS"]

MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _line(moves: Any, limit: int = 8) -> str:
    items = [str(m) for m in moves]
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


def limit_text(settings: dict[str, Any]) -> str:
    """The limit of a review's searches, e.g. '3,000 iterations per ply' or '0.5 s per ply'."""
    if settings.get("iterations") is not None:
        what = "nodes" if settings.get("algorithm") == "expectimax" else "iterations"
        return f"{settings['iterations']:,} {what} per ply"
    return f"{settings.get('time')} s per ply"


def _who(review: Any, p: int) -> str:
    return f"{review.players[p]} (player {p})"


def format_review(review: Any) -> str:
    """The table of a :class:`jaipur_ai.doors.review.GameReview`."""
    s = review.settings
    out = [f"Review of game {review.game}: {_who(review, 0)} against {_who(review, 1)}",
           f"{s.get('algorithm')}, {limit_text(s)}, seed {s.get('seed')}; each ply searched from "
           f"the mover's view only"]
    names = review.players
    width = max(6, *(len(n) for n in names))
    mw = max([16] + [len(str(m)) for p in review.plies for m in (p.move, p.best)])
    for rnd in review.rounds:
        plies = [p for p in review.plies if p.round == rnd.round]
        out.append("")
        out.append(f"round {rnd.round}")
        if not plies:
            out.append("  (no move reviewed)")
        else:
            out.append(f"  {'ply':>3}  {'player':<{width}}  {'played':<{mw}} {'win':>6}  "
                       f"{'best':<{mw}} {'win':>6}  {'loss':>5}")
        for p in plies:
            same = p.best == p.move
            best = "=" if same else str(p.best)
            win_best = "" if same else _pct(p.win_best)
            row = (f"  {p.ply:>3}  {names[p.mover]:<{width}}  {str(p.move):<{mw}} "
                   f"{_pct(p.win_played)}  {best:<{mw}} {win_best:>6}  {p.loss:5.1f}")
            if p.label:
                row += f"  {MARKS[p.label]:<2} {p.label.upper()}"
            out.append(row.rstrip())
            if p.label:
                out.append(f"  {'':>3}  {'':<{width}}  best line: {_line(p.line)}")
        out.append("  " + _round_end(review, rnd))
    out.append("")
    if not review.complete:
        out.append(f"(stopped early: {len(review.plies)} plies reviewed)")
    out.append(f"{'summary':<{width + 12}} {'moves':>5}  {'mean loss':>9}  "
               f"{'inaccuracies':>12}  {'mistakes':>8}  {'blunders':>8}")
    for sm in review.summary:
        c = sm.counts
        out.append(f"{_who(review, sm.player):<{width + 12}} {sm.moves:>5}  "
                   f"{sm.mean_loss:>9.1f}  {c['inaccuracy']:>12}  {c['mistake']:>8}  "
                   f"{c['blunder']:>8}")
    return "\n".join(out)


def _round_end(review: Any, rnd: Any) -> str:
    if rnd.result is None:
        return "the round is unfinished" if review.complete else "(not reviewed to its end)"
    totals = "" if rnd.totals is None else f", {rnd.totals[0]}-{rnd.totals[1]}"
    if rnd.result == "draw":
        return f"drawn{totals}"
    w = int(rnd.result)
    text = f"won by {_who(review, w)}{totals}"
    name = review.players[w]
    if rnd.turning_ply is None:
        return text + f"; {name} was above 50% at every turn"
    p = next(p for p in review.plies_of(rnd.round) if p.ply == rnd.turning_ply)
    return (f"{text}; it turned after ply {rnd.turning_ply}: {name} was last at or below "
            f"50% there ({100 * p.win_best:.1f}%)")

"""The win-probability graph of a game review (``jaipur-ai review --plot FILE.png``).

Each player's chance to win the round, before every ply and at the round's end, across
the game's rounds (a dashed line between rounds); the labelled moves are marked on
the mover's curve where the move left it.  Needs matplotlib, the ``plot`` extra; it
draws with the Agg canvas, without pyplot, so no window and no global state.
"""
from __future__ import annotations

import importlib
import os
from typing import Any

from jaipur_ai.doors._review_table import limit_text
from jaipur_ai.errors import InvalidOptionError, MissingExtraError

__all__ = ["plot_review", "require_matplotlib"]

SUFFIXES = (".png", ".svg", ".pdf")
_STYLE = {"inaccuracy": ("#d4a017", "o", 36), "mistake": ("#e67e22", "s", 44),
          "blunder": ("#c0392b", "X", 80)}
_COLOURS = ("#1f77b4", "#2ca02c")


def require_matplotlib(what: str = "plot") -> Any:
    """matplotlib's Agg canvas and Figure, or a MissingExtraError naming ``what``."""
    try:
        backend = importlib.import_module("matplotlib.backends.backend_agg")
        figure = importlib.import_module("matplotlib.figure")
    except ImportError:
        raise MissingExtraError(what, 'needs matplotlib, which is not installed: '
                                      'pip install "jaipur-ai[plot]"') from None
    return backend.FigureCanvasAgg, figure.Figure


def check_path(path: str, what: str = "plot") -> None:
    """A file name the graph can be written to (a known suffix, an existing folder)."""
    if not isinstance(path, str) or not path:
        raise InvalidOptionError(what, "expected a file name like review.png")
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in SUFFIXES:
        raise InvalidOptionError(
            what, f"{path!r}: the file name must end in {', '.join(SUFFIXES)}")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise InvalidOptionError(what, f"{path!r}: no such folder {folder!r}")


def plot_review(review: Any, path: str, what: str = "plot") -> None:
    """Draw ``review`` (a :class:`jaipur_ai.doors.review.GameReview`) into ``path``."""
    check_path(path, what)
    canvas_class, figure_class = require_matplotlib(what)
    fig = figure_class(figsize=(9, 4.2), dpi=100)
    canvas_class(fig)
    ax = fig.add_subplot(1, 1, 1)
    x0 = 0
    seen: set[Any] = set()
    for n, rnd in enumerate(review.rounds):
        plies = review.plies_of(rnd.round)
        if not plies:
            continue
        end = None
        if rnd.result in (0, 1, "draw"):
            end = [0.5, 0.5] if rnd.result == "draw" else [float(rnd.result == p) for p in (0, 1)]
        for p in (0, 1):
            xs = [x0 + ply.ply for ply in plies if ply.mover == p]
            ys = [100 * ply.win_best for ply in plies if ply.mover == p]
            if end is not None:
                xs.append(x0 + plies[-1].ply + 1)
                ys.append(100 * end[p])
            ax.plot(xs, ys, color=_COLOURS[p], linewidth=1.6, marker=".", markersize=3,
                    label=f"{review.players[p]} (player {p})" if n == 0 else None)
        for ply in plies:
            if ply.label is None:
                continue
            colour, marker, size = _STYLE[ply.label]
            ax.plot([x0 + ply.ply] * 2, [100 * ply.win_best, 100 * ply.win_played],
                    color=colour, linewidth=1.2)
            ax.scatter([x0 + ply.ply], [100 * ply.win_played], color=colour, marker=marker,
                       s=size, zorder=3, edgecolors="black", linewidths=0.5,
                       label=None if ply.label in seen else ply.label)
            seen.add(ply.label)
        ax.text(x0 + 1.3, 103, f"round {rnd.round}", fontsize=8, va="bottom")
        x0 += plies[-1].ply + 1
        if n < len(review.rounds) - 1:
            ax.axvline(x0 + 0.5, color="grey", linestyle="--", linewidth=0.8)
    ax.axhline(50, color="grey", linewidth=0.6, linestyle=":")
    ax.set_ylim(-3, 110)
    ax.set_xlim(0.5, max(1, x0) + 0.5)
    ax.set_xlabel("ply of the game: each player's win probability at its own turns, from "
                  "its own view; a mark: the move played", fontsize=9)
    ax.set_ylabel("win probability of the round, %")
    s = review.settings
    ax.set_title(f"Review of game {review.game}: {review.players[0]} against "
                 f"{review.players[1]}; {s.get('algorithm')}, {limit_text(s)}, seed "
                 f"{s.get('seed')}", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, ncol=5,
              frameon=False)
    fig.tight_layout()
    fig.savefig(path)

"""Why one move over another, in one line, read from a search's own figures: the gap in
win chance and in expected margin, and what the better move's line sells and when (a
bonus token at stake from three cards), or that it takes the camels.  Nothing here is
guessed: every number is the search's, every sale is a move of its line.

>>> from jaipur_ai.rules.move import Move
>>> reason(Move.parse("take C"), 0.62, 4.0, [Move.parse("take C"), Move.parse("camels"),
...        Move.parse("sell 4C")], Move.parse("sell 2C"), 0.55, 1.5)
'take C over sell 2C: +7.0 points of win chance, +2.5 points of margin; its line sells 4 cloth next turn, a bonus token at stake'
"""
from __future__ import annotations

from typing import Optional, Sequence

from jaipur_ai.rules.move import Move

__all__ = ["reason"]

_NAMES = {"D": "diamond", "G": "gold", "S": "silver", "C": "cloth", "P": "spice",
          "L": "leather"}


def _first_sale(line: Sequence[Move]) -> Optional[tuple[int, Move]]:
    """The mover's first sale in the line (its moves are the 1st, 3rd, ...) and its turn."""
    for k, m in enumerate(line[::2]):
        if m.kind == "sell":
            return k, m
    return None


def reason(best: Move, best_win: float, best_margin: Optional[float], line: Sequence[Move],
           other: Move, other_win: float, other_margin: Optional[float] = None) -> str:
    """One line: what ``best`` (win chance ``best_win``, expected margin ``best_margin``,
    principal variation ``line``, starting with it) gains over ``other``."""
    head = f"{best} over {other}: {100 * (best_win - other_win):+.1f} points of win chance"
    if best_margin is not None and other_margin is not None:
        head += f", {best_margin - other_margin:+.1f} points of margin"
    sale = _first_sale(line)
    if sale is not None:
        turn, m = sale
        when = "now" if turn == 0 else "next turn" if turn == 1 else f"in {turn} turns"
        good = _NAMES[str(m).split()[1][-1]]
        tail = f"its line sells {m.count} {good} {when}"
        if m.count >= 3:
            tail += ", a bonus token at stake"
        return f"{head}; {tail}"
    if best.kind == "camels":
        return f"{head}; it takes the camels (the larger herd scores the camel token)"
    return head
